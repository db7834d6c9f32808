// A plugin's page at /ext/<name> (CONTRACT 9): rendered by the plugin
// (GET /plugins/pages/{name}, with this URL's query as its params; admin tier),
// drawn from its blocks as text only (PageBlocks.tsx). A button or form runs the
// plugin's action and shows the page it answers. A plugin failure (502) shows
// the plugin's error; the page it replaced stays until the next success.
import { useLocation, useRoute } from 'preact-iso'
import { useState } from 'preact/hooks'
import { api, type ApiError } from '../../api/client.js'
import { AdminOnly } from '../../components/Guard.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { toApiError, useApi } from '../../components/useApi.js'
import { adminBlocked } from '../../stores/session.js'
import { PageBlocks, type PluginPageJson, type RunAction } from './PageBlocks.js'
import { pluginPages } from './plugin-pages.js'
import './plugins.css'

/** What went wrong, in the words that fit: the plugin's own failure, or the service's answer. */
function contextOf(error: ApiError, name: string, acting: boolean): string {
  if (error.status === 502) return `The plugin ${name} failed`
  if (error.status === 404) return `There is no page ${name}`
  return acting ? 'Could not run the action' : 'Could not load the page'
}

function Rendered({
  name,
  query,
  title,
}: {
  name: string
  query: Record<string, string>
  title: string
}) {
  const rendered = useApi(
    (signal) => api('GET /plugins/pages/:name', { params: { name }, query, signal }),
    [],
  )
  /** The page an action answered, shown instead of the first render. */
  const [next, setNext] = useState<{ page: PluginPageJson; turn: number } | null>(null)
  const [actionError, setActionError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)

  const page = next?.page ?? rendered.data?.page ?? null
  const run: RunAction = (id, paramsJson) => {
    setBusy(true)
    // The params' own text (PageBlocks paramsOf): a number goes as typed.
    const rawBody = `{"id":${JSON.stringify(id)},"params":${paramsJson}}`
    api('POST /plugins/pages/:name/action', { params: { name }, rawBody })
      .then((answer) => {
        setNext((previous) => ({ page: answer.page, turn: (previous?.turn ?? 0) + 1 }))
        setActionError(null)
      })
      .catch((failure: unknown) => setActionError(toApiError(failure)))
      .finally(() => setBusy(false))
  }
  const refresh = () => {
    setNext(null)
    setActionError(null)
    rendered.reload()
  }

  return (
    <>
      <div class="page-head">
        <h1>{page?.title || title}</h1>
        <button type="button" disabled={busy || rendered.loading} onClick={refresh}>
          Refresh
        </button>
      </div>
      <p class="hint plugin-source">
        A page of the plugin <a href="/plugins">{name}</a>.
      </p>
      {rendered.error && next === null ? (
        <ErrorNote error={rendered.error} context={contextOf(rendered.error, name, false)} />
      ) : null}
      <ErrorNote
        error={actionError}
        context={actionError ? contextOf(actionError, name, true) : ''}
      />
      {page === null && rendered.loading ? <p class="loading">Loading…</p> : null}
      {page ? (
        <div class={busy ? 'loading-fade' : undefined} aria-busy={busy}>
          {page.blocks.length === 0 ? <p class="empty">This page is empty.</p> : null}
          {/* A new page from an action starts its forms afresh. */}
          <PageBlocks key={next?.turn ?? 0} page={page} busy={busy} onAction={run} />
        </div>
      ) : null}
    </>
  )
}

export function PluginPage() {
  const { params } = useRoute()
  const { query, url } = useLocation()
  const name = params.name ?? ''
  const title = pluginPages.value.find((p) => p.name === name)?.title ?? name
  if (adminBlocked.value !== null) {
    return (
      <section>
        <h1>{title}</h1>
        <p class="hint">
          A plugin page runs the plugin's code, so only the dashboard token opens it.
        </p>
        <AdminOnly>{null}</AdminOnly>
      </section>
    )
  }
  return (
    <section class="plugin-page">
      {/* Another page or another query is a new render. */}
      <Rendered key={url} name={name} query={query} title={title} />
    </section>
  )
}

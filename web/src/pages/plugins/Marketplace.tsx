// The marketplace (CONTRACT 9): the index at plugins.registry_url with what is
// installed here, and install or update for the dashboard token. An install
// arrives disabled; an update keeps the plugin's enabled state. A refusal (a
// file failing its size or SHA-256, an index that cannot be read) is shown in
// place.
import { useState } from 'preact/hooks'
import { api, type ApiError, type Result } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { toApiError, useApi } from '../../components/useApi.js'
import { notify } from '../../stores/notices.js'

type Entry = Result<'GET /plugins/registry'>['plugins'][number]

function NotConfigured() {
  return (
    <div class="card empty-state">
      <p>No marketplace is configured.</p>
      <p class="hint">
        Set <code>plugins.registry_url</code> to a plugin index in <a href="/settings">Settings</a>{' '}
        (or in the configuration file) to install plugins from here. Plugins copied into{' '}
        <code>plugins.dir</code> by hand are listed above either way.
      </p>
    </div>
  )
}

function EntryRow({
  entry,
  busy,
  error,
  onInstall,
}: {
  entry: Entry
  busy: boolean
  error: ApiError | undefined
  onInstall: () => void
}) {
  const headingId = `market-${entry.name}`
  const status = entry.update_available
    ? `installed ${entry.installed_version ?? ''}, ${entry.version} available`
    : entry.installed
      ? `installed${entry.installed_version ? ` ${entry.installed_version}` : ''}`
      : null
  return (
    <li class="market-entry">
      <div class="market-main">
        <div class="plugin-head">
          <h3 id={headingId}>{entry.name}</h3>
          <span class="plugin-version">{entry.version}</span>
          {status ? (
            <span class={`badge ${entry.update_available ? '' : 'ok'}`}>{status}</span>
          ) : null}
        </div>
        {entry.description ? <p class="plugin-description">{entry.description}</p> : null}
        <p class="hint">
          {entry.author ? `by ${entry.author}` : null}
          {entry.author && entry.capabilities.length > 0 ? ' · ' : null}
          {entry.capabilities.length > 0 ? `asks for ${entry.capabilities.join(', ')}` : null}
        </p>
        <ErrorNote error={error ?? null} context={`Could not install ${entry.name}`} />
      </div>
      <div class="market-action">
        {!entry.installed ? (
          <button type="button" class="primary" disabled={busy} onClick={onInstall}>
            {busy ? 'Installing…' : 'Install'}
          </button>
        ) : entry.update_available ? (
          <button type="button" class="primary" disabled={busy} onClick={onInstall}>
            {busy ? 'Updating…' : `Update to ${entry.version}`}
          </button>
        ) : null}
      </div>
    </li>
  )
}

export function Marketplace({ onInstalled }: { onInstalled: () => void }) {
  const registry = useApi((signal) => api('GET /plugins/registry', { signal }), [])
  const [busy, setBusy] = useState<string | null>(null)
  const [errors, setErrors] = useState<ReadonlyMap<string, ApiError>>(new Map())

  const install = async (entry: Entry) => {
    setBusy(entry.name)
    const without = new Map(errors)
    without.delete(entry.name)
    setErrors(without)
    try {
      const plugin = await api('POST /plugins/registry/:name/install', {
        params: { name: entry.name },
      })
      notify(
        entry.installed
          ? `Updated ${plugin.name} to ${plugin.version}`
          : `Installed ${plugin.name} ${plugin.version}; it starts disabled: enable it above`,
      )
      registry.reload()
      onInstalled()
    } catch (failure) {
      setErrors((previous) => new Map(previous).set(entry.name, toApiError(failure)))
    } finally {
      setBusy(null)
    }
  }

  const entries = registry.data?.plugins ?? []
  return (
    <section class="marketplace" aria-labelledby="marketplace-heading">
      <div class="page-head">
        <h2 id="marketplace-heading">Marketplace</h2>
        {registry.data?.available || registry.error ? (
          <button type="button" disabled={registry.loading} onClick={registry.reload}>
            Check again
          </button>
        ) : null}
      </div>
      <ErrorNote
        error={registry.error}
        context={
          registry.error?.status === 502
            ? 'The marketplace index could not be read'
            : 'Could not load the marketplace'
        }
      />
      {registry.data === null && registry.loading ? <p class="loading">Loading…</p> : null}
      {registry.data !== null && !registry.data.available ? <NotConfigured /> : null}
      {registry.data?.available && entries.length === 0 ? (
        <div class="card empty-state">
          <p>The marketplace lists no plugins.</p>
        </div>
      ) : null}
      {entries.length > 0 ? (
        <ul class="card market-list">
          {entries.map((entry) => (
            <EntryRow
              key={entry.name}
              entry={entry}
              busy={busy === entry.name}
              error={errors.get(entry.name)}
              onInstall={() => void install(entry)}
            />
          ))}
        </ul>
      ) : null}
    </section>
  )
}

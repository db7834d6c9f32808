// The sources page (issue 13 item 6; SPEC 1.1-1.3, 2.9, 4.2-4.4, 5.4): every
// source, active or not, with its readiness and credentials; a sync of one or
// all, followed until the run ends; the sync history; and the landing of Google
// Drive's OAuth callback (/sources?source=csv&oauth=connected|error&reason=…).
import { useLocation } from 'preact-iso'
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, ApiError } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { IfWrite, ReadOnlyNotice } from '../../components/Guard.js'
import { toApiError, useApi } from '../../components/useApi.js'
import { notify } from '../../stores/notices.js'
import {
  countsWords,
  outcomeWords,
  statusClass,
  STATUS_WORDS,
  type SourceEntry,
  type SyncRun,
} from './run-words.js'
import { SourceCard } from './SourceCard.js'
import { SyncHistory } from './SyncHistory.js'
import './sources.css'

const HISTORY_LIMIT = 20
/** How often a running sync is looked at; runs take seconds, not minutes. */
const RUN_POLL_MS = 1000

interface OAuthLanding {
  connected: boolean
  reason: string | null
}

/** Reads the OAuth callback's outcome once, then takes it out of the address bar. */
function useOAuthLanding(): [OAuthLanding | null, () => void] {
  const location = useLocation()
  const [landing, setLanding] = useState<OAuthLanding | null>(null)
  const { source, oauth, reason } = location.query
  useEffect(() => {
    if (source !== 'csv' || (oauth !== 'connected' && oauth !== 'error')) return
    setLanding({ connected: oauth === 'connected', reason: reason ?? null })
    // A reload or a shared link must not announce it again.
    location.route('/sources', true)
  }, [source, oauth, reason])
  return [landing, () => setLanding(null)]
}

/** Follows one run (by id) until it ends; also picks up a run already going on. */
function useRunWatch(onEnd: (run: SyncRun) => void) {
  const [runId, setRunId] = useState<string | null>(null)
  const [run, setRun] = useState<SyncRun | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const onEndRef = useRef(onEnd)
  onEndRef.current = onEnd

  // A run started elsewhere (the schedule, another tab) is shown too.
  useEffect(() => {
    const controller = new AbortController()
    api('GET /sync', { signal: controller.signal })
      .then(({ latest }) => {
        if (latest?.status === 'running') {
          setRun(latest)
          setRunId(latest.id)
        }
      })
      .catch(() => undefined) // the history below shows the same failure
    return () => controller.abort()
  }, [])

  useEffect(() => {
    if (runId === null) return
    const controller = new AbortController()
    const { signal } = controller
    let timer: ReturnType<typeof setTimeout> | undefined
    const look = async () => {
      try {
        const { latest } = await api('GET /sync', { signal })
        let found = latest?.id === runId ? latest : null
        if (found === null) {
          // A newer run began meanwhile: find ours in the history.
          const { runs } = await api('GET /sync/history', { query: { limit: 50 }, signal })
          found = runs.find((r) => r.id === runId) ?? null
        }
        if (signal.aborted) return
        setError(null)
        if (found) setRun(found)
        if (found && found.status !== 'running') {
          setRunId(null)
          onEndRef.current(found)
          return
        }
      } catch (failure) {
        if (signal.aborted) return
        setError(toApiError(failure))
      }
      timer = setTimeout(() => void look(), RUN_POLL_MS)
    }
    void look()
    return () => {
      controller.abort()
      clearTimeout(timer)
    }
  }, [runId])

  return { runId, run, error, watch: setRunId }
}

export function SourcesPage() {
  const [landing, dismissLanding] = useOAuthLanding()
  const sources = useApi((signal) => api('GET /sources', { signal }), [])
  const history = useApi(
    (signal) => api('GET /sync/history', { query: { limit: HISTORY_LIMIT }, signal }),
    [],
  )
  // Entries answered by a credential change replace the loaded ones at once.
  const [updated, setUpdated] = useState<Record<string, SourceEntry>>({})
  const [startError, setStartError] = useState<ApiError | null>(null)

  const list = (sources.data?.sources ?? []).map((s) => updated[s.type] ?? s)
  const titleOf = (type: string) => list.find((s) => s.type === type)?.title ?? type

  const runs = useRunWatch((run) => {
    setUpdated({})
    sources.reload()
    history.reload()
    notify(outcomeWords(run, titleOf), run.status === 'success' ? 'ok' : 'error')
  })
  const running = runs.runId !== null

  const sync = async (type: string | null) => {
    setStartError(null)
    try {
      const { run_id } =
        type === null
          ? await api('POST /sync')
          : await api('POST /sources/:type/sync', { params: { type } })
      runs.watch(run_id)
    } catch (failure) {
      setStartError(toApiError(failure))
    }
  }

  const enabled = sources.data?.enabled ?? []
  return (
    <section class="sources-page">
      <div class="page-head">
        <h1>Sources</h1>
        <IfWrite>
          <button
            type="button"
            class="primary"
            disabled={running || enabled.length === 0}
            title={enabled.length === 0 ? 'No source is configured' : undefined}
            onClick={() => void sync(null)}
          >
            {running ? 'Syncing…' : 'Sync all now'}
          </button>
        </IfWrite>
      </div>
      <ReadOnlyNotice />
      {landing ? <LandingNotice landing={landing} onDismiss={dismissLanding} /> : null}
      {sources.data?.restart_required ? (
        <p class="notice" role="note">
          A configuration change waits for a restart of the service.
        </p>
      ) : null}
      <ErrorNote error={startError} context="Could not start the sync" />
      <RunOutcome run={runs.run} running={running} titleOf={titleOf} />
      <ErrorNote error={runs.error} context="Could not follow the sync" />

      <ErrorNote error={sources.error} context="Could not load the sources" />
      {sources.data ? (
        <div class="source-list">
          {list.map((source) => (
            <SourceCard
              key={source.type}
              source={source}
              running={running}
              inRun={
                running &&
                (runs.run === null || runs.run.source === null || runs.run.source === source.type)
              }
              onSync={(type) => void sync(type)}
              onChange={(entry) => setUpdated((u) => ({ ...u, [entry.type]: entry }))}
            />
          ))}
        </div>
      ) : sources.loading ? (
        <p class="loading">Loading…</p>
      ) : null}

      <h2 id="sync-history">Sync history</h2>
      <ErrorNote error={history.error} context="Could not load the sync history" />
      {history.data ? <SyncHistory runs={history.data.runs} titleOf={titleOf} /> : null}
    </section>
  )
}

function LandingNotice({ landing, onDismiss }: { landing: OAuthLanding; onDismiss: () => void }) {
  return (
    <div
      class={landing.connected ? 'notice landing ok' : 'error-note landing'}
      role={landing.connected ? 'status' : 'alert'}
    >
      <p>
        {landing.connected ? (
          <>
            <strong>Google Drive is connected.</strong> Drive folders are read on the next sync.
          </>
        ) : (
          <>
            <strong>Google Drive was not connected.</strong>{' '}
            {landing.reason ?? 'Google gave no reason.'}
          </>
        )}
      </p>
      <button type="button" class="link" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  )
}

/** The run being followed, then how it ended (the sources' rows and errors). */
function RunOutcome({
  run,
  running,
  titleOf,
}: {
  run: SyncRun | null
  running: boolean
  titleOf: (type: string) => string
}) {
  return (
    <div
      class="sync-outcome"
      role="status"
      aria-label="Sync run"
      aria-live="polite"
      aria-busy={running}
    >
      {run ? (
        <div class="card">
          <p class="outcome-line">
            <span class={statusClass(run.status)}>{STATUS_WORDS[run.status]}</span>{' '}
            {outcomeWords(run, titleOf)}
          </p>
          {Object.keys(run.counts).length > 0 ? (
            <ul class="run-counts">
              {Object.entries(run.counts).map(([type, counts]) => (
                <li key={type}>
                  <strong>{titleOf(type)}</strong>: {countsWords(counts)}
                </li>
              ))}
            </ul>
          ) : null}
          {run.error || run.warnings.length > 0 ? (
            <ul class="run-problems">
              {run.error ? <li class="run-error">{run.error}</li> : null}
              {run.warnings.map((w, i) => (
                <li key={i}>{w}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </div>
  )
}

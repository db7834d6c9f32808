// Self-update (CONTRACT 10; docs/operations.md "Self-update"): what the last
// check of the release feed saw (GET /update never fetches), and, for the
// dashboard token, installing the newer release, then waiting for the service
// to come back at it (or at the old version, when the new one was rolled back).
import { useState } from 'preact/hooks'
import { api, type Result } from '../../api/client.js'
import { ConfirmDialog } from '../../components/ConfirmDialog.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { ago, formatTime } from '../../components/format.js'
import { useApi } from '../../components/useApi.js'
import { adminBlocked } from '../../stores/session.js'
import { notify } from '../../stores/notices.js'

type Status = Result<'GET /update'>
type Enabled = Exclude<Status, { enabled: false }>

/** The new version must answer within the supervisor's 60 s, plus its start. */
const UPDATE_WAIT_MS = 90_000
const UPDATE_POLL_MS = 1_000

/** Polls GET /update until the service answers again; returns the version it runs then. */
async function versionAfterRestart(old: string): Promise<string | null> {
  const deadline = Date.now() + UPDATE_WAIT_MS
  await new Promise((resolve) => setTimeout(resolve, UPDATE_POLL_MS))
  while (Date.now() < deadline) {
    try {
      const status = await api('GET /update')
      // The old process may still answer while it drains: wait for a change or the rollback.
      if ('current' in status && status.current !== old) return status.current
      if ('current' in status && status.checked_at === null) return status.current
    } catch {
      // draining, starting, or rolling back: try again
    }
    await new Promise((resolve) => setTimeout(resolve, UPDATE_POLL_MS))
  }
  return null
}

function Off() {
  return (
    <div class="card stack">
      <p>Checking for updates is off.</p>
      <p class="hint">
        Set <code>update.url</code> to your release feed and turn on <code>update.check</code> in{' '}
        <a href="/settings">Settings</a> (or in the configuration file); the feed is read 15 s after
        the service starts and then once a day. <code>update.allow_apply</code> allows installing a
        release from here.
      </p>
    </div>
  )
}

/**
 * Why this page cannot install the release, in words: no dashboard token, or
 * (`can_apply` false) update.allow_apply as the settings hold it, else no build
 * for this platform. Null when it can.
 */
function useInstallBlocker(status: Enabled): string | null {
  const admin = adminBlocked.value
  const asks = admin === null && !status.can_apply
  const settings = useApi(
    (signal) => (asks ? api('GET /settings', { signal }) : Promise.resolve(null)),
    [asks],
  )
  if (admin !== null) return admin
  if (status.can_apply) return null
  const allow = settings.data?.settings.find((setting) => setting.key === 'update.allow_apply')
  if (!allow)
    return 'installing is off (update.allow_apply) or the release has no build for this platform'
  if (allow.value !== true) return 'installing is off: turn on update.allow_apply in Settings'
  if (allow.restart_required) return 'update.allow_apply is on from the next restart'
  return 'the release has no build for this platform'
}

function Status({ status, onApplied }: { status: Enabled; onApplied: () => void }) {
  const [confirming, setConfirming] = useState(false)
  const [installing, setInstalling] = useState(false)
  const why = useInstallBlocker(status)
  return (
    <div class="card stack">
      <dl class="kv">
        <dt>Running</dt>
        <dd>{status.current}</dd>
        <dt>Latest</dt>
        <dd>{status.latest ?? 'not checked yet'}</dd>
        <dt>Checked</dt>
        <dd>
          {status.checked_at ? (
            <time dateTime={status.checked_at} title={formatTime(status.checked_at)}>
              {ago(status.checked_at)}
            </time>
          ) : (
            'not yet (15 s after the service starts)'
          )}
        </dd>
      </dl>
      {status.last_error ? (
        <p class="error-note" role="alert">
          The last check failed: {status.last_error}
        </p>
      ) : null}
      {status.update_available ? (
        <div class="notice" role="status">
          <p>
            Version <strong>{status.latest}</strong> is available.{' '}
            {status.notes_url ? (
              <a href={status.notes_url} rel="noreferrer noopener" target="_blank">
                Release notes
              </a>
            ) : null}
          </p>
          {installing ? (
            <p>Installing and restarting…</p>
          ) : (
            <button
              type="button"
              class="primary"
              disabled={why !== null}
              title={why ?? undefined}
              onClick={() => setConfirming(true)}
            >
              Install {status.latest}
            </button>
          )}
          {why && !installing ? <p class="hint">Cannot install here: {why}.</p> : null}
        </div>
      ) : status.latest ? (
        <p>This is the latest version.</p>
      ) : null}
      <ConfirmDialog
        title={`Install version ${status.latest ?? ''}?`}
        confirm="Install and restart"
        open={confirming}
        onClose={() => setConfirming(false)}
        onConfirm={async () => {
          const applied = await api('POST /update')
          setConfirming(false)
          if (!applied.updated) {
            notify(`Already at ${applied.version}`, 'ok')
            onApplied()
            return
          }
          setInstalling(true)
          const now = await versionAfterRestart(status.current)
          setInstalling(false)
          if (now === applied.version) notify(`Updated to ${now}`, 'ok')
          else if (now) notify(`${applied.version} did not start; ${now} was put back`, 'error')
          else notify('The service did not come back', 'error')
          onApplied()
        }}
      >
        <p>
          The release is downloaded and checked against the feed's size and SHA-256, swapped in, and
          the service restarts into it. If it does not become ready within a minute, the running
          version is put back.
        </p>
      </ConfirmDialog>
    </div>
  )
}

export function UpdatePage() {
  const status = useApi((signal) => api('GET /update', { signal }), [])
  return (
    <section class="stack">
      <h1>Update</h1>
      <ErrorNote error={status.error} context="Could not read the update status" />
      {status.data === null && status.loading ? <p class="loading">Loading…</p> : null}
      {status.data === null ? null : 'enabled' in status.data ? (
        <Off />
      ) : (
        <Status status={status.data} onApplied={status.reload} />
      )}
    </section>
  )
}

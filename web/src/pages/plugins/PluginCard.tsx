// One installed plugin: what it is, its state and health, the hooks and
// capabilities it declares, and, for the dashboard token, its lifecycle buttons
// and its recent network attempts (a disclosure, loaded when opened).
import { useState } from 'preact/hooks'
import { api } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { formatTime } from '../../components/format.js'
import { useApi } from '../../components/useApi.js'
import { fetchesNetwork, healthOf, stateOf, type Plugin } from './plugin-health.js'

function Chips({ items, none }: { items: readonly string[]; none: string }) {
  if (items.length === 0) return <span class="hint">{none}</span>
  return (
    <span class="chips">
      {items.map((item) => (
        <span class="chip" key={item}>
          {item}
        </span>
      ))}
    </span>
  )
}

const OUTCOME_TONE = { ok: 'ok', denied: 'bad', failed: 'bad' } as const

/** The plugin's recent network attempts, newest first (kept in memory by the service). */
function EgressAttempts({ id }: { id: string }) {
  const egress = useApi(
    (signal) => api('GET /plugins/:id/egress', { params: { id }, signal }),
    [id],
  )
  const attempts = egress.data?.attempts ?? []
  return (
    <div class="egress">
      <ErrorNote error={egress.error} context="Could not load the network attempts" />
      {egress.data === null && egress.loading ? <p class="loading">Loading…</p> : null}
      {egress.data !== null && attempts.length === 0 ? (
        <p class="hint">No network attempts since the service started.</p>
      ) : null}
      {attempts.length > 0 ? (
        <ol class="egress-list" aria-label="Network attempts">
          {attempts.map((a, i) => (
            <li key={`${a.at}-${i}`}>
              <div class="egress-line">
                <span class={`badge ${OUTCOME_TONE[a.outcome]}`}>{a.outcome}</span>
                <code class="egress-url">
                  {a.method} {a.url}
                </code>
              </div>
              <div class="hint">
                {[
                  formatTime(a.at),
                  a.status !== undefined ? `HTTP ${a.status}` : null,
                  a.bytes !== undefined ? `${a.bytes.toLocaleString()} bytes` : null,
                  `${Math.round(a.duration_ms).toLocaleString()} ms`,
                ]
                  .filter((part) => part !== null)
                  .join(' · ')}
              </div>
              {a.reason ? <div class="egress-reason">{a.reason}</div> : null}
            </li>
          ))}
        </ol>
      ) : null}
      <button type="button" class="link" onClick={egress.reload}>
        Refresh
      </button>
    </div>
  )
}

function NetworkLog({ id }: { id: string }) {
  const [open, setOpen] = useState(false)
  return (
    <details class="plugin-network" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Network</summary>
      {open ? <EgressAttempts id={id} /> : null}
    </details>
  )
}

export interface PluginActions {
  onEnable: () => void
  onDisable: () => void
  onReload: () => void
  onRemove: () => void
}

export function PluginCard({
  plugin,
  admin,
  busy,
  actions,
}: {
  plugin: Plugin
  /** The dashboard token: lifecycle buttons and the network log are shown. */
  admin: boolean
  busy: boolean
  actions: PluginActions
}) {
  const state = stateOf(plugin)
  const headingId = `plugin-${plugin.id}`
  const network = fetchesNetwork(plugin) || plugin.net_grants.length > 0
  return (
    <article class="card plugin" aria-labelledby={headingId}>
      <div class="plugin-head">
        <h2 id={headingId}>{plugin.name}</h2>
        {plugin.version ? <span class="plugin-version">{plugin.version}</span> : null}
        <span class={`badge ${state.tone}`} title={state.meaning}>
          {state.word}
        </span>
      </div>
      {plugin.description ? <p class="plugin-description">{plugin.description}</p> : null}
      {plugin.author ? <p class="hint plugin-author">by {plugin.author}</p> : null}
      <p class="health">{healthOf(plugin)}</p>
      {plugin.last_error ? (
        <p class="plugin-error">
          <strong>Last error:</strong> {plugin.last_error}
        </p>
      ) : null}
      <dl class="kv">
        <dt>Hooks</dt>
        <dd>
          <Chips items={plugin.hooks} none="none" />
        </dd>
        <dt>Capabilities</dt>
        <dd>
          <Chips items={plugin.capabilities} none="none: it only logs and keeps its config" />
        </dd>
        {network ? (
          <>
            <dt>Granted hosts</dt>
            <dd>
              <Chips items={plugin.net_grants} none="none beyond its manifest's [net] allow" />
            </dd>
          </>
        ) : null}
        <dt>Last run</dt>
        <dd>{plugin.last_run_at ? formatTime(plugin.last_run_at) : 'never'}</dd>
        <dt>Last success</dt>
        <dd>{plugin.last_success_at ? formatTime(plugin.last_success_at) : 'never'}</dd>
      </dl>
      {admin ? (
        <>
          <div class="actions">
            {plugin.enabled ? (
              <button type="button" disabled={busy} onClick={actions.onDisable}>
                Disable
              </button>
            ) : (
              <button type="button" class="primary" disabled={busy} onClick={actions.onEnable}>
                Enable
              </button>
            )}
            {plugin.state !== 'missing' ? (
              <button type="button" disabled={busy} onClick={actions.onReload}>
                Reload
              </button>
            ) : null}
            <button type="button" class="danger" disabled={busy} onClick={actions.onRemove}>
              Remove
            </button>
          </div>
          <NetworkLog id={plugin.id} />
        </>
      ) : null}
    </article>
  )
}

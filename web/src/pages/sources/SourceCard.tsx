// One source of GET /sources as a card: whether it runs and why not, its last
// run, the errors to fix, its credentials, its configuration (secrets arrive
// redacted), and a button to sync it alone.
import { IfWrite } from '../../components/Guard.js'
import { ago, formatTime } from '../../components/format.js'
import { Credentials } from './Credentials.js'
import {
  countsWords,
  readinessWords,
  STATUS_WORDS,
  statusClass,
  TRIGGER_WORDS,
  type SourceEntry,
} from './run-words.js'

const CREDENTIAL_HEADINGS: Record<string, string> = {
  ethereum: 'Watched addresses',
  csv: 'Google Drive',
  aggregator: 'SimpleFIN credential',
}

export function SourceCard({
  source,
  running,
  inRun,
  onSync,
  onChange,
}: {
  source: SourceEntry
  /** A run is going on: syncing again would only join it. */
  running: boolean
  /** That run covers this source. */
  inRun: boolean
  onSync: (type: string) => void
  onChange: (entry: SourceEntry) => void
}) {
  const { state, advice } = readinessWords(source)
  const headingId = `source-${source.type}`
  const last = source.last_run
  const counts = last?.counts[source.type]
  return (
    <article class="card source-card" aria-labelledby={headingId}>
      <header class="source-head">
        <h2 id={headingId}>
          {source.title} <span class="source-type">{source.type}</span>
        </h2>
        <span class="source-badges">
          <span class={source.active ? 'badge ok' : 'badge'}>
            {source.active ? 'Active' : 'Not configured'}
          </span>
          {source.active ? (
            <span class={source.connected ? 'badge ok' : 'badge bad'}>
              {source.connected ? 'Connected' : 'Not connected'}
            </span>
          ) : null}
        </span>
      </header>
      <p class="readiness">
        {state}
        {advice ? <span class="hint"> {advice}</span> : null}
      </p>
      <p class="last-run">
        {last ? (
          <>
            Last run{' '}
            <time dateTime={last.started_at} title={formatTime(last.started_at)}>
              {ago(last.started_at)}
            </time>{' '}
            ({TRIGGER_WORDS[last.trigger]}):{' '}
            <span class={statusClass(last.status)}>{STATUS_WORDS[last.status]}</span>
            {counts ? <span class="counts"> {countsWords(counts)}.</span> : null}
          </>
        ) : (
          'Not synced yet.'
        )}
      </p>
      {source.errors.length > 0 ? (
        <div class="error-note source-errors">
          <strong>Problems in the last run</strong>
          <ul>
            {source.errors.map((error, i) => (
              <li key={i}>{error}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <IfWrite>
        <div class="actions">
          <button
            type="button"
            disabled={!source.active || running}
            aria-label={`Sync ${source.title} now`}
            aria-describedby={!source.active ? `${headingId}-why` : undefined}
            onClick={() => onSync(source.type)}
          >
            {inRun ? 'Syncing…' : 'Sync now'}
          </button>
          {!source.active ? (
            <span class="hint" id={`${headingId}-why`}>
              Only a configured source can sync.
            </span>
          ) : null}
        </div>
      </IfWrite>
      <h3>{CREDENTIAL_HEADINGS[source.type] ?? 'Credential'}</h3>
      <Credentials source={source} onChange={onChange} />
      {source.config.length > 0 ? (
        <details class="source-config">
          <summary>Configuration</summary>
          <dl class="kv">
            {source.config.map((item) => (
              <ConfigItem key={item.key} name={item.key} value={item.value} />
            ))}
          </dl>
          <p class="hint">
            Set in the configuration file or SERVICE_* variables; a change needs a restart.
          </p>
        </details>
      ) : null}
    </article>
  )
}

function ConfigItem({ name, value }: { name: string; value: unknown }) {
  return (
    <>
      <dt>
        <code>{name}</code>
      </dt>
      <dd>
        <ConfigValue value={value} />
      </dd>
    </>
  )
}

/** A config value as a person reads it: "not set", "set (hidden)", a list of folders. */
function ConfigValue({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span class="hint">not set</span>
  if (value === '[redacted]') return <span>set (hidden)</span>
  if (Array.isArray(value)) {
    if (value.length === 0) return <span class="hint">none</span>
    return (
      <ul class="config-list">
        {value.map((item, i) => (
          <li key={i}>{describeItem(item)}</li>
        ))}
      </ul>
    )
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return <code>{String(value)}</code>
  }
  return <code>{JSON.stringify(value)}</code>
}

/** A CSV folder entry: "Checking: /data/checking → account Checking, USD". */
function describeItem(item: unknown): string {
  if (item === null || typeof item !== 'object') return String(item)
  const f = item as Record<string, unknown>
  if (typeof f.name !== 'string') return JSON.stringify(item)
  const where = f.backend === 'drive' ? `drive folder ${String(f.folder_id)}` : String(f.path)
  const currency = typeof f.currency === 'string' ? `, ${f.currency}` : ''
  return `${f.name}: ${where} → account ${String(f.account)}${currency}`
}

// Where a transaction came from and what happened to it since (SPEC 2.5).
import { api } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { formatTime } from '../../components/format.js'
import { useApi } from '../../components/useApi.js'
import { accounts } from '../../stores/accounts.js'

export function ProvenancePanel({ id, version }: { id: string; version: string }) {
  const provenance = useApi(
    (signal) => api('GET /transactions/:id/provenance', { params: { id }, signal }),
    [id, version],
  )
  if (provenance.error) {
    return <ErrorNote error={provenance.error} context="Could not load the provenance" />
  }
  const p = provenance.data
  if (!p) return <p class="loading">Loading…</p>
  return (
    <div class="stack">
      <dl class="kv">
        <dt>Source</dt>
        <dd>{p.source}</dd>
        <dt>Source's id</dt>
        <dd>
          <code>{p.source_transaction_id}</code>
        </dd>
        <dt>Account</dt>
        <dd>
          <a href={`/accounts/${encodeURIComponent(p.account_id)}`}>
            {accounts.value.get(p.account_id)?.name ?? p.account_id}
          </a>
        </dd>
        <dt>Institution</dt>
        <dd>{p.institution ?? <span class="sub">unknown</span>}</dd>
        <dt>Imported</dt>
        <dd>{formatTime(p.imported_at)}</dd>
        <dt>Last seen</dt>
        <dd>{formatTime(p.last_seen)}</dd>
      </dl>
      <h3>Transformations</h3>
      {p.transformations.length === 0 ? (
        <p class="empty">None recorded.</p>
      ) : (
        <ol class="transformations">
          {p.transformations.map((t, i) => (
            <li key={i}>
              <span class="badge">{t.kind}</span> {t.summary}
              <div class="sub">{formatTime(t.occurred_at)}</div>
            </li>
          ))}
        </ol>
      )}
    </div>
  )
}

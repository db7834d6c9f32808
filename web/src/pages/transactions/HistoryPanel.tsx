// A transaction's versions (CONTRACT 6), newest first, each with what changed:
// field, from, to. Labels and extensions change per key (`labels.category`).
import { api, type Result } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { formatTime } from '../../components/format.js'
import { useApi } from '../../components/useApi.js'

const KIND_WORDS: Record<string, string> = {
  imported: 'Imported',
  synced: 'Changed by a sync',
  edited: 'Edited',
  labeled: 'Labels changed',
  extended: 'Extensions changed',
  deleted: 'Deleted',
}

type Version = Result<'GET /transactions/:id/history'>['versions'][number]

/** A diff side as text: strings as they are, everything else as compact JSON; absent is "none". */
function Side({ value, present }: { value: unknown; present: boolean }) {
  if (!present) return <span class="none">none</span>
  return <code>{typeof value === 'string' ? value : JSON.stringify(value)}</code>
}

/**
 * Whether a field had a value in a snapshot. A diff writes an absent side as
 * null, but an extension may hold JSON null itself: the snapshots tell which.
 */
function presentIn(snapshot: Version['snapshot'] | undefined, field: string, value: unknown) {
  if (field.startsWith('extensions.')) {
    return snapshot !== undefined && field.slice('extensions.'.length) in snapshot.extensions
  }
  return value !== null && value !== undefined
}

function verb(from: boolean, to: boolean): string {
  if (!from) return 'added'
  if (!to) return 'removed'
  return 'changed'
}

export function HistoryPanel({ id, version }: { id: string; version: string }) {
  const history = useApi(
    (signal) => api('GET /transactions/:id/history', { params: { id }, signal }),
    [id, version],
  )
  if (history.error) return <ErrorNote error={history.error} context="Could not load the history" />
  if (!history.data) return <p class="loading">Loading…</p>
  const oldestFirst = history.data.versions
  if (oldestFirst.length === 0) return <p class="empty">No versions recorded.</p>
  const before = new Map(oldestFirst.map((v, i) => [v.version, oldestFirst[i - 1]?.snapshot]))
  return (
    <ol class="versions" reversed>
      {[...oldestFirst].reverse().map((v) => {
        const changes = Object.entries(v.diff).map(([field, change]) => ({
          field,
          ...change,
          fromPresent: presentIn(before.get(v.version), field, change.from),
          toPresent: v.kind !== 'deleted' && presentIn(v.snapshot, field, change.to),
        }))
        return (
          <li key={v.version}>
            <h3>
              Version {v.version}: {KIND_WORDS[v.kind] ?? v.kind}
              <span class="sub"> · {formatTime(v.occurred_at)}</span>
            </h3>
            {changes.length === 0 ? (
              <p class="empty">
                {v.kind === 'imported'
                  ? `First recorded (source ${v.snapshot.source}).`
                  : 'No field changed.'}
              </p>
            ) : (
              <table class="rows diff">
                <colgroup>
                  <col class="field" />
                  <col />
                  <col />
                </colgroup>
                <thead>
                  <tr>
                    <th scope="col">Field</th>
                    <th scope="col">From</th>
                    <th scope="col">To</th>
                  </tr>
                </thead>
                <tbody>
                  {changes.map((c) => (
                    <tr key={c.field}>
                      <th scope="row">
                        <code>{c.field}</code>{' '}
                        <span class="sub">{verb(c.fromPresent, c.toPresent)}</span>
                      </th>
                      <td class="from">
                        <span class="side-label">from </span>
                        <Side value={c.from} present={c.fromPresent} />
                      </td>
                      <td class="to">
                        <span class="side-label">to </span>
                        <Side value={c.to} present={c.toPresent} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </li>
        )
      })}
    </ol>
  )
}

// A transaction's versions (CONTRACT 6), newest first, each with what changed:
// field, from, to. Labels and extensions change per key (`labels.category`).
import { api } from '../../api/client.js'
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

/** A diff side as text: strings as they are, everything else as compact JSON; null is "none". */
function Side({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span class="none">none</span>
  return <code>{typeof value === 'string' ? value : JSON.stringify(value)}</code>
}

function verb(from: unknown, to: unknown): string {
  if (from === null || from === undefined) return 'added'
  if (to === null || to === undefined) return 'removed'
  return 'changed'
}

export function HistoryPanel({ id, version }: { id: string; version: string }) {
  const history = useApi(
    (signal) => api('GET /transactions/:id/history', { params: { id }, signal }),
    [id, version],
  )
  if (history.error) return <ErrorNote error={history.error} context="Could not load the history" />
  if (!history.data) return <p class="loading">Loading…</p>
  const versions = [...history.data.versions].reverse()
  if (versions.length === 0) return <p class="empty">No versions recorded.</p>
  return (
    <ol class="versions" reversed>
      {versions.map((v) => {
        const changes = Object.entries(v.diff)
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
                <thead>
                  <tr>
                    <th scope="col">Field</th>
                    <th scope="col">From</th>
                    <th scope="col">To</th>
                  </tr>
                </thead>
                <tbody>
                  {changes.map(([field, change]) => (
                    <tr key={field}>
                      <th scope="row">
                        <code>{field}</code> <span class="sub">{verb(change.from, change.to)}</span>
                      </th>
                      <td class="from">
                        <span class="side-label">from </span>
                        <Side value={change.from} />
                      </td>
                      <td class="to">
                        <span class="side-label">to </span>
                        <Side value={change.to} />
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

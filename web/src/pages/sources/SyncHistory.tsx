// Recent sync runs (GET /sync/history), newest first: when, who asked, which
// sources, how it ended and how long it took, what each source brought in, and
// the errors and warnings to read.
import { formatTime } from '../../components/format.js'
import {
  countsWords,
  duration,
  STATUS_WORDS,
  statusClass,
  TRIGGER_WORDS,
  type SyncRun,
} from './run-words.js'

export function SyncHistory({
  runs,
  titleOf,
}: {
  runs: readonly SyncRun[]
  titleOf: (type: string) => string
}) {
  if (runs.length === 0) return <p class="empty">No sync has run yet.</p>
  return (
    <table class="rows sync-history">
      <thead>
        <tr>
          <th scope="col">Started</th>
          <th scope="col">Sources</th>
          <th scope="col">Status</th>
          <th scope="col">Duration</th>
          <th scope="col">Rows</th>
          <th scope="col">Errors and warnings</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => {
          const counts = Object.entries(run.counts)
          const problems = [...(run.error ? [run.error] : []), ...run.warnings]
          return (
            <tr key={run.id}>
              <td class="date" data-label="Started">
                <time dateTime={run.started_at}>{formatTime(run.started_at)}</time>
                <div class="sub">{TRIGGER_WORDS[run.trigger]}</div>
              </td>
              <td data-label="Sources">{run.source === null ? 'All' : titleOf(run.source)}</td>
              <td data-label="Status">
                <span class={statusClass(run.status)}>{STATUS_WORDS[run.status]}</span>
              </td>
              <td class="num" data-label="Duration">
                {duration(run)}
              </td>
              <td data-label="Rows">
                {counts.length === 0 ? (
                  <span class="hint">nothing fetched</span>
                ) : (
                  <ul class="run-counts">
                    {counts.map(([type, c]) => (
                      <li key={type}>
                        <strong>{titleOf(type)}</strong>: {countsWords(c)}
                      </li>
                    ))}
                  </ul>
                )}
              </td>
              <td data-label="Errors and warnings">
                {problems.length === 0 ? (
                  <span class="hint">none</span>
                ) : (
                  <ul class="run-problems">
                    {problems.map((p, i) => (
                      <li key={i} class={i === 0 && run.error ? 'run-error' : undefined}>
                        {p}
                      </li>
                    ))}
                  </ul>
                )}
              </td>
            </tr>
          )
        })}
      </tbody>
    </table>
  )
}

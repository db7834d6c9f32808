import type { ApiError } from '../api/client.js'

/** A failed call as a person reads it: what failed, why, and which fields. */
export function ErrorNote({ error, context }: { error: ApiError | null; context?: string }) {
  if (!error) return null
  // A single field's problem is usually the detail itself: say it once.
  const fields = error.errors.filter((e) => !error.detail.includes(e.message))
  return (
    <div class="error-note" role="alert">
      <strong>{context ?? error.title}</strong>
      {error.status ? <span class="status"> ({error.status})</span> : null}
      <div>{error.detail}</div>
      {fields.length > 0 ? (
        <ul>
          {fields.map((e) => (
            <li key={e.field}>
              <code>{e.field}</code>: {e.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}

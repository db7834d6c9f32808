import type { ApiError } from '../api/client.js'

/** A failed call as a person reads it: what failed, why, and which fields. */
export function ErrorNote({ error, context }: { error: ApiError | null; context?: string }) {
  if (!error) return null
  return (
    <div class="error-note" role="alert">
      <strong>{context ?? error.title}</strong>
      {error.status ? <span class="status"> ({error.status})</span> : null}
      <div>{error.detail}</div>
      {error.errors.length > 0 ? (
        <ul>
          {error.errors.map((e) => (
            <li key={e.field}>
              <code>{e.field}</code>: {e.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}

import type { ApiError } from '../api/client.js'

/**
 * A failed call as a person reads it: what failed, why, and which fields.
 * `fieldNames` puts the API's field names (`token`) as the form labels its
 * fields (`Address to watch`).
 */
export function ErrorNote({
  error,
  context,
  fieldNames = {},
}: {
  error: ApiError | null
  context?: string
  fieldNames?: Record<string, string>
}) {
  if (!error) return null
  const label = (field: string) => (Object.hasOwn(fieldNames, field) ? fieldNames[field] : null)
  // A single field's problem is usually the detail itself ("token: must be …"): say it once.
  const fields = error.errors.filter((e) => !error.detail.includes(e.message))
  const named = error.errors.find((e) => label(e.field) && error.detail.startsWith(`${e.field}: `))
  const detail = named
    ? `${label(named.field)}: ${error.detail.slice(named.field.length + 2)}`
    : error.detail
  return (
    <div class="error-note" role="alert">
      <strong>{context ?? error.title}</strong>
      {error.status ? <span class="status"> ({error.status})</span> : null}
      <div>{detail}</div>
      {fields.length > 0 ? (
        <ul>
          {fields.map((e) => (
            <li key={e.field}>
              {label(e.field) ?? <code>{e.field}</code>}: {e.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}

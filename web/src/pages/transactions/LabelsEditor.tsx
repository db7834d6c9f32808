// A transaction's labels (SPEC 2.3): key:value pairs edited as rows, saved with
// one PUT that replaces the whole set. Allowed on synced rows too (SPEC 1.4).
import { useEffect, useState } from 'preact/hooks'
import { api, type ApiError } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import type { Transaction } from '../../components/TransactionTable.js'
import { toApiError } from '../../components/useApi.js'
import { notify } from '../../stores/notices.js'
import { canWrite } from '../../stores/session.js'

interface Row {
  key: string
  value: string
}

const rowsOf = (labels: Record<string, string>): Row[] =>
  Object.entries(labels).map(([key, value]) => ({ key, value }))

/** Why the rows cannot be saved as they are, or null. */
function problemOf(rows: Row[]): string | null {
  const seen = new Set<string>()
  for (const row of rows) {
    const key = row.key.trim().toLowerCase()
    if (key === '') return 'Every label needs a key (remove the empty row).'
    if (key.length > 64) return `The key "${key.slice(0, 20)}…" is longer than 64 characters.`
    if (row.value.length > 256) return `The value of "${key}" is longer than 256 characters.`
    if (seen.has(key)) return `The key "${key}" is there twice (keys ignore case).`
    seen.add(key)
  }
  if (rows.length > 50) return 'At most 50 labels per transaction.'
  return null
}

export function LabelsEditor({
  transaction,
  onSaved,
}: {
  transaction: Transaction
  onSaved: () => void
}) {
  const [rows, setRows] = useState<Row[]>(() => rowsOf(transaction.labels))
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  useEffect(() => setRows(rowsOf(transaction.labels)), [transaction])

  const dirty =
    JSON.stringify(rows.map((r) => [r.key.trim().toLowerCase(), r.value])) !==
    JSON.stringify(rowsOf(transaction.labels).map((r) => [r.key, r.value]))
  const problem = problemOf(rows)
  const update = (index: number, change: Partial<Row>) =>
    setRows(rows.map((row, i) => (i === index ? { ...row, ...change } : row)))

  const save = async () => {
    setBusy(true)
    setError(null)
    try {
      const labels = Object.fromEntries(rows.map((r) => [r.key.trim().toLowerCase(), r.value]))
      await api('PUT /transactions/:id/labels', {
        params: { id: transaction.id },
        body: { labels },
      })
      notify('Labels saved.')
      onSaved()
    } catch (failure) {
      setError(toApiError(failure))
    } finally {
      setBusy(false)
    }
  }

  if (!canWrite.value) {
    return rows.length === 0 ? (
      <p class="empty">No labels.</p>
    ) : (
      <dl class="kv">
        {rows.map((r) => [
          <dt key={`k-${r.key}`}>{r.key}</dt>,
          <dd key={`v-${r.key}`}>{r.value}</dd>,
        ])}
      </dl>
    )
  }
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault()
        if (problem === null) void save()
      }}
    >
      <p class="hint">
        Labels are key:value text. Keys are stored in lower case. Saving replaces the whole set.
      </p>
      {rows.length === 0 ? <p class="empty">No labels.</p> : null}
      <ul class="pair-rows">
        {rows.map((row, i) => (
          <li key={i}>
            <label>
              Key
              <input
                type="text"
                value={row.key}
                aria-label={`Label ${i + 1} key`}
                spellcheck={false}
                onInput={(e) => update(i, { key: e.currentTarget.value })}
              />
            </label>
            <label>
              Value
              <input
                type="text"
                value={row.value}
                aria-label={`Label ${i + 1} value`}
                onInput={(e) => update(i, { value: e.currentTarget.value })}
              />
            </label>
            <button
              type="button"
              aria-label={`Remove label ${row.key || i + 1}`}
              onClick={() => setRows(rows.filter((_, j) => j !== i))}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      {problem && dirty ? <p class="field-error">{problem}</p> : null}
      <ErrorNote error={error} context="The labels were not saved" />
      <div class="actions">
        <button type="button" onClick={() => setRows([...rows, { key: '', value: '' }])}>
          Add label
        </button>
        <button type="submit" class="primary" disabled={busy || !dirty || problem !== null}>
          {busy ? 'Saving…' : 'Save labels'}
        </button>
        {dirty ? (
          <button type="button" class="link" onClick={() => setRows(rowsOf(transaction.labels))}>
            Undo changes
          </button>
        ) : null}
      </div>
    </form>
  )
}

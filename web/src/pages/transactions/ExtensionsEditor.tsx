// A transaction's extensions (SPEC 2.3) as the JSON object's text. The text is
// checked with JSON.parse here, then sent exactly as typed (rawBody), so the
// service sees every number as written: one it cannot keep is refused with a
// 400 (shown) instead of being rounded on the way.
import { useEffect, useState } from 'preact/hooks'
import { api, type ApiError } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import type { Transaction } from '../../components/TransactionTable.js'
import { toApiError } from '../../components/useApi.js'
import { notify } from '../../stores/notices.js'
import { canWrite } from '../../stores/session.js'
import {
  checkExtensionsText,
  extensionsBody,
  numberNotes,
} from '../../components/extensions-json.js'

const textOf = (extensions: Transaction['extensions']) =>
  Object.keys(extensions).length === 0 ? '{}' : JSON.stringify(extensions, null, 2)

export function ExtensionsEditor({
  transaction,
  onSaved,
}: {
  transaction: Transaction
  onSaved: () => void
}) {
  const saved = textOf(transaction.extensions)
  const [text, setText] = useState(saved)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  useEffect(() => setText(saved), [saved])

  const check = checkExtensionsText(text)
  const notes = check.ok ? numberNotes(text) : []
  const dirty = text !== saved

  const save = async () => {
    if (!check.ok) return
    setBusy(true)
    setError(null)
    try {
      await api('PUT /transactions/:id/extensions', {
        params: { id: transaction.id },
        rawBody: extensionsBody(text),
      })
      notify('Extensions saved.')
      onSaved()
    } catch (failure) {
      setError(toApiError(failure))
    } finally {
      setBusy(false)
    }
  }

  if (!canWrite.value) {
    return <pre class="json-view">{saved}</pre>
  }
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault()
        void save()
      }}
    >
      <label>
        Extensions (JSON object)
        <textarea
          class="json-editor"
          rows={Math.min(20, Math.max(6, text.split('\n').length + 1))}
          value={text}
          spellcheck={false}
          autocomplete="off"
          aria-invalid={!check.ok || error ? true : undefined}
          aria-describedby="extensions-hint"
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </label>
      <p class="hint" id="extensions-hint">
        Dotted keys (<code>tax.deductible</code>, <code>custom.app.id</code>) to any JSON value;
        types are kept exactly. Saving replaces the whole set; <code>{'{}'}</code> clears it.
      </p>
      {!check.ok && dirty ? (
        <p class="field-error" role="alert">
          {check.message}
        </p>
      ) : null}
      {notes.length > 0 ? (
        <div class="notice" role="note">
          <p>Numbers keep their value, not their spelling. To keep the text, write it in quotes:</p>
          <ul>
            {notes.map((n) => (
              <li key={n.literal}>
                <code>{n.literal}</code>{' '}
                {n.storedAs === null
                  ? 'is more precise than a JSON number holds; the service will refuse it'
                  : `will read back as ${n.storedAs}`}
                {' — '}
                <code>"{n.literal}"</code> keeps it exactly.
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <ErrorNote error={error} context="The extensions were not saved" />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || !check.ok || !dirty}>
          {busy ? 'Saving…' : 'Save extensions'}
        </button>
        {dirty ? (
          <button type="button" class="link" onClick={() => setText(saved)}>
            Undo changes
          </button>
        ) : null}
      </div>
    </form>
  )
}

// Edges between transactions (SPEC 2.4): outbound ones this transaction owns
// (added and removed here) and inbound ones other transactions point at it.
import { useState } from 'preact/hooks'
import { api, type ApiError } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { IfWrite } from '../../components/Guard.js'
import { toApiError, useApi } from '../../components/useApi.js'
import { notify } from '../../stores/notices.js'

/** CONTRACT 3: lower-case, starts with a letter, at most 64 characters. */
const KIND = /^[a-z][a-z0-9_.-]{0,63}$/

const linkTo = (id: string) => `/transactions/${encodeURIComponent(id)}`

export function RelationshipsPanel({ id, onChanged }: { id: string; onChanged: () => void }) {
  const edges = useApi(
    (signal) => api('GET /transactions/:id/relationships', { params: { id }, signal }),
    [id],
  )
  const kinds = useApi((signal) => api('GET /relationships', { signal }), [])
  const [kind, setKind] = useState('')
  const [target, setTarget] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)

  const all = edges.data?.relationships ?? []
  const outbound = all.filter((e) => e.direction === 'outbound')
  const inbound = all.filter((e) => e.direction === 'inbound')
  const kindProblem =
    kind !== '' && !KIND.test(kind)
      ? 'A kind is lower-case letters, digits, "_", "." or "-", starting with a letter.'
      : null

  const run = async (action: () => Promise<unknown>, done: string) => {
    setBusy(true)
    setError(null)
    try {
      await action()
      notify(done)
      edges.reload()
      onChanged()
      return true
    } catch (failure) {
      setError(toApiError(failure))
      return false
    } finally {
      setBusy(false)
    }
  }

  const add = async () => {
    const ok = await run(
      () =>
        api('POST /transactions/:id/relationships', {
          params: { id },
          body: { kind, target: target.trim() },
        }),
      'Relationship added.',
    )
    if (ok) {
      setKind('')
      setTarget('')
    }
  }

  const remove = (edge: { kind: string; transaction_id: string }) =>
    void run(
      () =>
        api('DELETE /transactions/:id/relationships', {
          params: { id },
          query: { kind: edge.kind, target: edge.transaction_id },
        }),
      'Relationship removed.',
    )

  return (
    <div class="stack">
      <ErrorNote error={edges.error} context="Could not load the relationships" />
      <div class="relationship-lists">
        <section aria-labelledby="rel-out">
          <h3 id="rel-out">Outbound (from this transaction)</h3>
          {outbound.length === 0 ? (
            <p class="empty">{edges.loading ? 'Loading…' : 'None.'}</p>
          ) : (
            <ul class="edge-list">
              {outbound.map((e) => (
                <li key={`${e.kind} ${e.transaction_id}`}>
                  <span class="badge">{e.kind}</span>
                  <span aria-hidden="true"> → </span>
                  <a href={linkTo(e.transaction_id)}>{e.transaction_id}</a>
                  <IfWrite>
                    <button
                      type="button"
                      class="link"
                      disabled={busy}
                      aria-label={`Remove ${e.kind} relationship to ${e.transaction_id}`}
                      onClick={() => remove(e)}
                    >
                      Remove
                    </button>
                  </IfWrite>
                </li>
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="rel-in">
          <h3 id="rel-in">Inbound (to this transaction)</h3>
          {inbound.length === 0 ? (
            <p class="empty">{edges.loading ? 'Loading…' : 'None.'}</p>
          ) : (
            <ul class="edge-list">
              {inbound.map((e) => (
                <li key={`${e.kind} ${e.transaction_id}`}>
                  <a href={linkTo(e.transaction_id)}>{e.transaction_id}</a>
                  <span aria-hidden="true"> → </span>
                  <span class="badge">{e.kind}</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
      <IfWrite>
        <form
          class="stack"
          aria-label="Add a relationship"
          onSubmit={(e) => {
            e.preventDefault()
            if (kind && target.trim() && !kindProblem) void add()
          }}
        >
          <h3>Add a relationship</h3>
          <div class="form-row">
            <label>
              Kind
              <input
                type="text"
                list="relationship-kinds"
                value={kind}
                placeholder="refund"
                spellcheck={false}
                autocomplete="off"
                aria-invalid={kindProblem ? true : undefined}
                onInput={(e) => setKind(e.currentTarget.value)}
              />
              <datalist id="relationship-kinds">
                {(kinds.data?.relationships ?? []).map((k) => (
                  <option key={k.kind} value={k.kind} />
                ))}
              </datalist>
              {kindProblem ? <span class="field-error">{kindProblem}</span> : null}
            </label>
            <label>
              Target transaction id
              <input
                type="text"
                value={target}
                spellcheck={false}
                autocomplete="off"
                onInput={(e) => setTarget(e.currentTarget.value)}
              />
            </label>
          </div>
          <ErrorNote error={error} context="The relationship was not changed" />
          <div class="actions">
            <button
              type="submit"
              class="primary"
              disabled={busy || !kind || !target.trim() || kindProblem !== null}
            >
              Add relationship
            </button>
          </div>
        </form>
      </IfWrite>
    </div>
  )
}

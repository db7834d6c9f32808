// One rule, new (/rules/new) or saved (/rules/:id): its name, query, labels,
// extensions and switch; a live preview of what it would change while it is
// typed; and, once saved, run, unapply and delete.
import { useLocation, useRoute } from 'preact-iso'
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, ApiError, type Result } from '../../api/client.js'
import { Dialog } from '../../components/Dialog.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { IfWrite, ReadOnlyNotice } from '../../components/Guard.js'
import { QueryInput } from '../../components/QueryInput.js'
import { TransactionTable } from '../../components/TransactionTable.js'
import { plural } from '../../components/format.js'
import { toApiError, useApi } from '../../components/useApi.js'
import { loadAccounts } from '../../stores/accounts.js'
import { notify } from '../../stores/notices.js'
import { canWrite } from '../../stores/session.js'
import {
  extensionsOf,
  extensionsText,
  labelRows,
  labelsOf,
  sameRule,
  type LabelRow,
  type RuleDraft,
} from './rule-form.js'
import './rules.css'

type Rule = Result<'GET /rules/:id'>
type Preview = Result<'POST /rules/preview'>

const PREVIEW_DELAY_MS = 400

const BLANK: RuleDraft = {
  name: '',
  query: '',
  labels: [{ key: '', value: '' }],
  extensions: '',
  enabled: true,
}

function draftOf(rule: Rule): RuleDraft {
  return {
    name: rule.name,
    query: rule.query,
    labels: labelRows(rule.labels),
    extensions: extensionsText(rule.extensions),
    enabled: rule.enabled,
  }
}

/** A 400 about the query belongs under the query box; anything else in a note. */
function isQueryError(error: ApiError | null): error is ApiError {
  return error?.status === 400 && error.errors.some((e) => e.field === 'query')
}

/** The query error with the field's own message (the offset counts from the query's start). */
function queryErrorOf(error: ApiError): ApiError {
  const message = error.errors.find((e) => e.field === 'query')?.message ?? error.detail
  return new ApiError(400, error.title, message, [{ field: 'query', message }])
}

function LabelRows({
  rows,
  onChange,
  readOnly,
}: {
  rows: readonly LabelRow[]
  onChange: (rows: LabelRow[]) => void
  readOnly: boolean
}) {
  const set = (index: number, row: LabelRow) =>
    onChange(rows.map((r, i) => (i === index ? row : r)))
  return (
    <fieldset class="label-rows">
      <legend>Labels to set</legend>
      {rows.map((row, index) => (
        <div class="label-row" key={index}>
          <input
            aria-label={`Label ${index + 1} key`}
            placeholder="key"
            value={row.key}
            maxLength={64}
            spellcheck={false}
            autocomplete="off"
            onInput={(e) => set(index, { ...row, key: e.currentTarget.value })}
          />
          <span aria-hidden="true">=</span>
          <input
            aria-label={`Label ${index + 1} value`}
            placeholder="value"
            value={row.value}
            maxLength={256}
            spellcheck={false}
            autocomplete="off"
            onInput={(e) => set(index, { ...row, value: e.currentTarget.value })}
          />
          {readOnly ? null : (
            <button
              type="button"
              class="icon"
              aria-label={`Remove label ${index + 1}`}
              onClick={() => {
                const rest = rows.filter((_, i) => i !== index)
                onChange(rest.length > 0 ? rest : [{ key: '', value: '' }])
              }}
            >
              ×
            </button>
          )}
        </div>
      ))}
      {readOnly ? null : (
        <div>
          <button type="button" onClick={() => onChange([...rows, { key: '', value: '' }])}>
            Add label
          </button>
        </div>
      )}
    </fieldset>
  )
}

/** What the draft would do now, asked of the service a moment after typing stops. */
function usePreview(draft: RuleDraft, refresh: number) {
  const [preview, setPreview] = useState<Preview | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [loading, setLoading] = useState(false)
  const labels = labelsOf(draft.labels)
  const extensions = extensionsOf(draft.extensions)
  const input =
    labels.ok && extensions.ok
      ? JSON.stringify({ query: draft.query, labels: labels.value, extensions: extensions.value })
      : null
  const enabled = canWrite.value

  useEffect(() => {
    if (input === null || !enabled) return
    const controller = new AbortController()
    setLoading(true)
    const timer = setTimeout(() => {
      api('POST /rules/preview', {
        body: JSON.parse(input) as {
          query: string
          labels: Record<string, string>
          extensions: Record<string, unknown>
        },
        signal: controller.signal,
      })
        .then((result) => {
          setPreview(result)
          setError(null)
          setLoading(false)
        })
        .catch((failure: unknown) => {
          if (controller.signal.aborted) return
          setError(toApiError(failure))
          setLoading(false)
        })
    }, PREVIEW_DELAY_MS)
    return () => {
      clearTimeout(timer)
      controller.abort()
    }
  }, [input, enabled, refresh])

  return { preview, error, loading, enabled }
}

function PreviewPanel({
  state,
  hasEffect,
}: {
  state: ReturnType<typeof usePreview>
  hasEffect: boolean
}) {
  const { preview, error, loading } = state
  if (!state.enabled) return null
  return (
    <section class="card preview" aria-labelledby="preview-title" aria-busy={loading}>
      <h2 id="preview-title">Preview</h2>
      {error && !isQueryError(error) ? (
        <ErrorNote error={error} context="No preview" />
      ) : error ? (
        <p class="hint">Fix the query to see what the rule would change.</p>
      ) : null}
      {preview && !error ? (
        <div class={loading ? 'loading-fade' : undefined}>
          <p class="preview-counts" role="status">
            The query matches{' '}
            <strong data-count="matched">{preview.matched.toLocaleString()}</strong>{' '}
            {preview.matched === 1 ? 'transaction' : 'transactions'};{' '}
            <strong data-count="would_update">{preview.would_update.toLocaleString()}</strong> would
            change.
          </p>
          {!hasEffect ? <p class="hint">Add a label or an extension for the rule to set.</p> : null}
          {preview.transactions.length > 0 ? (
            <>
              <p class="hint">
                {preview.would_update > preview.transactions.length
                  ? `The first ${preview.transactions.length} that would change, as they are now:`
                  : 'Those that would change, as they are now:'}
              </p>
              <TransactionTable transactions={preview.transactions} />
            </>
          ) : null}
        </div>
      ) : !error ? (
        <p class="loading">Previewing…</p>
      ) : null}
    </section>
  )
}

type Outcome =
  | { kind: 'run'; matched: number; updated: number }
  | {
      kind: 'unapply'
      matched: number
      removed: number
    }

function SavedRuleActions({
  rule,
  dirty,
  onChanged,
  onDeleted,
}: {
  rule: Rule
  dirty: boolean
  onChanged: () => void
  onDeleted: () => void
}) {
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<Outcome | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [confirmDelete, setConfirmDelete] = useState(false)
  // A result describes the rule as it was run; a saved change starts afresh.
  useEffect(() => setOutcome(null), [rule])

  const act = async (action: () => Promise<void>) => {
    setBusy(true)
    setError(null)
    setOutcome(null)
    try {
      await action()
    } catch (failure) {
      setError(toApiError(failure))
    } finally {
      setBusy(false)
    }
  }
  const run = () =>
    act(async () => {
      const result = await api('POST /rules/:id/run', { params: { id: rule.id } })
      setOutcome({ kind: 'run', ...result })
      onChanged()
    })
  const unapply = () =>
    act(async () => {
      const result = await api('POST /rules/:id/unapply', { params: { id: rule.id } })
      setOutcome({ kind: 'unapply', ...result })
      onChanged()
    })
  const remove = () =>
    act(async () => {
      await api('DELETE /rules/:id', { params: { id: rule.id } })
      notify(`Deleted rule ${rule.name}`)
      onDeleted()
    })

  return (
    <section class="card rule-actions" aria-labelledby="rule-actions-title">
      <h2 id="rule-actions-title">Apply</h2>
      <div class="actions">
        <button type="button" disabled={busy || dirty} onClick={() => void run()}>
          Run now
        </button>
        <button type="button" disabled={busy || dirty} onClick={() => void unapply()}>
          Unapply
        </button>
        <button type="button" class="danger" disabled={busy} onClick={() => setConfirmDelete(true)}>
          Delete rule
        </button>
      </div>
      <p class="hint">
        {dirty
          ? 'Save your changes first: Run and Unapply use the saved rule.'
          : `Run sets the rule's keys on every transaction its query matches${rule.enabled ? '' : ' (even while it is disabled)'}; Unapply removes them where they still hold the rule's values.`}
      </p>
      {outcome ? (
        <p class="run-result" role="status">
          {outcome.kind === 'run'
            ? `Run: matched ${plural(outcome.matched, 'transaction')}, updated ${outcome.updated.toLocaleString()}.`
            : `Unapply: matched ${plural(outcome.matched, 'transaction')}, removed from ${outcome.removed.toLocaleString()}.`}
        </p>
      ) : null}
      <ErrorNote error={error} context="Not done" />
      <Dialog title="Delete rule?" open={confirmDelete} onClose={() => setConfirmDelete(false)}>
        <div class="stack">
          <p>
            Delete the rule <strong>{rule.name}</strong>? The labels and extensions it already set
            stay on their transactions; use Unapply first to remove them.
          </p>
          <div class="actions">
            <button
              type="button"
              class="danger"
              disabled={busy}
              onClick={() => {
                setConfirmDelete(false)
                void remove()
              }}
            >
              Delete rule
            </button>
            <button type="button" onClick={() => setConfirmDelete(false)}>
              Cancel
            </button>
          </div>
        </div>
      </Dialog>
    </section>
  )
}

function RuleEditor({ rule, onSaved }: { rule: Rule | null; onSaved: (rule: Rule) => void }) {
  const { route } = useLocation()
  const saved = rule ? draftOf(rule) : BLANK
  const [draft, setDraft] = useState<RuleDraft>(saved)
  const [saving, setSaving] = useState(false)
  const [saveError, setSaveError] = useState<ApiError | null>(null)
  const [refresh, setRefresh] = useState(0)
  const savedRef = useRef(saved)
  savedRef.current = saved

  useEffect(() => {
    setDraft(rule ? draftOf(rule) : BLANK)
    setSaveError(null)
  }, [rule])

  const labels = labelsOf(draft.labels)
  const extensions = extensionsOf(draft.extensions)
  const preview = usePreview(draft, refresh)
  const dirty = !sameRule(draft, saved)
  const hasEffect =
    labels.ok &&
    extensions.ok &&
    Object.keys(labels.value).length + Object.keys(extensions.value).length > 0

  // The query's error, from saving or from the live preview, under the box.
  const queryError = isQueryError(saveError)
    ? queryErrorOf(saveError)
    : isQueryError(preview.error)
      ? queryErrorOf(preview.error)
      : null

  const update = (change: Partial<RuleDraft>) => {
    setDraft({ ...draft, ...change })
    setSaveError(null)
  }

  const save = async (event: Event) => {
    event.preventDefault()
    if (!labels.ok || !extensions.ok) return
    setSaving(true)
    setSaveError(null)
    const body = {
      name: draft.name.trim(),
      query: draft.query,
      labels: labels.value,
      extensions: extensions.value,
      enabled: draft.enabled,
    }
    try {
      const result = rule
        ? await api('PUT /rules/:id', { params: { id: rule.id }, body })
        : await api('POST /rules', { body })
      notify(rule ? `Saved rule ${result.name}` : `Created rule ${result.name}`)
      if (!rule) route(`/rules/${encodeURIComponent(result.id)}`, true)
      onSaved(result)
    } catch (failure) {
      setSaveError(toApiError(failure))
    } finally {
      setSaving(false)
    }
  }

  const readOnly = !canWrite.value
  const formError = !labels.ok ? labels.error : !extensions.ok ? extensions.error : null

  return (
    <>
      <form class="card stack rule-form" onSubmit={(e) => void save(e)} noValidate>
        <fieldset disabled={readOnly} class="plain">
          <div class="stack">
            <label>
              Name
              <input
                value={draft.name}
                maxLength={200}
                required
                onInput={(e) => update({ name: e.currentTarget.value })}
              />
            </label>
            <div class="field">
              <span class="field-label" id="rule-query-label">
                Query
              </span>
              <QueryInput
                label="Rule query"
                value={draft.query}
                onInput={(query) => update({ query })}
                error={queryError}
                placeholder="payee:starbucks   amount:<0 description:coffee"
              />
            </div>
            <LabelRows
              rows={draft.labels}
              readOnly={readOnly}
              onChange={(rows) => update({ labels: rows })}
            />
            <label>
              Extensions (a JSON object; values keep their JSON type)
              <textarea
                value={draft.extensions}
                rows={Math.min(16, Math.max(3, draft.extensions.split('\n').length + 1))}
                spellcheck={false}
                placeholder={'{"tax.deductible": true, "tax.category": "meals"}'}
                aria-invalid={!extensions.ok ? true : undefined}
                onInput={(e) => update({ extensions: e.currentTarget.value })}
              />
            </label>
            <label class="check">
              <input
                type="checkbox"
                checked={draft.enabled}
                onChange={(e) => update({ enabled: e.currentTarget.checked })}
              />
              Enabled (applies to new transactions and to Run all)
            </label>
          </div>
        </fieldset>
        {formError ? (
          <p class="error-note" role="alert">
            {formError}
          </p>
        ) : null}
        {saveError && !isQueryError(saveError) ? (
          <ErrorNote error={saveError} context={rule ? 'Not saved' : 'Not created'} />
        ) : null}
        <IfWrite>
          <div class="actions">
            <button
              type="submit"
              class="primary"
              disabled={saving || formError !== null || (rule !== null && !dirty)}
            >
              {rule ? 'Save rule' : 'Create rule'}
            </button>
            {dirty && rule ? (
              <button type="button" onClick={() => setDraft(savedRef.current)}>
                Discard changes
              </button>
            ) : null}
            {rule && !dirty ? <span class="hint">Saved.</span> : null}
          </div>
        </IfWrite>
      </form>
      <PreviewPanel state={preview} hasEffect={hasEffect} />
      {rule ? (
        <IfWrite>
          <SavedRuleActions
            rule={rule}
            dirty={dirty}
            onChanged={() => setRefresh((n) => n + 1)}
            onDeleted={() => route('/rules')}
          />
        </IfWrite>
      ) : null}
    </>
  )
}

export function RulePage() {
  const { params } = useRoute()
  const id = params.id ?? 'new'
  const isNew = id === 'new'
  const loaded = useApi(
    (signal) => (isNew ? Promise.resolve(null) : api('GET /rules/:id', { params: { id }, signal })),
    [id],
  )
  const [rule, setRule] = useState<Rule | null>(null)
  useEffect(() => setRule(loaded.data), [loaded.data])
  // Preview rows show account names and currencies from the shared store.
  useEffect(() => void loadAccounts().catch(() => undefined), [])

  return (
    <section class="rule-page">
      <p class="hint">
        <a href="/rules">Rules</a>
      </p>
      <div class="page-head">
        <h1>{isNew ? 'New rule' : (rule?.name ?? 'Rule')}</h1>
        {rule ? (
          <span class={rule.enabled ? 'badge ok' : 'badge'}>
            {rule.enabled ? 'enabled' : 'disabled'}
          </span>
        ) : null}
      </div>
      <ReadOnlyNotice />
      {loaded.error ? (
        <ErrorNote
          error={loaded.error}
          context={loaded.error.status === 404 ? 'No such rule' : 'Could not load the rule'}
        />
      ) : loaded.loading && !isNew ? (
        <p class="loading">Loading…</p>
      ) : isNew || rule ? (
        <RuleEditor rule={isNew ? null : rule} onSaved={setRule} />
      ) : null}
    </section>
  )
}

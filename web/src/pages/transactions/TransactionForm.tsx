// The fields of a manual transaction (SPEC 2.2, 4.3), for /transactions/new and
// the edit dialog of the detail page. The amount stays the text the person
// typed: it is checked against the service's own syntax (CONTRACT 6) and sent
// as a string, never turned into a number.
import type { ComponentChildren } from 'preact'
import { useEffect, useMemo, useState } from 'preact/hooks'
import type { ApiError } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import type { Transaction } from '../../components/TransactionTable.js'
import { accounts, loadAccounts } from '../../stores/accounts.js'

/** CONTRACT 6: optional sign, digits, optional fraction; at most 64 characters. */
const AMOUNT = /^[+-]?(\d+(\.\d*)?|\.\d+)$/

export interface TransactionFields {
  account_id: string
  amount: string
  date: string
  description: string
  payee: string
  memo: string
  pending: boolean
}

export const EMPTY_FIELDS: TransactionFields = {
  account_id: '',
  amount: '',
  date: new Date().toISOString().slice(0, 10),
  description: '',
  payee: '',
  memo: '',
  pending: false,
}

/** A transaction's fields as the form shows them (the date input wants YYYY-MM-DD). */
export function fieldsOf(t: Transaction): TransactionFields {
  return {
    account_id: t.account_id,
    amount: t.amount,
    date: t.date.slice(0, 10),
    description: t.description ?? '',
    payee: t.payee ?? '',
    memo: t.memo ?? '',
    pending: t.pending,
  }
}

export function amountProblem(amount: string): string | null {
  const text = amount.trim()
  if (text === '') return 'An amount is needed.'
  if (text.length > 64) return 'An amount is at most 64 characters.'
  if (!AMOUNT.test(text)) {
    return 'Write the amount as digits with an optional sign and decimal point, e.g. -12.50 (no currency symbol or thousands separator).'
  }
  return null
}

/** A labelled control with its hint and errors beside (not inside) the label, so its name stays short. */
function Field({
  id,
  label,
  hint,
  errors,
  children,
}: {
  id: string
  label: string
  hint?: string
  errors: (string | null | undefined)[]
  children: ComponentChildren
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint ? (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      {errors.filter(Boolean).map((message) => (
        <span class="field-error" key={message}>
          {message}
        </span>
      ))}
    </div>
  )
}

export function TransactionForm({
  initial,
  submitLabel,
  busy,
  error,
  onSubmit,
  onCancel,
}: {
  initial: TransactionFields
  submitLabel: string
  busy: boolean
  error: ApiError | null
  onSubmit: (fields: TransactionFields) => void
  onCancel?: () => void
}) {
  const [fields, setFields] = useState(initial)
  const [touched, setTouched] = useState(false)
  useEffect(() => void loadAccounts().catch(() => undefined), [])
  const choices = useMemo(
    () => [...accounts.value.values()].sort((a, b) => a.name.localeCompare(b.name)),
    [accounts.value],
  )
  const set = <K extends keyof TransactionFields>(key: K, value: TransactionFields[K]) =>
    setFields((f) => ({ ...f, [key]: value }))
  const amountError = touched ? amountProblem(fields.amount) : null
  const fieldError = (name: string) => error?.errors.find((e) => e.field === name)?.message
  const currency = accounts.value.get(fields.account_id)?.currency

  return (
    <form
      class="stack transaction-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault()
        setTouched(true)
        if (amountProblem(fields.amount) !== null || !fields.account_id || !fields.date) return
        onSubmit({ ...fields, amount: fields.amount.trim() })
      }}
    >
      <div class="form-row">
        <Field
          id="txn-account"
          label="Account"
          errors={[
            touched && !fields.account_id ? 'Choose the account it belongs to.' : null,
            fieldError('account_id'),
          ]}
        >
          <select
            id="txn-account"
            value={fields.account_id}
            required
            aria-invalid={touched && !fields.account_id ? true : undefined}
            onChange={(e) => set('account_id', e.currentTarget.value)}
          >
            <option value="">Choose an account…</option>
            {choices.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.currency})
              </option>
            ))}
          </select>
        </Field>
        <Field
          id="txn-amount"
          label={`Amount${currency ? ` (${currency})` : ''}`}
          hint="Negative for money out. Kept exactly as written."
          errors={[amountError, fieldError('amount')]}
        >
          <input
            id="txn-amount"
            type="text"
            inputMode="decimal"
            autocomplete="off"
            spellcheck={false}
            value={fields.amount}
            placeholder="-12.50"
            aria-invalid={amountError || fieldError('amount') ? true : undefined}
            aria-describedby="txn-amount-hint"
            onInput={(e) => set('amount', e.currentTarget.value)}
            onBlur={() => setTouched(true)}
          />
        </Field>
        <Field
          id="txn-date"
          label="Date"
          errors={[touched && !fields.date ? 'A date is needed.' : null, fieldError('date')]}
        >
          <input
            id="txn-date"
            type="date"
            required
            value={fields.date}
            aria-invalid={(touched && !fields.date) || fieldError('date') ? true : undefined}
            onInput={(e) => set('date', e.currentTarget.value)}
          />
        </Field>
      </div>
      <div class="form-row">
        <label>
          Description
          <input
            type="text"
            value={fields.description}
            onInput={(e) => set('description', e.currentTarget.value)}
          />
        </label>
        <label>
          Payee
          <input
            type="text"
            value={fields.payee}
            onInput={(e) => set('payee', e.currentTarget.value)}
          />
        </label>
      </div>
      <label>
        Memo
        <textarea
          class="memo"
          rows={2}
          value={fields.memo}
          onInput={(e) => set('memo', e.currentTarget.value)}
        />
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={fields.pending}
          onChange={(e) => set('pending', e.currentTarget.checked)}
        />
        Pending (not yet posted)
      </label>
      <ErrorNote error={error} context="The transaction was not saved" />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        {onCancel ? (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  )
}

/** Text fields as the API takes them: blank is "none" (null on an edit, omitted on a create). */
function text(value: string): string | null {
  return value.trim() === '' ? null : value
}

export function createBody(f: TransactionFields) {
  return {
    account_id: f.account_id,
    amount: f.amount,
    date: f.date,
    ...(text(f.description) !== null ? { description: f.description } : {}),
    ...(text(f.payee) !== null ? { payee: f.payee } : {}),
    ...(text(f.memo) !== null ? { memo: f.memo } : {}),
    pending: f.pending,
  }
}

/** Only what changed (edits are partial, CONTRACT 6), so the history shows just that. */
export function updateBody(before: TransactionFields, after: TransactionFields) {
  const body: {
    account_id?: string
    amount?: string
    date?: string
    description?: string | null
    payee?: string | null
    memo?: string | null
    pending?: boolean
  } = {}
  if (after.account_id !== before.account_id) body.account_id = after.account_id
  if (after.amount !== before.amount) body.amount = after.amount
  if (after.date !== before.date) body.date = after.date
  if (after.description !== before.description) body.description = text(after.description)
  if (after.payee !== before.payee) body.payee = text(after.payee)
  if (after.memo !== before.memo) body.memo = text(after.memo)
  if (after.pending !== before.pending) body.pending = after.pending
  return body
}

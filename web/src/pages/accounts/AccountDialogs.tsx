// The manual-account dialogs, shared by the accounts list and an account's page:
// create or edit (name, currency, balance), and delete with a confirmation that
// says how many transactions go with it. Synced accounts never reach these
// dialogs: their source owns them (SPEC 1.4).
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError } from '../../api/client.js'
import { Dialog } from '../../components/Dialog.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { plural } from '../../components/format.js'
import { toApiError } from '../../components/useApi.js'
import { loadAccounts, type Account } from '../../stores/accounts.js'
import { notify } from '../../stores/notices.js'

/** Accounts whose fields the dashboard may change: only hand-made ones (SPEC 1.4). */
export function isManual(account: Account): boolean {
  return account.source === 'manual'
}

/** Why a synced account has no Edit or Delete, in words. */
export function syncedReason(account: Account): string {
  return `Synced from ${account.source}: its source owns its name, currency and balance, so it cannot be edited or deleted here. Labels and extensions of its transactions can still be changed.`
}

/** A failed write as a person reads it; a 409 is a synced account, said in words. */
export function writeFailure(error: unknown): ApiError {
  const failure = toApiError(error)
  if (failure.status === 409) {
    return new ApiError(
      409,
      'Owned by its source',
      'This account comes from a sync, and only manual accounts can be edited or deleted.',
    )
  }
  return failure
}

const CURRENCY_HINT = 'A currency code such as USD, EUR or ETH.'

export function AccountFormDialog({
  account,
  open,
  onClose,
  onSaved,
}: {
  /** The account to edit, or null to create one. */
  account: Account | null
  open: boolean
  onClose: () => void
  onSaved: (account: Account) => void
}) {
  const [name, setName] = useState('')
  const [currency, setCurrency] = useState('')
  const [balance, setBalance] = useState('')
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    if (!open) return
    setName(account?.name ?? '')
    setCurrency(account?.currency ?? 'USD')
    setBalance(account?.balance ?? '')
    setError(null)
  }, [open, account])

  const fieldError = (field: string) => error?.errors.find((e) => e.field === field)?.message

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    // Amounts are sent as typed: the service keeps the decimal text verbatim.
    const body = {
      name: name.trim(),
      currency: currency.trim().toUpperCase(),
      ...(balance.trim() === '' ? {} : { balance: balance.trim() }),
    }
    try {
      const saved = account
        ? await api('PUT /accounts/:id', { params: { id: account.id }, body })
        : await api('POST /accounts', { body })
      await loadAccounts(true)
      notify(account ? `Saved ${saved.name}` : `Created ${saved.name}`)
      onSaved(saved)
    } catch (failure) {
      setError(writeFailure(failure))
    } finally {
      setBusy(false)
    }
  }

  return (
    <Dialog title={account ? `Edit ${account.name}` : 'New account'} open={open} onClose={onClose}>
      <form class="stack" onSubmit={(e) => void submit(e)} noValidate>
        <label>
          Name
          <input
            value={name}
            required
            maxLength={200}
            aria-invalid={fieldError('name') ? true : undefined}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <div class="form-row">
          <label>
            Currency
            <input
              value={currency}
              required
              autocomplete="off"
              spellcheck={false}
              title={CURRENCY_HINT}
              aria-invalid={fieldError('currency') ? true : undefined}
              onInput={(e) => setCurrency(e.currentTarget.value)}
            />
          </label>
          <label>
            {account ? 'Balance' : 'Starting balance'}
            <input
              value={balance}
              inputMode="decimal"
              autocomplete="off"
              spellcheck={false}
              placeholder="0.00"
              aria-invalid={fieldError('balance') ? true : undefined}
              onInput={(e) => setBalance(e.currentTarget.value)}
            />
          </label>
        </div>
        <p class="hint">
          A manual account's balance is the figure you keep here; it is not recomputed from its
          transactions.
        </p>
        {/* The detail already names the field; the marked input shows which one. */}
        <ErrorNote
          error={error && new ApiError(error.status, error.title, error.detail, [])}
          context={account ? 'Not saved' : 'Not created'}
        />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {account ? 'Save' : 'Create account'}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  )
}

export function DeleteAccountDialog({
  account,
  onClose,
  onDeleted,
}: {
  account: Account | null
  onClose: () => void
  onDeleted: () => void
}) {
  const [count, setCount] = useState<number | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)

  // How many transactions go with it: limit 0 asks for the count alone.
  useEffect(() => {
    setCount(null)
    setError(null)
    if (!account) return
    const controller = new AbortController()
    api('GET /accounts/:id/transactions', {
      params: { id: account.id },
      query: { limit: 0 },
      signal: controller.signal,
    })
      .then((page) => setCount(page.total))
      .catch(() => undefined) // the confirmation still says that they all go
    return () => controller.abort()
  }, [account])

  const remove = async () => {
    if (!account) return
    setBusy(true)
    setError(null)
    try {
      await api('DELETE /accounts/:id', { params: { id: account.id } })
      await loadAccounts(true)
      notify(`Deleted ${account.name}`)
      onDeleted()
    } catch (failure) {
      setError(writeFailure(failure))
    } finally {
      setBusy(false)
    }
  }

  return (
    <Dialog title="Delete account?" open={account !== null} onClose={onClose}>
      {account ? (
        <div class="stack">
          <p>
            Delete <strong>{account.name}</strong>?{' '}
            {count === null
              ? 'All of its transactions are deleted with it.'
              : count === 0
                ? 'It has no transactions.'
                : `Its ${plural(count, 'transaction')} ${count === 1 ? 'is' : 'are'} deleted with it.`}{' '}
            This cannot be undone.
          </p>
          <ErrorNote error={error} context="Not deleted" />
          <div class="actions">
            <button type="button" class="danger" disabled={busy} onClick={() => void remove()}>
              Delete account
            </button>
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
    </Dialog>
  )
}

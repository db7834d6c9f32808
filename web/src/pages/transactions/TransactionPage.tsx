// One transaction: its fields and account; edit and delete for a manual row
// (a synced row says why not, SPEC 1.4); then labels, extensions,
// relationships, history and provenance as tabs (the tab is in the address
// bar, so a link can open the history directly).
import { useLocation, useRoute } from 'preact-iso'
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError } from '../../api/client.js'
import { Dialog } from '../../components/Dialog.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { formatTime } from '../../components/format.js'
import { IfWrite, ReadOnlyNotice } from '../../components/Guard.js'
import { Money } from '../../components/Money.js'
import { transactionDate, type Transaction } from '../../components/TransactionTable.js'
import { toApiError, useApi } from '../../components/useApi.js'
import { accounts, loadAccounts } from '../../stores/accounts.js'
import { notify } from '../../stores/notices.js'
import { ExtensionsEditor } from './ExtensionsEditor.js'
import { HistoryPanel } from './HistoryPanel.js'
import { LabelsEditor } from './LabelsEditor.js'
import { ProvenancePanel } from './ProvenancePanel.js'
import { RelationshipsPanel } from './RelationshipsPanel.js'
import { fieldsOf, TransactionForm, updateBody, type TransactionFields } from './TransactionForm.js'
import './transactions.css'

const TABS = [
  ['labels', 'Labels'],
  ['extensions', 'Extensions'],
  ['relationships', 'Relationships'],
  ['history', 'History'],
  ['provenance', 'Provenance'],
] as const
type Tab = (typeof TABS)[number][0]

/** Why a synced row has no edit or delete (SPEC 1.4), in words. */
function ownedBySource(source: string): string {
  return `This transaction comes from the ${source} source, which owns its fields: its next sync would bring the source's values back, so only manual transactions can be edited or deleted. Labels, extensions and relationships can still be changed.`
}

/** A 409 from an edit or delete, said in words rather than as the raw answer. */
function explainConflict(error: ApiError, source: string): ApiError {
  if (error.status !== 409) return error
  return new ApiError(409, 'Owned by its source', ownedBySource(source))
}

function Tabs({ tab, onTab }: { tab: Tab; onTab: (tab: Tab) => void }) {
  const move = (from: number, by: number) => {
    const next = TABS[(from + by + TABS.length) % TABS.length]![0]
    onTab(next)
    document.getElementById(`tab-${next}`)?.focus()
  }
  return (
    <div class="tabs" role="tablist" aria-label="About this transaction">
      {TABS.map(([id, title], i) => (
        <button
          key={id}
          type="button"
          role="tab"
          id={`tab-${id}`}
          aria-selected={tab === id}
          aria-controls={`panel-${id}`}
          tabIndex={tab === id ? 0 : -1}
          onClick={() => onTab(id)}
          onKeyDown={(e) => {
            if (e.key === 'ArrowRight') move(i, 1)
            else if (e.key === 'ArrowLeft') move(i, -1)
          }}
        >
          {title}
        </button>
      ))}
    </div>
  )
}

function Fields({ t }: { t: Transaction }) {
  const account = accounts.value.get(t.account_id)
  return (
    <dl class="kv transaction-fields">
      <dt>Amount</dt>
      <dd class="amount">
        <Money amount={t.amount} currency={account?.currency} />
      </dd>
      <dt>Date</dt>
      <dd>
        <time dateTime={t.date}>{transactionDate(t.date)}</time>
      </dd>
      <dt>Account</dt>
      <dd>
        <a href={`/accounts/${encodeURIComponent(t.account_id)}`}>
          {account?.name ?? t.account_id}
        </a>
      </dd>
      <dt>Description</dt>
      <dd>{t.description ?? <span class="sub">none</span>}</dd>
      <dt>Payee</dt>
      <dd>{t.payee ?? <span class="sub">none</span>}</dd>
      <dt>Memo</dt>
      <dd class="memo">{t.memo ?? <span class="sub">none</span>}</dd>
      <dt>Status</dt>
      <dd>{t.pending ? 'Pending' : 'Posted'}</dd>
      <dt>Source</dt>
      <dd>
        <span class={t.source === 'manual' ? 'badge ok' : 'badge'}>{t.source}</span>
      </dd>
      <dt>Last synced</dt>
      <dd>{t.synced_at ? formatTime(t.synced_at) : <span class="sub">never</span>}</dd>
      <dt>Id</dt>
      <dd>
        <code>{t.id}</code>
      </dd>
    </dl>
  )
}

function EditDialog({
  t,
  open,
  onClose,
  onSaved,
}: {
  t: Transaction
  open: boolean
  onClose: () => void
  onSaved: () => void
}) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const before = fieldsOf(t)
  const save = async (after: TransactionFields) => {
    const body = updateBody(before, after)
    if (Object.keys(body).length === 0) {
      onClose()
      return
    }
    setBusy(true)
    setError(null)
    try {
      await api('PUT /transactions/:id', { params: { id: t.id }, body })
      notify('Transaction saved.')
      onSaved()
      onClose()
    } catch (failure) {
      setError(explainConflict(toApiError(failure), t.source))
    } finally {
      setBusy(false)
    }
  }
  return (
    <Dialog title="Edit transaction" open={open} onClose={onClose} wide>
      <TransactionForm
        initial={before}
        submitLabel="Save changes"
        busy={busy}
        error={error}
        onSubmit={(fields) => void save(fields)}
        onCancel={onClose}
      />
    </Dialog>
  )
}

function DeleteDialog({
  t,
  open,
  onClose,
}: {
  t: Transaction
  open: boolean
  onClose: () => void
}) {
  const location = useLocation()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const remove = async () => {
    setBusy(true)
    setError(null)
    try {
      await api('DELETE /transactions/:id', { params: { id: t.id } })
      notify('Transaction deleted.')
      location.route('/transactions')
    } catch (failure) {
      setError(explainConflict(toApiError(failure), t.source))
      setBusy(false)
    }
  }
  return (
    <Dialog title="Delete this transaction?" open={open} onClose={onClose}>
      <div class="stack">
        <p>
          {t.description ?? t.payee ?? t.id}, <Money amount={t.amount} /> on{' '}
          {transactionDate(t.date)}. It is removed for good; its history stays readable.
        </p>
        <ErrorNote error={error} context="The transaction was not deleted" />
        <div class="actions">
          <button type="button" class="danger" disabled={busy} onClick={() => void remove()}>
            {busy ? 'Deleting…' : 'Delete transaction'}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </div>
    </Dialog>
  )
}

export function TransactionPage() {
  const { params } = useRoute()
  const location = useLocation()
  const id = params.id ?? ''
  const [tick, setTick] = useState(0)
  const [dialog, setDialog] = useState<'edit' | 'delete' | null>(null)
  const loaded = useApi(
    (signal) => api('GET /transactions/:id', { params: { id }, signal }),
    [id, tick],
  )
  useEffect(() => void loadAccounts().catch(() => undefined), [])
  const requested = location.query.tab
  const tab: Tab = TABS.some(([t]) => t === requested) ? (requested as Tab) : 'labels'
  const setTab = (next: Tab) =>
    location.route(`/transactions/${encodeURIComponent(id)}?tab=${next}`, true)
  const changed = () => setTick((n) => n + 1)

  if (loaded.error) {
    return (
      <section>
        <h1>Transaction</h1>
        {loaded.error.status === 404 ? (
          <>
            <p class="notice" role="note">
              There is no transaction <code>{id}</code>: it may have been deleted. Its history, if
              it had one, is below.
            </p>
            <HistoryPanel id={id} version="" />
          </>
        ) : (
          <ErrorNote error={loaded.error} context="Could not load the transaction" />
        )}
        <p>
          <a href="/transactions">Back to transactions</a>
        </p>
      </section>
    )
  }
  const t = loaded.data
  if (!t || t.id !== id) return <p class="loading">Loading…</p>
  const manual = t.source === 'manual'
  const version = String(tick)

  return (
    <section class="transaction-page">
      <div class="page-head">
        <h1>{t.description ?? t.payee ?? 'Transaction'}</h1>
        <IfWrite>
          {manual ? (
            <div class="actions">
              <button type="button" onClick={() => setDialog('edit')}>
                Edit
              </button>
              <button type="button" class="danger" onClick={() => setDialog('delete')}>
                Delete
              </button>
            </div>
          ) : null}
        </IfWrite>
      </div>
      <ReadOnlyNotice />
      <IfWrite>
        {manual ? null : (
          <p class="notice" role="note">
            {ownedBySource(t.source)}
          </p>
        )}
      </IfWrite>
      <div class="card">
        <Fields t={t} />
      </div>
      <Tabs tab={tab} onTab={setTab} />
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} class="card">
        {tab === 'labels' ? <LabelsEditor transaction={t} onSaved={changed} /> : null}
        {tab === 'extensions' ? <ExtensionsEditor transaction={t} onSaved={changed} /> : null}
        {tab === 'relationships' ? <RelationshipsPanel id={t.id} onChanged={changed} /> : null}
        {tab === 'history' ? <HistoryPanel id={t.id} version={version} /> : null}
        {tab === 'provenance' ? <ProvenancePanel id={t.id} version={version} /> : null}
      </div>
      {manual ? (
        <>
          <EditDialog
            t={t}
            open={dialog === 'edit'}
            onClose={() => setDialog(null)}
            onSaved={changed}
          />
          <DeleteDialog t={t} open={dialog === 'delete'} onClose={() => setDialog(null)} />
        </>
      ) : null}
    </section>
  )
}

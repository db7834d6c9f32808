// One account: its fields and balance, edit and delete when it is manual, and
// its transactions newest first, paged by keyset cursor so that the last page
// of a million rows costs what the first one does.
import { useLocation, useRoute } from 'preact-iso'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { IfWrite } from '../../components/Guard.js'
import { Money } from '../../components/Money.js'
import { FIRST_PAGE, Pager, type PagerState } from '../../components/Pager.js'
import { TransactionTable } from '../../components/TransactionTable.js'
import { useApi } from '../../components/useApi.js'
import { loadAccounts, type Account } from '../../stores/accounts.js'
import { AccountFormDialog, DeleteAccountDialog, isManual, syncedReason } from './AccountDialogs.js'
import './accounts.css'

const PAGE_SIZE = 50

function AccountTransactions({ account }: { account: Account }) {
  const [pager, setPager] = useState<PagerState>(FIRST_PAGE)
  useEffect(() => setPager(FIRST_PAGE), [account.id])
  // The pager state travels with the page it loaded, so that the counts never
  // describe the next page while the previous one is still on screen.
  const page = useApi(
    (signal) =>
      api('GET /accounts/:id/transactions', {
        params: { id: account.id },
        query: { limit: PAGE_SIZE, ...(pager.cursor ? { cursor: pager.cursor } : {}) },
        signal,
      }).then((result) => ({ ...result, pager })),
    [account.id, pager.cursor],
  )
  return (
    <>
      <div class="page-head">
        <h2>Transactions</h2>
        <a href={`/transactions?q=${encodeURIComponent(`account_id:"${account.id}"`)}`}>
          Search them
        </a>
      </div>
      <ErrorNote error={page.error} context="Could not load the transactions" />
      {page.data ? (
        <div class={page.loading ? 'loading-fade' : undefined} aria-busy={page.loading}>
          <Pager
            state={page.data.pager}
            onChange={setPager}
            next={page.data.next_cursor}
            shown={page.data.transactions.length}
            limit={PAGE_SIZE}
            total={page.data.total}
          />
          {page.data.transactions.length === 0 ? (
            <p class="empty">This account has no transactions.</p>
          ) : (
            <TransactionTable transactions={page.data.transactions} showAccount={false} />
          )}
        </div>
      ) : page.loading ? (
        <p class="loading">Loading…</p>
      ) : null}
    </>
  )
}

export function AccountPage() {
  const { params } = useRoute()
  const { route } = useLocation()
  const id = params.id ?? ''
  const account = useApi((signal) => api('GET /accounts/:id', { params: { id }, signal }), [id])
  const organizations = useApi(
    (signal) => api('GET /organizations', { query: { limit: 1000 }, signal }),
    [],
  )
  const [editing, setEditing] = useState(false)
  const [deleting, setDeleting] = useState(false)
  // Transaction rows read the account's currency from the shared store.
  useEffect(() => void loadAccounts().catch(() => undefined), [])

  const a = account.data
  const org = organizations.data?.organizations.find((o) => o.id === a?.org_id)

  if (account.error) {
    return (
      <section>
        <h1>Account</h1>
        <ErrorNote
          error={account.error}
          context={account.error.status === 404 ? 'No such account' : 'Could not load the account'}
        />
        <p>
          <a href="/accounts">All accounts</a>
        </p>
      </section>
    )
  }
  if (!a) return <p class="loading">Loading…</p>

  return (
    <section class="account-page">
      <p class="hint">
        <a href="/accounts">Accounts</a> / {org?.name ?? a.org_id}
      </p>
      <div class="page-head">
        <h1>{a.name}</h1>
        {isManual(a) ? (
          <IfWrite>
            <div class="actions">
              <button type="button" onClick={() => setEditing(true)}>
                Edit account
              </button>
              <button type="button" class="danger" onClick={() => setDeleting(true)}>
                Delete account
              </button>
            </div>
          </IfWrite>
        ) : null}
      </div>
      {isManual(a) ? null : (
        <p class="notice" role="note">
          {syncedReason(a)}
        </p>
      )}
      <div class="card account-summary">
        <div class="stat">
          <span class="label">Balance</span>
          <span class="value">
            <Money amount={a.balance} currency={a.currency} />
          </span>
          {isManual(a) ? (
            <span class="hint">kept by hand, not computed from transactions</span>
          ) : null}
        </div>
        <dl class="kv">
          <dt>Currency</dt>
          <dd>{a.currency}</dd>
          <dt>Source</dt>
          <dd>{a.source}</dd>
          <dt>Organization</dt>
          <dd>{org?.name ?? a.org_id}</dd>
          <dt>Id</dt>
          <dd>
            <code>{a.id}</code>
          </dd>
        </dl>
      </div>
      <AccountTransactions account={a} />
      <AccountFormDialog
        account={editing ? a : null}
        open={editing}
        onClose={() => setEditing(false)}
        onSaved={() => {
          setEditing(false)
          account.reload()
        }}
      />
      <DeleteAccountDialog
        account={deleting ? a : null}
        onClose={() => setDeleting(false)}
        onDeleted={() => route('/accounts')}
      />
    </section>
  )
}

// Accounts grouped by their organization, each with its balance and source, an
// exact total per currency for each organization, and the manual accounts'
// create, edit and delete. Synced accounts say why they cannot be changed.
import { useMemo, useState } from 'preact/hooks'
import { api, type Result } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { IfWrite, ReadOnlyNotice } from '../../components/Guard.js'
import { Money } from '../../components/Money.js'
import { plural } from '../../components/format.js'
import { useApi } from '../../components/useApi.js'
import { accounts, loadAccounts, type Account } from '../../stores/accounts.js'
import { canWrite } from '../../stores/session.js'
import { AccountFormDialog, DeleteAccountDialog, isManual, syncedReason } from './AccountDialogs.js'
import { totalsByCurrency } from './balance-totals.js'
import './accounts.css'

type Organization = Result<'GET /organizations'>['organizations'][number]

/** Every organization, paged through (a ledger has a handful). */
async function loadOrganizations(signal: AbortSignal): Promise<Organization[]> {
  const all: Organization[] = []
  for (let offset = 0; ; offset += 1000) {
    const page = await api('GET /organizations', { query: { limit: 1000, offset }, signal })
    all.push(...page.organizations)
    if (page.organizations.length === 0 || all.length >= page.total) return all
  }
}

interface Group {
  id: string
  name: string
  accounts: Account[]
}

/** Accounts under their organizations, in the service's order (name, then id). */
function groupAccounts(list: readonly Account[], organizations: readonly Organization[]): Group[] {
  const groups = new Map<string, Group>(
    organizations.map((o) => [o.id, { id: o.id, name: o.name, accounts: [] }]),
  )
  for (const account of list) {
    let group = groups.get(account.org_id)
    if (!group) {
      // An organization the list did not have (created since): its id stands in.
      group = { id: account.org_id, name: account.org_id, accounts: [] }
      groups.set(account.org_id, group)
    }
    group.accounts.push(account)
  }
  return [...groups.values()].filter((g) => g.accounts.length > 0)
}

function OrganizationTotals({ group }: { group: Group }) {
  const totals = totalsByCurrency(group.accounts)
  return (
    <p class="org-totals" aria-label={`Total of ${group.name}`}>
      <span class="label">Total</span>
      {totals.map(([currency, total]) =>
        total === null ? null : (
          <span key={currency}>
            <Money amount={total} currency={currency} />
          </span>
        ),
      )}
    </p>
  )
}

function AccountRow({
  account,
  onEdit,
  onDelete,
  actions,
}: {
  account: Account
  onEdit: () => void
  onDelete: () => void
  /** A read-only key gets no actions column at all. */
  actions: boolean
}) {
  return (
    <tr>
      <td class="name">
        <a href={`/accounts/${encodeURIComponent(account.id)}`}>{account.name}</a>
      </td>
      <td class="source">
        <span class="badge">{account.source}</span>
      </td>
      <td class="num balance">
        <Money amount={account.balance} currency={account.currency} />
      </td>
      {actions ? (
        <td class="row-actions">
          {isManual(account) ? (
            <div class="actions">
              <button type="button" aria-label={`Edit ${account.name}`} onClick={onEdit}>
                Edit
              </button>
              <button
                type="button"
                class="danger"
                aria-label={`Delete ${account.name}`}
                onClick={onDelete}
              >
                Delete
              </button>
            </div>
          ) : (
            <span class="hint" title={syncedReason(account)}>
              Owned by its source
            </span>
          )}
        </td>
      ) : null}
    </tr>
  )
}

export function AccountsPage() {
  const organizations = useApi(loadOrganizations, [])
  const loaded = useApi(() => loadAccounts(true), [])
  const [editing, setEditing] = useState<Account | null>(null)
  const [creating, setCreating] = useState(false)
  const [deleting, setDeleting] = useState<Account | null>(null)

  const accountList = useMemo(() => [...accounts.value.values()], [accounts.value])

  const groups = useMemo(
    () => groupAccounts(accountList, organizations.data ?? []),
    [accountList, organizations.data],
  )
  const ready = organizations.data !== null && !loaded.loading
  const synced = accountList.some((a) => !isManual(a))

  return (
    <section class="accounts-page">
      <div class="page-head">
        <h1>Accounts</h1>
        <IfWrite>
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New account
          </button>
        </IfWrite>
      </div>
      <ReadOnlyNotice />
      <ErrorNote error={organizations.error} context="Could not load organizations" />
      <ErrorNote error={loaded.error} context="Could not load accounts" />
      {!ready && !organizations.error && !loaded.error ? <p class="loading">Loading…</p> : null}
      {ready && groups.length === 0 ? (
        <div class="card empty-state">
          <p>No accounts yet.</p>
          <p class="hint">
            Accounts appear when a source syncs (Sources), or create a manual one with New account.
          </p>
        </div>
      ) : null}
      {ready
        ? groups.map((group) => (
            <div class="card org" key={group.id}>
              <div class="org-head">
                <h2 id={`org-${group.id}`}>{group.name}</h2>
                <span class="hint">{plural(group.accounts.length, 'account')}</span>
              </div>
              <table class="rows accounts" aria-labelledby={`org-${group.id}`}>
                <thead>
                  <tr>
                    <th scope="col">Account</th>
                    <th scope="col">Source</th>
                    <th scope="col" class="num">
                      Balance
                    </th>
                    {canWrite.value ? (
                      <th scope="col">
                        <span class="accounts-hidden">Actions</span>
                      </th>
                    ) : null}
                  </tr>
                </thead>
                <tbody>
                  {group.accounts.map((account) => (
                    <AccountRow
                      key={account.id}
                      account={account}
                      onEdit={() => setEditing(account)}
                      onDelete={() => setDeleting(account)}
                      actions={canWrite.value}
                    />
                  ))}
                </tbody>
              </table>
              <OrganizationTotals group={group} />
            </div>
          ))
        : null}
      {ready && synced ? (
        <p class="hint">
          Synced accounts belong to their source: their name, currency and balance come from each
          sync, so only manual accounts can be edited or deleted.
        </p>
      ) : null}
      <AccountFormDialog
        account={editing}
        open={creating || editing !== null}
        onClose={() => {
          setCreating(false)
          setEditing(null)
        }}
        onSaved={() => {
          setCreating(false)
          setEditing(null)
          organizations.reload()
        }}
      />
      <DeleteAccountDialog
        account={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={() => setDeleting(null)}
      />
    </section>
  )
}

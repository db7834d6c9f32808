// /transactions/new: a manual transaction (SPEC 1.4). On success the new row's
// page opens, where labels, extensions and relationships can be added.
import { useLocation } from 'preact-iso'
import { useState } from 'preact/hooks'
import { api, type ApiError } from '../../api/client.js'
import { IfWrite, ReadOnlyNotice } from '../../components/Guard.js'
import { toApiError } from '../../components/useApi.js'
import { accounts } from '../../stores/accounts.js'
import { notify } from '../../stores/notices.js'
import {
  createBody,
  EMPTY_FIELDS,
  TransactionForm,
  type TransactionFields,
} from './TransactionForm.js'
import './transactions.css'

export function NewTransactionPage() {
  const location = useLocation()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  // ?account=<id> preselects it (e.g. from an account's page).
  const initial: TransactionFields = { ...EMPTY_FIELDS, account_id: location.query.account ?? '' }

  const save = async (fields: TransactionFields) => {
    setBusy(true)
    setError(null)
    try {
      const created = await api('POST /transactions', { body: createBody(fields) })
      notify('Transaction created.')
      location.route(`/transactions/${encodeURIComponent(created.id)}`)
    } catch (failure) {
      setError(toApiError(failure))
      setBusy(false)
    }
  }

  return (
    <section>
      <div class="page-head">
        <h1>New transaction</h1>
        <a href="/transactions">Back to transactions</a>
      </div>
      <ReadOnlyNotice />
      <IfWrite>
        <div class="card narrow">
          {accounts.value.size === 0 ? (
            <p class="hint">
              A transaction belongs to an account. If none is listed,{' '}
              <a href="/accounts">create an account</a> first.
            </p>
          ) : null}
          <TransactionForm
            initial={initial}
            submitLabel="Create transaction"
            busy={busy}
            error={error}
            onSubmit={(fields) => void save(fields)}
            onCancel={() => location.route('/transactions')}
          />
        </div>
      </IfWrite>
    </section>
  )
}

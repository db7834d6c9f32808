// The transaction list: the search box, filters (labels, extensions, dates),
// and keyset paging, all reflected in the address bar.
import { useLocation } from 'preact-iso'
import { useEffect, useMemo, useState } from 'preact/hooks'
import { api, type Result } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { IfWrite } from '../../components/Guard.js'
import { FIRST_PAGE, Pager, type PagerState } from '../../components/Pager.js'
import { QueryInput } from '../../components/QueryInput.js'
import { TransactionTable } from '../../components/TransactionTable.js'
import { useApi } from '../../components/useApi.js'
import { loadAccounts } from '../../stores/accounts.js'
import {
  filtersFrom,
  NO_FILTERS,
  orderFrom,
  urlFor,
  withOrder,
  type ListFilters,
  type ListOrder,
} from './query-url.js'
import { SortOrder } from './SortOrder.js'

const PAGE_SIZE = 50

type Page = Result<'GET /transactions/search'>

async function loadPage(
  filters: ListFilters,
  order: ListOrder,
  cursor: string | null,
  signal: AbortSignal,
): Promise<Page> {
  const query = {
    limit: PAGE_SIZE,
    order,
    ...(cursor ? { cursor } : {}),
    since: filters.since,
    until: filters.until,
    label_key: filters.label_key,
    label_value: filters.label_key ? filters.label_value : '',
  }
  if (filters.q.trim() === '') {
    const page = await api('GET /transactions', { query, signal })
    return {
      query: '',
      total: page.total,
      total_is_lower_bound: false,
      transactions: page.transactions,
      next_cursor: page.next_cursor,
    }
  }
  return api('GET /transactions/search', { query: { ...query, q: filters.q }, signal })
}

function Filters({
  filters,
  onChange,
}: {
  filters: ListFilters
  onChange: (f: ListFilters) => void
}) {
  const labels = useApi((signal) => api('GET /labels', { signal }), [])
  const extensions = useApi((signal) => api('GET /extensions', { signal }), [])
  const keys = useMemo(
    () => [...new Set((labels.data?.labels ?? []).map((l) => l.key))].sort(),
    [labels.data],
  )
  const values = (labels.data?.labels ?? []).filter((l) => l.key === filters.label_key)
  const addToQuery = (term: string) =>
    onChange({ ...filters, q: filters.q.trim() ? `${filters.q.trim()} ${term}` : term })
  return (
    <div class="filters">
      <label>
        Label
        <select
          value={filters.label_key}
          onChange={(e) =>
            onChange({ ...filters, label_key: e.currentTarget.value, label_value: '' })
          }
        >
          <option value="">any</option>
          {keys.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      {filters.label_key ? (
        <label>
          Value
          <select
            value={filters.label_value}
            onChange={(e) => onChange({ ...filters, label_value: e.currentTarget.value })}
          >
            <option value="">any</option>
            {values.map((l) => (
              <option key={l.value} value={l.value}>
                {l.value} ({l.transaction_count.toLocaleString()})
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <label>
        Extension
        <select
          value=""
          onChange={(e) => {
            if (e.currentTarget.value) addToQuery(`ext:${e.currentTarget.value}`)
          }}
        >
          <option value="">add to search…</option>
          {(extensions.data ?? []).map((x) => (
            <option key={x.key} value={x.key}>
              {x.key} ({x.transaction_count.toLocaleString()})
            </option>
          ))}
        </select>
      </label>
      <label>
        From
        <input
          type="date"
          value={filters.since}
          onChange={(e) => onChange({ ...filters, since: e.currentTarget.value })}
        />
      </label>
      <label>
        To
        <input
          type="date"
          value={filters.until}
          onChange={(e) => onChange({ ...filters, until: e.currentTarget.value })}
        />
      </label>
      {JSON.stringify(filters) !== JSON.stringify({ ...NO_FILTERS, q: filters.q }) ? (
        <button
          type="button"
          class="link"
          onClick={() => onChange({ ...NO_FILTERS, q: filters.q })}
        >
          Clear filters
        </button>
      ) : null}
    </div>
  )
}

export function TransactionsPage() {
  const location = useLocation()
  const filters = filtersFrom(location.query)
  const order = orderFrom(location.query)
  const [draft, setDraft] = useState(filters.q)
  const [pager, setPager] = useState<PagerState>(FIRST_PAGE)
  // A cursor continues only its own order: a new order starts at the first page.
  const key = JSON.stringify([filters, order])

  useEffect(() => void loadAccounts().catch(() => undefined), [])
  useEffect(() => setDraft(filters.q), [filters.q])
  useEffect(() => setPager(FIRST_PAGE), [key])

  const apply = (next: ListFilters) => location.route(withOrder(urlFor(next), order), true)
  const sortBy = (next: ListOrder) => location.route(withOrder(urlFor(filters), next), true)
  // Search as the person types, a moment after they pause.
  useEffect(() => {
    if (draft === filters.q) return
    const timer = setTimeout(() => apply({ ...filters, q: draft }), 350)
    return () => clearTimeout(timer)
  }, [draft])

  const page = useApi(
    (signal) => loadPage(filters, order, pager.cursor, signal),
    [key, pager.cursor],
  )
  const queryError = page.error?.status === 400 && filters.q ? page.error : null

  return (
    <section>
      <div class="page-head">
        <h1>Transactions</h1>
        <IfWrite>
          <a class="button primary" href="/transactions/new">
            New transaction
          </a>
        </IfWrite>
      </div>
      <QueryInput
        label="Search transactions"
        value={draft}
        onInput={setDraft}
        onSubmit={() => apply({ ...filters, q: draft })}
        error={queryError}
      />
      <Filters filters={filters} onChange={apply} />
      {page.error && !queryError ? (
        <ErrorNote error={page.error} context="Could not load transactions" />
      ) : null}
      {page.data ? (
        <div class={page.loading ? 'loading-fade' : undefined} aria-busy={page.loading}>
          <div class="list-head">
            <SortOrder order={order} onChange={sortBy} />
            <Pager
              state={pager}
              onChange={setPager}
              next={page.data.next_cursor}
              shown={page.data.transactions.length}
              limit={PAGE_SIZE}
              total={page.data.total}
              totalIsLowerBound={page.data.total_is_lower_bound}
            />
          </div>
          {page.data.transactions.length === 0 ? (
            <p class="empty">No transactions match.</p>
          ) : (
            <TransactionTable transactions={page.data.transactions} />
          )}
        </div>
      ) : page.loading ? (
        <p class="loading">Loading…</p>
      ) : null}
    </section>
  )
}

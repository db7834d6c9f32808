// The transaction list: the search box, filters (labels, extensions, dates),
// and keyset paging, all reflected in the address bar. Writes go through the
// detail page and /transactions/new.
import { useLocation } from 'preact-iso'
import { useEffect, useMemo, useState } from 'preact/hooks'
import { api, ApiError, type Result } from '../../api/client.js'
import { DateRange } from '../../components/DateRange.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { IfWrite } from '../../components/Guard.js'
import { Pager, type PagerState } from '../../components/Pager.js'
import { QueryInput } from '../../components/QueryInput.js'
import { TransactionTable } from '../../components/TransactionTable.js'
import { useApi } from '../../components/useApi.js'
import { loadAccounts } from '../../stores/accounts.js'
import {
  extensionTerm,
  filtersFrom,
  hasFilters,
  NO_FILTERS,
  orderFrom,
  pagerFrom,
  searchText,
  urlFor,
  withOrder,
  withPager,
  type ListFilters,
  type ListOrder,
} from './query-url.js'
import { SortOrder } from './SortOrder.js'
import './transactions.css'

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
  const q = searchText(filters)
  if (q.trim() === '') {
    const page = await api('GET /transactions', { query, signal })
    return {
      query: '',
      total: page.total,
      total_is_lower_bound: false,
      transactions: page.transactions,
      next_cursor: page.next_cursor,
    }
  }
  try {
    return await api('GET /transactions/search', { query: { ...query, q }, signal })
  } catch (error) {
    if (error instanceof ApiError && error.status === 400 && q !== filters.q) {
      await explainRefusedQuery(filters, signal)
    }
    throw error
  }
}

/** The extension filter's term was refused by the service (not the person's text). */
class ExtensionFilterError extends ApiError {}

/**
 * The search text joined with the extension filter was refused: the offsets
 * of that error are of the joined text, not of what the person typed. Their
 * text alone tells where its own error is (thrown, so shown under the box);
 * if it parses, the filter's term is what the service refused.
 */
async function explainRefusedQuery(filters: ListFilters, signal: AbortSignal): Promise<never> {
  if (filters.q.trim() !== '') {
    await api('GET /transactions/search', { query: { q: filters.q, limit: 1 }, signal })
  }
  throw new ExtensionFilterError(
    400,
    'Extension filter',
    `the extension filter ${extensionTerm(filters) ?? ''} cannot be searched`,
  )
}

function Filters({
  filters,
  onChange,
  ready,
}: {
  filters: ListFilters
  onChange: (f: ListFilters) => void
  /** The first page of rows is shown: the vocabularies load after it, not beside it. */
  ready: boolean
}) {
  const labels = useApi(
    (signal) => (ready ? api('GET /labels', { signal }) : Promise.resolve(null)),
    [ready],
  )
  const extensions = useApi(
    (signal) => (ready ? api('GET /extensions', { signal }) : Promise.resolve(null)),
    [ready],
  )
  const keys = useMemo(
    () => [...new Set((labels.data?.labels ?? []).map((l) => l.key))].sort(),
    [labels.data],
  )
  const values = (labels.data?.labels ?? []).filter((l) => l.key === filters.label_key)
  // A key from a shared link may no longer be in the vocabulary: keep it selectable.
  const extensionKeys = useMemo(() => {
    const known = (extensions.data ?? []).map((x) => ({ key: x.key, count: x.transaction_count }))
    if (filters.ext_key && !known.some((x) => x.key === filters.ext_key)) {
      known.push({ key: filters.ext_key, count: 0 })
    }
    return known.sort((a, b) => a.key.localeCompare(b.key))
  }, [extensions.data, filters.ext_key])
  return (
    <div class="filters" role="group" aria-label="Filters">
      <label>
        Label
        <select
          aria-label="Label"
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
          Label value
          <select
            aria-label="Label value"
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
          aria-label="Extension"
          value={filters.ext_key}
          onChange={(e) => onChange({ ...filters, ext_key: e.currentTarget.value, ext_value: '' })}
        >
          <option value="">any</option>
          {extensionKeys.map((x) => (
            <option key={x.key} value={x.key}>
              {x.key} ({x.count.toLocaleString()})
            </option>
          ))}
        </select>
      </label>
      {filters.ext_key ? (
        <label>
          Extension value
          <input
            aria-label="Extension value"
            type="text"
            value={filters.ext_value}
            placeholder="any value, as text (true, 0.2)"
            spellcheck={false}
            // Applied when the person commits it (Enter or leaving the field).
            onChange={(e) => onChange({ ...filters, ext_value: e.currentTarget.value })}
          />
        </label>
      ) : null}
      <DateRange filters={filters} onChange={onChange} />
      {hasFilters(filters) ? (
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
  // The page is in the address too, so Back (from a transaction) and a reload
  // return to it. New filters or a new order start at the first page: their
  // addresses carry no cursor (a cursor continues only its own list and order).
  const pager = pagerFrom(location.query)
  const key = JSON.stringify([filters, order])

  useEffect(() => void loadAccounts().catch(() => undefined), [])
  useEffect(() => setDraft(filters.q), [filters.q])

  const apply = (next: ListFilters) => location.route(withOrder(urlFor(next), order), true)
  const sortBy = (next: ListOrder) => location.route(withOrder(urlFor(filters), next), true)
  const setPager = (next: PagerState) =>
    location.route(withPager(withOrder(urlFor(filters), order), next), true)
  // Search as the person types, a moment after they pause.
  useEffect(() => {
    if (draft === filters.q) return
    const timer = setTimeout(() => apply({ ...filters, q: draft }), 350)
    return () => clearTimeout(timer)
  }, [draft])

  // The pager state travels with the page it loaded, so the counts shown always
  // describe the rows shown, also while the next page is on its way.
  const page = useApi(
    (signal) => loadPage(filters, order, pager.cursor, signal).then((p) => ({ ...p, pager })),
    [key, pager.cursor],
  )
  const queryError =
    page.error?.status === 400 && filters.q && !(page.error instanceof ExtensionFilterError)
      ? page.error
      : null

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
      <Filters
        filters={filters}
        onChange={apply}
        ready={page.data !== null || page.error !== null}
      />
      {extensionTerm(filters) === null ? (
        <p class="notice" role="note">
          The extension value holds a double quote, which the search language cannot express; the
          extension filter is left out.
        </p>
      ) : null}
      {page.error && !queryError ? (
        <ErrorNote error={page.error} context="Could not load transactions" />
      ) : null}
      {/* Rows under a refused query would read as its matches: none are shown. */}
      {page.data && !queryError ? (
        <div class={page.loading ? 'loading-fade' : undefined} aria-busy={page.loading}>
          <div class="list-head">
            <SortOrder order={order} onChange={sortBy} />
            <Pager
              state={page.data.pager}
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

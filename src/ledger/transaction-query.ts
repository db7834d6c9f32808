// The filters of GET /transactions (SPEC 4.2) as SQL: one `where` per filter,
// ordered by (date, id), newest first or oldest first, so that pages never overlap.
import type { SelectQueryBuilder } from 'kysely'
import type { Database, DbExecutor } from '../db/schema.js'
import { Invalid } from '../errors.js'
import type { KeysetKey, SortOrder } from '../page.js'
import { nextDayStart, parseInstant } from './time.js'
import { keptTransactionCount } from './transaction-counts.js'

export interface TransactionFilter {
  account_id?: string | undefined
  label_key?: string | undefined
  label_value?: string | undefined
  since?: string | undefined
  until?: string | undefined
}

/**
 * The list filters of a request (list, search, summary): only the filter's own
 * fields. The account is given apart: only an account's own list takes one.
 */
export function transactionFilterOf(
  input: Omit<TransactionFilter, 'account_id'>,
  accountId?: string,
): TransactionFilter {
  return {
    ...(accountId === undefined ? {} : { account_id: accountId }),
    label_key: input.label_key,
    label_value: input.label_value,
    since: input.since,
    until: input.until,
  }
}

const DAY_ONLY = /^\d{4}-\d{2}-\d{2}$/

/** `since` is inclusive; `until` is inclusive, and a bare day includes that whole day. */
export function resolveDateRange(filter: TransactionFilter): {
  from?: string
  before?: string
  upTo?: string
} {
  const out: { from?: string; before?: string; upTo?: string } = {}
  if (filter.since !== undefined) {
    const since = parseInstant(filter.since)
    if (since === null)
      throw Invalid.field('since', 'must be YYYY-MM-DD, an RFC 3339 timestamp, or unix seconds')
    out.from = since
  }
  if (filter.until !== undefined) {
    const until = parseInstant(filter.until)
    if (until === null)
      throw Invalid.field('until', 'must be YYYY-MM-DD, an RFC 3339 timestamp, or unix seconds')
    if (DAY_ONLY.test(filter.until.trim())) {
      // The last day of all (9999-12-31) has no next day: nothing lies after it.
      const next = nextDayStart(until)
      if (next !== null) out.before = next
    } else {
      out.upTo = until
    }
  }
  return out
}

export function filteredTransactions(db: DbExecutor, filter: TransactionFilter) {
  const range = resolveDateRange(filter)
  let query = db.selectFrom('transactions')
  // Index: transactions_account_date (account_id, date, id) with an account,
  // transactions_date (date, id) without.
  if (filter.account_id !== undefined) query = query.where('account_id', '=', filter.account_id)
  if (range.from !== undefined) query = query.where('date', '>=', range.from)
  if (range.before !== undefined) query = query.where('date', '<', range.before)
  if (range.upTo !== undefined) query = query.where('date', '<=', range.upTo)
  if (filter.label_key !== undefined) {
    const key = filter.label_key.trim().toLowerCase()
    const value = filter.label_value
    // Index: transaction_labels_key_value (key, value, transaction_id).
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('transaction_labels as l')
          .select('l.transaction_id')
          .whereRef('l.transaction_id', '=', 'transactions.id')
          .where('l.key', '=', key)
          .$if(value !== undefined, (q) => q.where('l.value', '=', value!)),
      ),
    )
  } else if (filter.label_value !== undefined) {
    throw Invalid.field('label_value', 'needs label_key')
  }
  return query
}

/**
 * How many transactions the filter selects (every page's `total`): kept per
 * account (transaction-counts.ts) unless a date or label filter narrows the list.
 */
export async function countTransactions(
  db: DbExecutor,
  filter: TransactionFilter,
): Promise<number> {
  const narrowed =
    filter.since !== undefined ||
    filter.until !== undefined ||
    filter.label_key !== undefined ||
    filter.label_value !== undefined
  if (!narrowed) return keptTransactionCount(db, filter.account_id)
  const count = await filteredTransactions(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(count.n)
}

/**
 * The rows after `last` in `order` (desc: older rows, asc: newer ones): the next
 * keyset page. Written so that the (date, id) index serves it as a range, walked
 * backwards or forwards: the same cost in either order.
 */
export function afterKey<O>(
  query: SelectQueryBuilder<Database, 'transactions', O>,
  last: KeysetKey,
  order: SortOrder,
): SelectQueryBuilder<Database, 'transactions', O> {
  const { date, id } = last
  if (order === 'asc') {
    return query
      .where('date', '>=', date)
      .where((eb) => eb.or([eb('date', '>', date), eb('id', '>', id)]))
  }
  return query
    .where('date', '<=', date)
    .where((eb) => eb.or([eb('date', '<', date), eb('id', '<', id)]))
}

/** Sorted by (date, id) in `order`: a total order, so pages never overlap. */
export function inKeysetOrder<O>(
  query: SelectQueryBuilder<Database, 'transactions', O>,
  order: SortOrder,
): SelectQueryBuilder<Database, 'transactions', O> {
  return query.orderBy('date', order).orderBy('id', order)
}

/** What a keyset cursor of a transaction list is bound to: the list and its filters. */
export function transactionListScope(kind: string, filter: TransactionFilter): unknown {
  return [
    kind,
    filter.account_id ?? null,
    filter.label_key ?? null,
    filter.label_value ?? null,
    filter.since ?? null,
    filter.until ?? null,
  ]
}

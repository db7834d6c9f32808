// Candidates stream from the database in keyset pages by (date, id), newest
// first or oldest first (index transactions_date, walked either way), narrowed
// by the compiled pre-filter; the matcher decides each one. Memory holds one
// page, never the ledger.
import { sql, type RawBuilder, type SqlBool } from 'kysely'
import { chunksOf } from '../db/bulk.js'
import { buildsSearchDocuments, needsPlannerHints } from '../db/dialect.js'
import type { DbExecutor } from '../db/schema.js'
import type { TransactionJson } from '../ledger/json.js'
import { toTransactionsJson } from '../ledger/snapshots.js'
import type { TransactionRow } from '../ledger/tables.js'
import { throwIfClosing } from '../signals.js'
import {
  afterKey,
  countTransactions,
  filteredTransactions,
  inKeysetOrder,
  type TransactionFilter,
} from '../ledger/transaction-query.js'
import { DEFAULT_ORDER, type KeysetKey, type SortOrder } from '../page.js'
import type { QueryNode } from './ast.js'
import { matches } from './match.js'
import { Narrower, type NarrowOptions, type Narrowing } from './narrow.js'
import { loadTextContext } from './text-context.js'
import { loadSubjects, subjectNeeds } from './subjects.js'
import { searchTuning } from './tuning.js'

export const DEFAULT_PAGE_SIZE = 500

export function narrowingFor(
  db: DbExecutor,
  query: QueryNode,
  options: NarrowOptions = {},
): Narrowing {
  return new Narrower(db, options).narrowQuery(query)
}

export async function countCandidates(
  db: DbExecutor,
  narrowing: Narrowing,
  filter: TransactionFilter,
): Promise<number> {
  // Everything the filters select (an empty query, or the whole of a NOT): the kept count.
  if (!narrowing.arms && !narrowing.where) return countTransactions(db, filter)
  if (narrowing.arms) {
    const row = await db
      .selectFrom(idsOfArms(db, narrowing.arms, filter).as('candidates'))
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }
  const row = await candidateQuery(db, narrowing, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * The candidates, counted up to `limit`: enough to tell a large set from a
 * small one without counting a large one through (a row test stops there; an id
 * set is built whole either way).
 */
async function countCandidatesUpTo(
  db: DbExecutor,
  narrowing: Narrowing,
  filter: TransactionFilter,
  limit: number,
): Promise<number> {
  if (narrowing.arms || !narrowing.where) return countCandidates(db, narrowing, filter)
  return countUpTo(db, candidateQuery(db, narrowing, filter), limit)
}

/** The rows of `rows`, counted up to `limit`. */
async function countUpTo(
  db: DbExecutor,
  rows: ReturnType<typeof filteredTransactions>,
  limit: number,
): Promise<number> {
  const row = await db
    .selectFrom(
      rows
        .select(sql`1`.as('one'))
        .limit(limit)
        .as('counted'),
    )
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * The ids of the filtered rows that any of `arms` accepts (Narrowing.arms):
 * each arm finds its rows by its own index and tests the rest on them, and the
 * union holds a row that two arms find once.
 */
function idsOfArms(db: DbExecutor, arms: RawBuilder<SqlBool>[], filter: TransactionFilter) {
  return arms
    .map((arm) => filteredTransactions(db, filter).where(arm).select('transactions.id'))
    .reduce((rows, arm) => rows.union(arm))
}

/** The filtered, narrowed candidates (callers add select, order, paging). */
export function candidateQuery(db: DbExecutor, narrowing: Narrowing, filter: TransactionFilter) {
  if (narrowing.arms) {
    const ids = idsOfArms(db, narrowing.arms, filter)
    return db.selectFrom('transactions').where(sql<SqlBool>`transactions.id in (${ids})`)
  }
  const query = filteredTransactions(db, filter)
  return narrowing.where ? query.where(narrowing.where) : query
}

/**
 * A bounded candidate set, to be read whole and sorted. On SQLite the set is
 * found first (by rowid, so that its own best index serves the filter) and then
 * read: left to itself, the planner walks the date index for the ORDER BY and
 * reads every row in the date range to test the rest, 10× slower for
 * `amount:<-100 date:2024`.
 */
export function boundedCandidates(db: DbExecutor, narrowing: Narrowing, filter: TransactionFilter) {
  if (!needsPlannerHints(db)) return candidateQuery(db, narrowing, filter)
  const set = candidateQuery(db, narrowing, filter).select(sql`transactions.rowid`.as('r'))
  return db.selectFrom('transactions').where(sql<SqlBool>`transactions.rowid in (${set})`)
}

/** How a stream of matches is read. */
export interface StreamOptions {
  /** Candidates matched per step; a yielded page may be shorter, never empty. */
  pageSize?: number | undefined
  /** Newest first (desc, the default) or oldest first (asc). */
  order?: SortOrder | undefined
  /** A keyset cursor's row: the stream begins just after it, in `order`. */
  after?: KeysetKey | undefined
  /**
   * Awaited after each page of candidates, matched or not: a long scan that
   * yields to the event loop passes one (SQLite reads are synchronous).
   */
  pause?: (() => Promise<void>) | undefined
  /**
   * The service's closing signal (ctx.signals.closing): checked between pages,
   * the stream ends with ShuttingDown (503) once it is aborted.
   */
  signal?: AbortSignal | undefined
  /** Filled in as the stream goes: candidates looked at, and whether it reached the end. */
  progress?: StreamProgress | undefined
  /** The stream ends (incomplete) once it has looked at this many candidates; read after each step. */
  maxCandidates?: (() => number) | undefined
}

export interface StreamProgress {
  /** Candidates the matcher has looked at so far. */
  candidates: number
  /** true once the stream has seen every candidate. */
  complete: boolean
}

/** Pages of matching transactions; a page may be shorter than pageSize, never empty. */
export async function* matchingPages(
  db: DbExecutor,
  query: QueryNode,
  filter: TransactionFilter,
  options: StreamOptions = {},
): AsyncIterable<TransactionJson[]> {
  for await (const rows of matchingRows(db, query, filter, options)) {
    yield await toTransactionsJson(db, rows)
  }
}

/**
 * Pages of matching rows. Each candidate is matched against a subject loaded
 * with only what the query reads, so `amount:<0` never loads a label.
 */
export async function* matchingRows(
  db: DbExecutor,
  query: QueryNode,
  filter: TransactionFilter,
  {
    pageSize = DEFAULT_PAGE_SIZE,
    order = DEFAULT_ORDER,
    after,
    pause,
    signal,
    progress,
    maxCandidates,
  }: StreamOptions = {},
): AsyncIterable<TransactionRow[]> {
  throwIfClosing(signal)
  // SQLite: a text term most rows hold narrows as a row test (narrow.ts
  // broadFreeText), not as a set of most of the ledger's ids.
  const text = buildsSearchDocuments(db)
    ? await loadTextContext(db, query, { decideQueued: false })
    : undefined
  let narrowing = narrowingFor(db, query, { text })
  // Rows per database round trip: a bounded candidate set comes in one query
  // (the pre-filter runs once), anything larger in pages.
  let fetchSize = pageSize
  let bounded = false
  if (narrowing.where) {
    const candidates = await countCandidatesUpTo(
      db,
      narrowing,
      filter,
      searchTuning.largeCandidateSet + 1,
    )
    if (candidates > searchTuning.largeCandidateSet) {
      narrowing = narrowingFor(db, query, { idSets: false, text })
    } else {
      fetchSize = Math.max(pageSize, candidates + 1)
      bounded = true
    }
  }
  const needs = subjectNeeds(query)
  let looked = 0
  let last: KeysetKey | undefined = after
  for (;;) {
    let page = bounded
      ? boundedCandidates(db, narrowing, filter)
      : candidateQuery(db, narrowing, filter)
    if (last) page = afterKey(page, last, order)
    const rows = await inKeysetOrder(page.selectAll('transactions'), order)
      .limit(fetchSize)
      .execute()
    const final = rows.length < fetchSize
    const pages = [...chunksOf(rows, pageSize)]
    for (const [i, page] of pages.entries()) {
      const subjects = await loadSubjects(db, page, needs)
      const matched = page.filter((_, j) => matches(query, subjects[j]!))
      looked += page.length
      if (progress) progress.candidates = looked
      if (matched.length > 0) yield matched
      if (pause) await pause()
      throwIfClosing(signal)
      const more = !final || i < pages.length - 1
      if (more && maxCandidates && looked >= maxCandidates()) return
    }
    if (final) {
      if (progress) progress.complete = true
      return
    }
    last = rows[rows.length - 1]
  }
}

/** Streams every matching transaction, newest first unless `order` says otherwise, in pages (pre-filter + matcher). */
export function matchingTransactions(
  db: DbExecutor,
  query: QueryNode,
  options: Omit<StreamOptions, 'after'> = {},
): AsyncIterable<TransactionJson[]> {
  return matchingPages(db, query, {}, options)
}

/**
 * SQLite: whether every match lies among few rows of the date index (at most
 * `searchTuning.fewDaysRows`): those of the filter's `since`/`until` and of
 * the date terms the whole query needs. Counted up to that bound, a few
 * milliseconds whatever the range.
 */
export async function withinFewDays(
  db: DbExecutor,
  query: QueryNode,
  filter: TransactionFilter,
): Promise<boolean> {
  // A query without terms has nothing to read row by row.
  if (!needsPlannerHints(db) || query.kind === 'all') return false
  const terms = (query.kind === 'and' ? query.items : [query]).filter(
    (node) => node.kind === 'instant' && node.field === 'date',
  )
  if (filter.since === undefined && filter.until === undefined && terms.length === 0) return false
  let rows = filteredTransactions(db, { since: filter.since, until: filter.until })
  for (const term of terms) {
    const { where } = narrowingFor(db, term)
    if (where) rows = rows.where(where)
  }
  const bound = searchTuning.fewDaysRows
  return (await countUpTo(db, rows, bound + 1)) <= bound
}

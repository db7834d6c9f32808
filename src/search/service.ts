// GET /transactions/search and the search_transactions MCP tool (CONTRACT 7).
import { yieldToEventLoop } from '../clock.js'
import { throwIfClosing } from '../signals.js'
import type { Logger } from 'pino'
import type { ServiceContext } from '../context.js'
import type { DbExecutor } from '../db/schema.js'
import type { TransactionJson } from '../ledger/json.js'
import { toTransactionsJson } from '../ledger/snapshots.js'
import type { TransactionRow } from '../ledger/tables.js'
import {
  afterKey,
  inKeysetOrder,
  transactionListScope,
  type TransactionFilter,
  transactionFilterOf,
} from '../ledger/transaction-query.js'
import { keysetPageOf, resolveKeysetPage, type KeysetPageInput } from '../page.js'
import { matches } from './match.js'
import { parseQueryText } from './parse.js'
import { negatedPart, type QueryNode } from './ast.js'
import type { Narrowing, TextContext } from './narrow.js'
import { loadTextContext } from './text-context.js'
import {
  type StreamProgress,
  boundedCandidates,
  candidateQuery,
  countCandidates,
  matchingRows,
  narrowingFor,
  withinFewDays,
} from './stream.js'
import { searchTuning } from './tuning.js'
import { loadSubjects } from './subjects.js'

export interface SearchInput extends KeysetPageInput, Omit<TransactionFilter, 'account_id'> {
  q?: string | undefined
}

export interface SearchResult {
  query: string
  /** Every match, unless total_is_lower_bound. */
  total: number
  /**
   * true when counting stopped at its budget (a query the database cannot
   * decide alone, over a large ledger): `total` is then the matches found so
   * far, and there are more (docs/search.md "How it runs").
   */
  total_is_lower_bound: boolean
  transactions: TransactionJson[]
  /** The cursor of the next page; null on the last page (and with limit 0). */
  next_cursor: string | null
}

/** What a search reads with: a database handle (the service's, or a read pool worker's own). */
export interface SearchDeps {
  db: DbExecutor
  log: Pick<Logger, 'error'>
  /** The service's closing signal: a long search ends with ShuttingDown (503) once aborted. */
  closing?: AbortSignal | undefined
  /**
   * Candidates the matcher may look at to count a query the database cannot
   * decide alone, beyond those of the page (default COUNT_BUDGET_CANDIDATES).
   */
  countBudget?: number | undefined
  /** Told how the search ran: all in SQL, or through the matcher (tests, benchmarks). */
  onPlan?: ((plan: SearchPlan) => void) | undefined
}

/** 'sql': the database counted and paged; 'matcher': candidates streamed through the matcher. */
export type SearchPlan = 'sql' | 'matcher'

/**
 * About a third of a second of matcher time on a small machine: a broad query
 * the database cannot decide answers its page and a lower bound rather than
 * stream a million rows to count them.
 */
export const COUNT_BUDGET_CANDIDATES = 25_000

export function searchTransactions(ctx: ServiceContext, input: SearchInput): Promise<SearchResult> {
  return searchWith({ db: ctx.db.kysely, log: ctx.log, closing: ctx.signals.closing }, input)
}

/** One search over `deps.db`; see searchTransactions. */
export async function searchWith(deps: SearchDeps, input: SearchInput): Promise<SearchResult> {
  throwIfClosing(deps.closing)
  const text = input.q ?? ''
  const query = parseQueryText(text)
  const filter = transactionFilterOf(input)
  // A cursor is bound to the query text as well as to the filters.
  const page = resolveKeysetPage(input, [transactionListScope('search', filter), text])
  const { limit, offset } = page
  // A long scan lets other requests run between its pages (SQLite reads are
  // synchronous) and stops when the service closes (503, docs/architecture.md).
  const stream = { pause: yieldToEventLoop, signal: deps.closing, order: page.order }
  const db = deps.db
  // A few days' rows (the dashboard's month) are read one by one in date
  // order, count and page alike, rather than joined from the ledger-wide sets
  // of what each term matches (`coffee` in a month of a million rows: 1 s).
  const byDate = await withinFewDays(db, query, filter)
  const textContext = await loadTextContext(db, query)
  const narrowing = narrowingFor(db, query, { text: textContext, dateOrder: byDate })

  if (narrowing.exact) {
    // SQL selects exactly what the matcher accepts (property-tested in
    // test/search-narrowing.test.ts): count and page in SQL, and still let the
    // matcher confirm the page.
    const matched = await countExactly(db, query, narrowing, filter, textContext, byDate)
    // The count is exact, so a page past it holds nothing: not read at all.
    // A page of many matches walks the date index and stops at the page; a
    // page of few reads its set and sorts it, at most what the count cost,
    // where walking the date index towards rows that are not there could
    // read every row at random (5 s for no match at a million rows).
    let fetched: TransactionRow[] = []
    if (matched > offset) {
      let candidates = byDate
        ? candidateQuery(db, narrowing, filter)
        : matched > searchTuning.dateOrderThreshold
          ? candidateQuery(
              db,
              narrowingFor(db, query, { dateOrder: true, text: textContext }),
              filter,
            )
          : boundedCandidates(db, narrowing, filter)
      if (page.after) candidates = afterKey(candidates, page.after, page.order)
      fetched = await inKeysetOrder(candidates.selectAll('transactions'), page.order)
        .limit(limit + 1)
        .offset(offset)
        .execute()
    }
    const { rows, next_cursor } = keysetPageOf(fetched, page)
    const subjects = await loadSubjects(db, rows)
    if (subjects.every((s) => matches(query, s))) {
      deps.onPlan?.('sql')
      return {
        query: text,
        total: matched,
        total_is_lower_bound: false,
        transactions: subjects.map((s) => s.transaction),
        next_cursor,
      }
    }
    deps.log.error({ query: text }, 'search: exact pre-filter disagreed with the matcher')
  }
  deps.onPlan?.('matcher')

  // The page streams through the matcher (from the cursor's row on, or over
  // the offset); the count goes on from there within a budget of candidates,
  // and what it found by then is a lower bound.
  const budget = deps.countBudget ?? COUNT_BUDGET_CANDIDATES
  const pageRows: TransactionRow[] = []
  const progress: StreamProgress = { candidates: 0, complete: false }
  let total = 0
  let pageFullAt = Number.POSITIVE_INFINITY
  const counting = () => ({
    ...stream,
    progress,
    maxCandidates: () => pageFullAt + budget,
  })
  if (page.after) {
    pages: for await (const rows of matchingRows(db, query, filter, {
      ...stream,
      after: page.after,
    })) {
      for (const row of rows) {
        pageRows.push(row)
        if (pageRows.length > limit) break pages
      }
    }
    pageFullAt = 0
    for await (const rows of matchingRows(db, query, filter, counting())) total += rows.length
  } else {
    for await (const rows of matchingRows(db, query, filter, counting())) {
      for (const row of rows) {
        if (total >= offset && pageRows.length <= limit) pageRows.push(row)
        total++
      }
      if (pageRows.length > limit && pageFullAt === Number.POSITIVE_INFINITY)
        pageFullAt = progress.candidates
    }
  }
  const { rows, next_cursor } = keysetPageOf(pageRows, page)
  return {
    query: text,
    total,
    total_is_lower_bound: !progress.complete,
    transactions: await toTransactionsJson(db, rows),
    next_cursor,
  }
}

/**
 * The exact count of an exact narrowing. `NOT x` (a broad query: most rows)
 * counts as the filtered rows less those where x holds, each an index count,
 * rather than testing x on every row; so does `-a -b`, as NOT (a OR b).
 */
async function countExactly(
  db: DbExecutor,
  query: QueryNode,
  narrowing: Narrowing,
  filter: TransactionFilter,
  text: TextContext | undefined,
  dateOrder: boolean,
): Promise<number> {
  // Within a few days an AND of NOTs reads those days' rows sooner than it unites
  // the parts' sets over the whole ledger (`-coffee -seattle` in a month: 200 ms
  // against 340).
  const negated = query.kind === 'not' || !dateOrder ? negatedPart(query) : null
  const inner = negated && narrowingFor(db, negated, { text, dateOrder })
  // An OR of too many alternatives does not narrow exactly: counted as it is.
  if (!inner?.exact) return countCandidates(db, narrowing, filter)
  const [all, held] = await Promise.all([
    countCandidates(db, { where: null, exact: true }, filter),
    countCandidates(db, inner, filter),
  ])
  return all - held
}

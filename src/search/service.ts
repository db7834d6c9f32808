// GET /transactions/search and the search_transactions MCP tool (CONTRACT 7).
import { yieldToEventLoop } from '../clock.js'
import type { Logger } from 'pino'
import type { ServiceContext } from '../context.js'
import type { DbExecutor } from '../db/schema.js'
import type { TransactionJson } from '../ledger/json.js'
import { toTransactionsJson } from '../ledger/snapshots.js'
import type { TransactionRow } from '../ledger/tables.js'
import {
  olderThan,
  transactionListScope,
  type TransactionFilter,
} from '../ledger/transaction-query.js'
import { keysetPageOf, resolveKeysetPage, type KeysetPageInput } from '../page.js'
import { matches } from './match.js'
import { parseQueryText } from './parse.js'
import {
  candidateQuery,
  countCandidates,
  matchingRows,
  narrowingFor,
  searchTuning,
} from './stream.js'
import { loadSubjects } from './subjects.js'

export interface SearchInput extends KeysetPageInput, Omit<TransactionFilter, 'account_id'> {
  q?: string | undefined
}

export interface SearchResult {
  query: string
  total: number
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
}

export function searchTransactions(ctx: ServiceContext, input: SearchInput): Promise<SearchResult> {
  return searchWith({ db: ctx.db.kysely, log: ctx.log, closing: ctx.signals.closing }, input)
}

/** One search over `deps.db`; see searchTransactions. */
export async function searchWith(deps: SearchDeps, input: SearchInput): Promise<SearchResult> {
  const text = input.q ?? ''
  const query = parseQueryText(text)
  const filter: TransactionFilter = {
    label_key: input.label_key,
    label_value: input.label_value,
    since: input.since,
    until: input.until,
  }
  // A cursor is bound to the query text as well as to the filters.
  const page = resolveKeysetPage(input, [transactionListScope('search', filter), text])
  const { limit, offset } = page
  // A long scan lets other requests run between its pages (SQLite reads are
  // synchronous) and stops when the service closes (503, docs/architecture.md).
  const stream = { pause: yieldToEventLoop, signal: deps.closing }
  const db = deps.db
  const narrowing = narrowingFor(db, query)

  if (narrowing.exact) {
    // SQL selects exactly what the matcher accepts (property-tested in
    // test/search-narrowing.test.ts): count and page in SQL, and still let the
    // matcher confirm the page.
    const matched = await countCandidates(db, narrowing, filter)
    const paging =
      matched > searchTuning.dateOrderThreshold
        ? narrowingFor(db, query, { dateOrder: true })
        : narrowing
    let candidates = candidateQuery(db, paging, filter)
    if (page.after) candidates = olderThan(candidates, page.after)
    const fetched = await candidates
      .selectAll('transactions')
      .orderBy('date', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .offset(offset)
      .execute()
    const { rows, next_cursor } = keysetPageOf(fetched, page)
    const subjects = await loadSubjects(db, rows)
    if (subjects.every((s) => matches(query, s))) {
      return {
        query: text,
        total: matched,
        transactions: subjects.map((s) => s.transaction),
        next_cursor,
      }
    }
    deps.log.error({ query: text }, 'search: exact pre-filter disagreed with the matcher')
  }

  // Count every match; load in full only the rows of the page (and one more, to
  // know whether a next page exists). With a cursor the page streams from its row
  // on, and the count is a stream of its own.
  let total = 0
  const pageRows: TransactionRow[] = []
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
    for await (const rows of matchingRows(db, query, filter, stream)) total += rows.length
  } else {
    for await (const rows of matchingRows(db, query, filter, stream)) {
      for (const row of rows) {
        if (total >= offset && pageRows.length <= limit) pageRows.push(row)
        total++
      }
    }
  }
  const { rows, next_cursor } = keysetPageOf(pageRows, page)
  return { query: text, total, transactions: await toTransactionsJson(db, rows), next_cursor }
}

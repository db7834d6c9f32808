// GET /transactions/search and the search_transactions MCP tool (CONTRACT 7).
import type { ServiceContext } from '../context.js'
import type { TransactionJson } from '../ledger/json.js'
import { toTransactionsJson } from '../ledger/snapshots.js'
import type { TransactionRow } from '../ledger/tables.js'
import type { TransactionFilter } from '../ledger/transaction-query.js'
import { resolvePage, type PageInput } from '../page.js'
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

export interface SearchInput extends PageInput, Omit<TransactionFilter, 'account_id'> {
  q?: string | undefined
}

export interface SearchResult {
  query: string
  total: number
  transactions: TransactionJson[]
}

export async function searchTransactions(
  ctx: ServiceContext,
  input: SearchInput,
): Promise<SearchResult> {
  const text = input.q ?? ''
  const query = parseQueryText(text)
  const { limit, offset } = resolvePage(input)
  const filter: TransactionFilter = {
    label_key: input.label_key,
    label_value: input.label_value,
    since: input.since,
    until: input.until,
  }
  const db = ctx.db.kysely
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
    const rows = await candidateQuery(db, paging, filter)
      .selectAll('transactions')
      .orderBy('date', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute()
    const subjects = await loadSubjects(db, rows)
    if (subjects.every((s) => matches(query, s))) {
      return {
        query: text,
        total: matched,
        transactions: subjects.map((s) => s.transaction),
      }
    }
    ctx.log.error({ query: text }, 'search: exact pre-filter disagreed with the matcher')
  }

  // Count every match; load in full only the rows of the page.
  let total = 0
  const pageRows: TransactionRow[] = []
  for await (const rows of matchingRows(db, query, filter)) {
    for (const row of rows) {
      if (total >= offset && pageRows.length < limit) pageRows.push(row)
      total++
    }
  }
  return { query: text, total, transactions: await toTransactionsJson(db, pageRows) }
}

// Issue 13 item 3: oldest first (order=asc) must cost what newest first costs.
// The query plans of a list page, first and by cursor, in both orders: the
// (date, id) indexes walk forwards or backwards and nothing sorts the table.
// SQLite: no temp b-tree for the ORDER BY. PostgreSQL: with sorting disabled the
// planner still finds a plan without a Sort node, so an index gives the order.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CompiledQuery, sql } from 'kysely'
import type { DbExecutor } from '../src/db/schema.js'
import { ingestBatchInUnit } from '../src/ledger/ingest.js'
import {
  afterKey,
  filteredTransactions,
  inKeysetOrder,
  type TransactionFilter,
} from '../src/ledger/transaction-query.js'
import type { KeysetKey, SortOrder } from '../src/page.js'
import { candidateQuery, narrowingFor } from '../src/search/stream.js'
import { parseQuery } from '../src/search/index.js'
import { ENGINE, startTestApp } from './helpers/app.js'

const ROWS = 3000

/** The plan of one compiled query, as text (one line per step). */
async function planOf(db: DbExecutor, query: CompiledQuery): Promise<string> {
  if (ENGINE === 'sqlite') {
    const plan = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    )
    return plan.rows.map((r) => r.detail).join('\n')
  }
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_sort = off`.execute(trx)
    const plan = await trx.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
    )
    return plan.rows.map((r) => r['QUERY PLAN']).join('\n')
  })
}

function assertWalksIndex(plan: string, index: string, what: string): void {
  if (ENGINE === 'sqlite') {
    assert.doesNotMatch(plan, /TEMP B-TREE/, `${what} sorts:\n${plan}`)
    assert.match(plan, new RegExp(`USING (COVERING )?INDEX ${index}\\b`), `${what}:\n${plan}`)
  } else {
    assert.doesNotMatch(plan, /\bSort\b/, `${what} sorts:\n${plan}`)
    assert.match(plan, new RegExp(`Index (Only )?Scan( Backward)? using ${index}\\b`), what)
  }
}

test('a page in either order, first or by cursor, walks the (date, id) index', async (t) => {
  const app = await startTestApp(t)
  const db = app.ctx.db.kysely
  await app.ctx.ledger.mutate((uow) =>
    ingestBatchInUnit(uow, {
      source: 'csv',
      organizations: [{ id: 'csv:bank', name: 'Bank' }],
      accounts: ['a', 'b'].map((name) => ({
        id: `csv:${name}`,
        org_id: 'csv:bank',
        name,
        currency: 'USD',
        balance: '0',
      })),
      transactions: Array.from({ length: ROWS }, (_, i) => ({
        id: `csv:${String(i).padStart(5, '0')}`,
        account_id: i % 2 === 0 ? 'csv:a' : 'csv:b',
        amount: `-${i}.00`,
        date: new Date(Date.UTC(2020, 0, 1) + (i % 900) * 86_400_000).toISOString(),
        description: `row ${i}`,
        payee: null,
        memo: null,
        pending: false,
      })),
    }),
  )
  await sql`analyze`.execute(db)
  const key: KeysetKey = { date: '2021-06-01T00:00:00.000Z', id: 'csv:01500' }
  const lists: Array<{ name: string; filter: TransactionFilter; index: string }> = [
    { name: 'GET /transactions', filter: {}, index: 'transactions_date' },
    {
      name: 'GET /accounts/{id}/transactions',
      filter: { account_id: 'csv:a' },
      index: 'transactions_account_date',
    },
    { name: 'with since', filter: { since: '2020-03-01' }, index: 'transactions_date' },
  ]
  for (const { name, filter, index } of lists) {
    for (const order of ['desc', 'asc'] as SortOrder[]) {
      const first = inKeysetOrder(filteredTransactions(db, filter).selectAll(), order).limit(101)
      assertWalksIndex(await planOf(db, first.compile()), index, `${name} ${order} first`)
      const deep = inKeysetOrder(
        afterKey(filteredTransactions(db, filter), key, order).selectAll(),
        order,
      ).limit(101)
      assertWalksIndex(await planOf(db, deep.compile()), index, `${name} ${order} by cursor`)
    }
  }
  // A search the matcher decides streams its candidates the same way.
  const narrowing = narrowingFor(db, parseQuery('label:x~y OR row'), { idSets: false })
  for (const order of ['desc', 'asc'] as SortOrder[]) {
    const page = inKeysetOrder(
      afterKey(candidateQuery(db, narrowing, {}), key, order).selectAll('transactions'),
      order,
    ).limit(500)
    assertWalksIndex(await planOf(db, page.compile()), 'transactions_date', `search ${order}`)
  }
})

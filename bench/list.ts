// Benchmark (issue 16): keyset paging. GET /transactions (and an account's list,
// and search) at the first page and at the last rows of a generated ledger of
// COFFER_BENCH_LIST_ROWS transactions (default 100,000; 1,000,000 for the issue's
// figure), by cursor and by offset; p50 and p95 of the default page (100 rows).
// Each figure is printed against the first page of the same list in the same run.
// Every case runs newest first (order=desc, the default) and oldest first (asc):
// the (date, id) index walks either way, so the two columns should agree.
// "page" times the page alone (the rows and their labels and extensions); "list"
// the whole answer, with its exact `total` (kept per account since migration
// 0016; "count(*)" times what counting the rows cost instead).
// Target: p50 at the first page and at the millionth row by cursor, with the
// total, under 20 ms. COFFER_BENCH_ENGINE=postgres runs it on PostgreSQL.
import { resolveKeysetPage, type KeysetPage, type SortOrder } from '../src/page.js'
import { toTransactionsJson } from '../src/ledger/snapshots.js'
import {
  filteredTransactions,
  transactionListScope,
  type TransactionFilter,
} from '../src/ledger/transaction-query.js'
import { listTransactions, transactionPage } from '../src/ledger/transactions.js'
import { searchTransactions } from '../src/search/index.js'
import type { ServiceContext } from '../src/context.js'
import { ACCOUNTS, generateLedgerIn } from './lib/generate-ledger.js'
import { benchEngine, cursorAt, freshDatabase, openAnotherContext, timed } from './support.js'

const ROWS = Number(process.env.COFFER_BENCH_LIST_ROWS ?? 100_000)
const RUNS = Number(process.env.COFFER_BENCH_LIST_RUNS ?? 15)
const LIMIT = 100
const LABEL_WIDTH = 86

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

async function sample(work: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  await work() // warm
  const times: number[] = []
  for (let run = 0; run < RUNS; run++) times.push((await timed(work)).ms)
  times.sort((a, b) => a - b)
  return { p50: percentile(times, 50), p95: percentile(times, 95) }
}

async function countOf(ctx: ServiceContext, filter: TransactionFilter): Promise<number> {
  const row = await filteredTransactions(ctx.db.kysely, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

interface Case {
  label: string
  run: () => Promise<unknown>
}

export async function benchList(): Promise<void> {
  const engine = benchEngine()
  const db = await freshDatabase('list', engine)
  await db.ctx.close() // schema only; generate with a bare driver handle
  const { ms: generateMs } = await timed(() => generateLedgerIn(db, { rows: ROWS }))
  const ctx = await openAnotherContext(db)
  try {
    console.log(
      `\n## list paging (${ROWS.toLocaleString('en-US')} transactions${engine === 'postgres' ? ' on PostgreSQL' : ''}, generated in ${(generateMs / 1000).toFixed(1)} s; limit ${LIMIT}; ${RUNS} runs)`,
    )
    console.log(
      `  ${'case'.padEnd(LABEL_WIDTH)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'/ first'.padStart(8)}`,
    )
    const lists: Array<{ name: string; filter: TransactionFilter }> = [
      { name: 'GET /transactions', filter: {} },
      { name: `GET /accounts/{id}/transactions`, filter: { account_id: ACCOUNTS[0].id } },
    ]
    let deepCursorList = Number.NaN
    let firstList = Number.NaN
    const orders: SortOrder[] = ['desc', 'asc']
    for (const { name, filter } of lists) {
      const rows = await countOf(ctx, filter)
      const deep = rows - LIMIT // the last page: it holds the list's last row
      const scope = transactionListScope('transactions', filter)
      const kept = (await listTransactions(ctx, { ...filter, limit: 0 })).total
      if (kept !== rows) throw new Error(`${name}: total ${kept}, but ${rows} rows`)
      const counted = await sample(() => countOf(ctx, filter))
      console.log(
        `  ${`${name} count(*) of the rows (the total before migration 0016)`.padEnd(LABEL_WIDTH)} ${counted.p50.toFixed(1).padStart(8)} ${counted.p95.toFixed(1).padStart(8)}`,
      )
      for (const order of orders) {
        const cursor = await cursorAt(ctx, filter, scope, deep, order)
        const page = (input: { cursor?: string; offset?: number }): KeysetPage =>
          resolveKeysetPage({ limit: LIMIT, order, ...input }, scope)
        const pageOnly = async (p: KeysetPage) =>
          toTransactionsJson(ctx.db.kysely, (await transactionPage(ctx.db.kysely, filter, p)).rows)
        const list = (input: { cursor?: string; offset?: number }) => () =>
          listTransactions(ctx, { ...filter, limit: LIMIT, order, ...input })
        // The cursor really is at the end: its page is the list's last.
        const last = await list({ cursor })()
        if (last.transactions.length !== LIMIT || last.next_cursor !== null)
          throw new Error(`${name} ${order}: the deep cursor is not at the last page`)
        const at = `row ${deep.toLocaleString('en-US')}`
        const o = `order=${order}`
        const cases: Case[] = [
          { label: `${name} ${o} page, first`, run: () => pageOnly(page({})) },
          { label: `${name} ${o} page, ${at} by cursor`, run: () => pageOnly(page({ cursor })) },
          {
            label: `${name} ${o} page, ${at} by offset`,
            run: () => pageOnly(page({ offset: deep })),
          },
          { label: `${name} ${o} list (+ exact total), first`, run: list({}) },
          { label: `${name} ${o} list (+ exact total), ${at} by cursor`, run: list({ cursor }) },
          {
            label: `${name} ${o} list (+ exact total), ${at} by offset`,
            run: list({ offset: deep }),
          },
        ]
        let first = 0
        for (const [i, c] of cases.entries()) {
          const { p50, p95 } = await sample(c.run)
          if (i % 3 === 0) first = p50
          if (filter.account_id === undefined && order === 'desc') {
            if (i === 3) firstList = p50
            if (i === 4) deepCursorList = p50
          }
          console.log(
            `  ${c.label.padEnd(LABEL_WIDTH)} ${p50.toFixed(1).padStart(8)} ${p95.toFixed(1).padStart(8)} ${`${(p50 / first).toFixed(1)}×`.padStart(8)}`,
          )
        }
      }
    }
    // Search pages by the same cursor: the empty query (every row; its SQL is exact).
    for (const order of orders) {
      const deep = ROWS - LIMIT
      const scope = [transactionListScope('search', {}), '']
      const cursor = await cursorAt(ctx, {}, scope, deep, order)
      const at = `row ${deep.toLocaleString('en-US')}`
      const search = (input: { cursor?: string; offset?: number }) => () =>
        searchTransactions(ctx, { q: '', limit: LIMIT, order, ...input })
      const first = await sample(search({}))
      const o = `order=${order}`
      for (const [label, s] of [
        [`search q="" ${o} (+ exact total), first`, first],
        [`search q="" ${o} (+ exact total), ${at} by cursor`, await sample(search({ cursor }))],
        [
          `search q="" ${o} (+ exact total), ${at} by offset`,
          await sample(search({ offset: deep })),
        ],
      ] as const) {
        console.log(
          `  ${label.padEnd(LABEL_WIDTH)} ${s.p50.toFixed(1).padStart(8)} ${s.p95.toFixed(1).padStart(8)} ${`${(s.p50 / first.p50).toFixed(1)}×`.padStart(8)}`,
        )
      }
    }
    const met = Math.max(firstList, deepCursorList) < 20
    console.log(
      `  target: GET /transactions p50 with its total, first page ${firstList.toFixed(1)} ms and at the last row by cursor ${deepCursorList.toFixed(1)} ms, both < 20 ms: ${met ? 'ok' : 'MISSES TARGET'}`,
    )
  } finally {
    await ctx.close()
    await db.dispose().catch(() => {})
  }
}

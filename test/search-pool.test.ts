// The search read pool (issue 16, "the event loop stays free"; src/search/pool/):
// on SQLite, searches run in worker threads over read-only connections. A search
// answered by a worker equals the in-process answer, 400s included; /healthz and
// a list page answer while a slow search runs; the MCP tool goes through the
// pool; a worker that dies is replaced; closing with a search in flight is
// prompt and answers 503. PostgreSQL runs searches in-process (pg is
// asynchronous already): there only the equality test applies.
import assert from 'node:assert/strict'
import { renameSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { sql } from 'kysely'
import { toProblem } from '../src/http/problem.js'
import { recountTransactions } from '../src/ledger/transaction-counts.js'
import { searchTransactions, type SearchInput } from '../src/search/index.js'
import { ENGINE, startTestApp, type RequestOptions, type TestAppHandle } from './helpers/app.js'
import { expectStatus } from './helpers/http.js'
import { createAccount, createTransaction } from './helpers/ledger.js'
import { connectMcp, toolOk } from './helpers/mcp.js'

const TOKEN = 'search-pool-test-dashboard-token-0123456'
const POOL = ENGINE === 'sqlite'
const SQLITE_ONLY = POOL ? false : 'the read pool serves SQLite; PostgreSQL searches in-process'

/** Rows that make SLOW_QUERY run about a second in a worker (2 shared cores). */
const ROWS = 250_000
/**
 * A needle of one letter outside ASCII: no trigram holds it, so SQL cannot
 * narrow it and every row goes through the matcher; no row matches, so the page
 * never fills and the search reads to the end (its count budget starts only
 * once the page is full).
 */
const SLOW_QUERY = 'ü'

async function start(t: TestContext, workers: number): Promise<TestAppHandle> {
  const started = await startTestApp(t, {
    env: { SERVICE_DASHBOARD_TOKEN: TOKEN, SERVICE_SEARCH_WORKERS: String(workers) },
  })
  return Object.assign(Object.create(started) as TestAppHandle, {
    request: (method: string, path: string, options: RequestOptions = {}) =>
      started.request(method, path, { token: TOKEN, ...options }),
  })
}

/** What a search settles to, an answer or the problem details of its error. */
async function settle(search: Promise<unknown>): Promise<unknown> {
  try {
    return { ok: await search }
  } catch (error) {
    return { problem: toProblem(error, { log: { error: () => undefined } as never }) }
  }
}

/** ROWS transactions in one account, inserted in bulk SQL (SQLite). */
async function fillLedger(app: TestAppHandle): Promise<void> {
  const account = await createAccount(app, { name: 'Checking', currency: 'USD' })
  const now = '2025-01-01T00:00:00Z'
  await sql
    .raw(
      `with recursive s(i) as (select 1 union all select i + 1 from s where i < ${ROWS})
      insert into transactions (id, account_id, amount, date, description, payee, memo, pending, source, created_at, updated_at, synced_at)
      select 'gen:' || substr('0000000' || i, -8), '${account.id}', '-' || (i % 10000) || '.25',
        strftime('%Y-%m-%dT%H:%M:%SZ', '2015-01-01', '+' || (i % 3650) || ' days', '+' || (i % 86400) || ' seconds'),
        'Card purchase at Shop ' || (i % 180) || ' #' || i, 'Shop ' || (i % 180), null, 0, 'manual', '${now}', '${now}', '${now}'
      from s`,
    )
    .execute(app.ctx.db.kysely)
  await sql.raw('delete from search_pending').execute(app.ctx.db.kysely)
  await recountTransactions(app.ctx.db.kysely)
}

test('a search answered by a worker equals the in-process answer', async (t) => {
  const app = await start(t, 2)
  const acct = await createAccount(app, { name: 'Everyday Wallet', currency: 'USD' })
  for (let i = 0; i < 12; i++) {
    const tx = await createTransaction(app, {
      account_id: acct.id,
      amount: `-${i + 1}.50`,
      date: `2024-0${(i % 9) + 1}-1${i % 10}`,
      description: i % 3 === 0 ? `Coffee at Blue Bottle ${i}` : `Groceries ${i}`,
    })
    if (i % 4 === 0) {
      await expectStatus(app, 'PUT', `/api/v1/transactions/${tx.id}/labels`, 200, {
        labels: { category: 'food' },
      })
    }
  }
  const inputs: SearchInput[] = [
    {},
    { q: 'coffee' },
    { q: 'amount:<-5 -coffee', limit: 3 },
    { q: 'category:food OR date:2024-02', limit: 2, offset: 1 },
    { q: 'NOT (groceries AND amount:-100..-3)', since: '2024-03-01' },
    { q: 'amount:>>1' }, // does not parse: 400
    { q: 'coffee', cursor: 'not-a-cursor' }, // 400 from inside the search
    { q: 'coffee', order: 'asc' },
    { q: 'category:food OR date:2024-02', limit: 2, offset: 1, order: 'asc' },
    { q: 'label:category~oo', order: 'asc' }, // decided by the matcher
  ]
  for (const input of inputs) {
    assert.deepEqual(
      await settle(app.searches.run(input)),
      await settle(searchTransactions(app.ctx, input)),
      JSON.stringify(input),
    )
  }
  // Paging by cursor through the pool walks the same pages as in-process, in
  // both orders (oldest first is the reverse).
  const walked: Record<'desc' | 'asc', string[]> = { desc: [], asc: [] }
  for (const order of ['desc', 'asc'] as const) {
    let cursor: string | undefined
    let pages = 0
    do {
      const input: SearchInput = { q: '-coffee', limit: 3, order, ...(cursor ? { cursor } : {}) }
      const pooled = await app.searches.run(input)
      assert.deepEqual(pooled, await searchTransactions(app.ctx, input))
      walked[order].push(...pooled.transactions.map((tx) => tx.id))
      if (pages === 0) {
        // A cursor of the other order is the same 400 from a worker.
        const other = {
          q: '-coffee',
          order: order === 'asc' ? 'desc' : 'asc',
          cursor: pooled.next_cursor!,
        } as const
        const refused = await settle(app.searches.run(other))
        assert.deepEqual(refused, await settle(searchTransactions(app.ctx, other)))
        assert.equal(
          (refused as { problem?: { status: number } }).problem?.status,
          400,
          JSON.stringify(refused),
        )
      }
      cursor = pooled.next_cursor ?? undefined
      pages++
    } while (cursor)
    assert.equal(pages, 3)
  }
  assert.deepEqual(walked.asc, [...walked.desc].reverse())
  // Over HTTP a bad query is the same 400 problem as ever.
  const bad = await app.request('GET', '/api/v1/transactions/search?q=amount%3A%3E%3E1')
  assert.equal(bad.status, 400)
  assert.match(bad.body.detail, /^q: .* at offset \d+$/)
  // One search after another needs one worker.
  assert.equal(app.searches.workers, POOL ? 1 : 0)
})

test('the search_transactions tool goes through the pool', async (t) => {
  const app = await start(t, 1)
  const acct = await createAccount(app, { name: 'Wallet', currency: 'USD' })
  await createTransaction(app, {
    account_id: acct.id,
    amount: '-3.00',
    date: '2024-05-01',
    description: 'Tea',
  })
  assert.equal(app.searches.workers, 0)
  const client = await connectMcp(t, app, TOKEN)
  const found = await toolOk(client, 'search_transactions', { q: 'tea' })
  assert.equal(found.total, 1)
  // Only a search starts a worker.
  assert.equal(app.searches.workers, POOL ? 1 : 0)
})

test(
  'healthz and a list page answer while a slow search runs',
  { skip: SQLITE_ONLY },
  async (t) => {
    const app = await start(t, 2)
    await fillLedger(app)
    // Workers start on demand; a first search starts one, so the slow one finds it ready.
    await expectStatus(app, 'GET', '/api/v1/transactions/search?q=shop&limit=1', 200)
    const order: string[] = []
    const searched = expectStatus(
      app,
      'GET',
      `/api/v1/transactions/search?q=${encodeURIComponent(SLOW_QUERY)}`,
      200,
    ).then((body) => {
      order.push('search')
      return body
    })
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.equal(order.length, 0, 'the search ended too soon to show anything: raise ROWS')
    const health = app.request('GET', '/healthz').then((res) => {
      assert.equal(res.status, 200)
      order.push('healthz')
    })
    const list = expectStatus(app, 'GET', '/api/v1/transactions?limit=1', 200).then(() => {
      order.push('list')
    })
    await Promise.all([health, list])
    const body = await searched
    assert.deepEqual([body.total, body.total_is_lower_bound], [0, false])
    assert.deepEqual(order.slice(2), ['search'], `answered in the order ${order.join(', ')}`)
  },
)

test(
  'a worker that dies is replaced: its search is a 503, the next one works',
  { skip: SQLITE_ONLY },
  async (t) => {
    const app = await start(t, 1)
    // A worker opens the file by name; while it is gone, a new worker dies at start.
    const path = join(app.dir, 'coffer.db')
    renameSync(path, `${path}.away`)
    const failed = await app.request('GET', '/api/v1/transactions/search?q=x')
    renameSync(`${path}.away`, path)
    assert.equal(failed.status, 503, failed.text)
    assert.equal(failed.body.detail, 'the search stopped unexpectedly; try again')
    assert.ok(app.logs.some((line) => line.includes('search: a worker stopped unexpectedly')))
    await expectStatus(app, 'GET', '/api/v1/transactions/search?q=x', 200)
  },
)

test(
  'closing with a search in flight in a worker ends promptly, with a 503',
  { skip: SQLITE_ONLY },
  async (t) => {
    const app = await start(t, 2)
    await fillLedger(app)
    await expectStatus(app, 'GET', '/api/v1/transactions/search?q=shop&limit=1', 200)
    const searched = app
      .request('GET', `/api/v1/transactions/search?q=${encodeURIComponent(SLOW_QUERY)}`)
      .then(
        (res) => res.status,
        () => 'closed',
      )
    await new Promise((resolve) => setTimeout(resolve, 200))
    const started = Date.now()
    await app.stop()
    const stoppedMs = Date.now() - started
    assert.ok([503, 'closed'].includes(await searched), `the search answered ${await searched}`)
    assert.ok(stoppedMs < 3_000, `closing took ${stoppedMs} ms`)
    assert.equal(app.searches.workers, 0)
  },
)

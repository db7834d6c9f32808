// Bounded shutdown (issue 16, docs/architecture.md "Shutdown"): `coffer serve`
// stops within 10 s of SIGTERM whatever it is doing. A broad search over a large
// ledger (a NOT over free text streams every row through the matcher) is under
// way when SIGTERM arrives: the process exits 0 within the bound, the search is
// answered 503 (or its connection closes), never 500, and a write committed
// before the signal is there after a restart. The program runs from source
// (tsx), as `npm test` runs everything, on the engine under test.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type AddressInfo } from 'node:net'
import { test, type TestContext } from 'node:test'
import pg from 'pg'
import SqliteDatabase from '../src/db/sqlite-binding.js'
import { ShuttingDown } from '../src/errors.js'
import type { IngestTransaction } from '../src/ledger/ingest-batch.js'
import { RECOUNT_TRANSACTIONS_SQL } from '../src/ledger/transaction-counts.js'
import { mergeBatch, SYNC_UNIT_ROWS } from '../src/sync/merge-batch.js'
import { zeroCounts } from '../src/sync/runs.js'
import { ENGINE, POSTGRES_DSN, processSandbox, startTestApp } from './helpers/app.js'
import { createAccount, createTransaction, csvBatch } from './helpers/ledger.js'
import { cofferArgs } from './helpers/program.js'
import { expectStatus } from './helpers/http.js'

/** The bound under test (CONTRACT: shutdown bounded to 10 s), plus slack for process exit. */
const STOP_BOUND_MS = 12_000
/**
 * Rows that make the search below run well past SIGNAL_AFTER_MS uninterrupted: on
 * a quiet 2-core machine about 3 s on PostgreSQL (250,000 rows took 1.4 s once
 * its per-row path got faster) and longer on SQLite.
 */
const ROWS = 500_000
/**
 * Defeats SQL narrowing: a needle of one letter outside ASCII (no trigram holds
 * it) that no row has, so every row goes through the matcher, page by page, and
 * the page never fills (the count budget starts only once it has).
 */
const BROAD_QUERY = 'ü'
/** How long the search runs before SIGTERM (it must still be running then). */
const SIGNAL_AFTER_MS = 800

interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

interface Sandbox {
  env: Record<string, string>
  dir: string
  /** Fills the migrated database with ROWS transactions, in bulk SQL. */
  generate(): Promise<void>
}

async function sandbox(t: TestContext): Promise<Sandbox> {
  const { dir, dbPath, schema, env: base } = await processSandbox(t, 'shutdown')
  const env = { ...base, SERVICE_SERVER_ADDR: '127.0.0.1:0' }
  return {
    env,
    dir,
    async generate() {
      const now = '2025-01-01T00:00:00Z'
      const org = `insert into organizations (id, name, domain, source, created_at, updated_at)
        values ('manual', 'Manual', null, 'manual', '${now}', '${now}') on conflict do nothing`
      const account = `insert into accounts (id, org_id, name, currency, balance, source, created_at, updated_at, synced_at)
        values ('gen:checking', 'manual', 'Checking', 'USD', '0', 'manual', '${now}', '${now}', '${now}')`
      // One row in 50 names Starbucks; dates spread over ten years.
      const columns = `(id, account_id, amount, date, description, payee, memo, pending, source, created_at, updated_at, synced_at)`
      if (schema) {
        const client = new pg.Client({ connectionString: POSTGRES_DSN! })
        await client.connect()
        try {
          await client.query(`set search_path = ${schema}`)
          await client.query(org)
          await client.query(account)
          await client.query(`insert into transactions ${columns}
            select 'gen:' || lpad(i::text, 8, '0'), 'gen:checking', '-' || (i % 10000)::text || '.25',
              to_char(timestamp '2015-01-01' + (i % 3650) * interval '1 day' + (i % 86400) * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
              'Card purchase at ' || case when i % 50 = 0 then 'Starbucks' else 'Shop ' || (i % 180)::text end || ' #' || i::text,
              case when i % 50 = 0 then 'Starbucks' else 'Shop ' || (i % 180)::text end,
              null, 0, 'csv', '${now}', '${now}', '${now}'
            from generate_series(1, ${ROWS}) as i`)
          for (const statement of RECOUNT_TRANSACTIONS_SQL) await client.query(statement)
          await client.query('analyze')
        } finally {
          await client.end()
        }
        return
      }
      const db = new SqliteDatabase(dbPath)
      try {
        db.exec(org)
        db.exec(account)
        db.exec(`with recursive s(i) as (select 1 union all select i + 1 from s where i < ${ROWS})
          insert into transactions ${columns}
          select 'gen:' || substr('0000000' || i, -8), 'gen:checking', '-' || (i % 10000) || '.25',
            strftime('%Y-%m-%dT%H:%M:%SZ', '2015-01-01', '+' || (i % 3650) || ' days', '+' || (i % 86400) || ' seconds'),
            'Card purchase at ' || case when i % 50 = 0 then 'Starbucks' else 'Shop ' || (i % 180) end || ' #' || i,
            case when i % 50 = 0 then 'Starbucks' else 'Shop ' || (i % 180) end,
            null, 0, 'csv', '${now}', '${now}', '${now}'
          from s`)
        // Every query is a candidate either way; nothing for the indexer to rebuild.
        db.exec('delete from search_pending')
        for (const statement of RECOUNT_TRANSACTIONS_SQL) db.exec(statement)
        db.exec('analyze')
      } finally {
        db.close()
      }
    },
  }
}

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SERVICE_')) out[name] = value
  }
  return { ...out, ...env }
}

interface Server {
  url: string
  child: ChildProcess
  output(): string
  exited: Promise<Exit>
}

function launch(args: string[], box: Sandbox): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, cofferArgs(args), {
    cwd: box.dir,
    env: childEnv(box.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  return { child, output: () => output }
}

function exitOf(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })))
}

async function migrate(box: Sandbox): Promise<void> {
  const { child, output } = launch(['migrate'], box)
  const r = await exitOf(child)
  assert.equal(r.code, 0, output())
}

async function serve(t: TestContext, box: Sandbox): Promise<Server> {
  const { child, output } = launch(['serve'], box)
  const exited = exitOf(child)
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  const deadline = Date.now() + 30_000
  let gone = false
  void exited.then(() => (gone = true))
  for (;;) {
    const match = /listening on (http:\/\/[^\s"]+)/.exec(output())
    if (match) return { url: match[1]!, child, output, exited }
    if (gone || Date.now() > deadline) throw new Error(`coffer serve did not start:\n${output()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

test(`SIGTERM during a long search stops coffer serve within 10 s (${ENGINE})`, async (t) => {
  const box = await sandbox(t)
  await migrate(box)
  await box.generate()

  const server = await serve(t, box)
  // A write committed before the signal.
  const created = await fetch(`${server.url}/api/v1/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Before SIGTERM', currency: 'USD' }),
  })
  const body = await created.text()
  assert.equal(created.status, 201, body)
  const { id } = JSON.parse(body) as { id: string }

  const searchStarted = Date.now()
  let searchDone = false
  const search = fetch(
    `${server.url}/api/v1/transactions/search?q=${encodeURIComponent(BROAD_QUERY)}&limit=1`,
  ).then(
    async (res) => ({ status: res.status, body: await res.text() }),
    (error: unknown) => ({ status: 0, body: String(error) }),
  )
  void search.then(() => (searchDone = true))
  await new Promise((resolve) => setTimeout(resolve, SIGNAL_AFTER_MS))
  assert.equal(searchDone, false, 'the search ended before SIGTERM: make the ledger larger')

  const signalled = Date.now()
  server.child.kill('SIGTERM')
  const bound = setTimeout(() => server.child.kill('SIGKILL'), STOP_BOUND_MS + 5_000)
  const exit = await server.exited
  const stopMs = Date.now() - signalled
  clearTimeout(bound)
  t.diagnostic(`stopped ${stopMs} ms after SIGTERM, the search ${signalled - searchStarted} ms in`)
  assert.ok(stopMs <= STOP_BOUND_MS, `stopped after ${stopMs} ms:\n${server.output()}`)
  assert.equal(exit.signal, null, server.output())
  assert.equal(exit.code, 0, server.output())

  // A 503 problem, or a connection closed under it; never a 500 nor a full answer.
  const answer = await search
  if (answer.status !== 0) {
    assert.equal(answer.status, 503, answer.body)
    const problem = JSON.parse(answer.body) as { status: number; detail: string }
    assert.equal(problem.status, 503)
    assert.match(problem.detail, /shutting down/)
  }
  assert.match(server.output(), /shutting down/)
  assert.match(server.output(), /shutdown complete/)

  // After a restart the write is there.
  const again = await serve(t, box)
  const read = await fetch(`${again.url}/api/v1/accounts/${encodeURIComponent(id)}`)
  assert.equal(read.status, 200, await read.text())
  again.child.kill('SIGTERM')
  assert.equal((await again.exited).code, 0, again.output())
})

test('a closing service answers a search 503 and stops a sync between its units', async (t) => {
  const app = await startTestApp(t)
  const acct = await createAccount(app, { name: 'Wallet', currency: 'USD' })
  await createTransaction(app, {
    account_id: acct.id,
    amount: '-4.50',
    date: '2024-02-29T08:30:00Z',
    description: 'Coffee',
  })

  // A sync: the closing signal arrives while the first unit commits; the second never starts.
  const rows = (from: number): IngestTransaction[] =>
    Array.from({ length: SYNC_UNIT_ROWS }, (_, i) => ({
      id: `csv:row-${from + i}`,
      account_id: 'csv:checking',
      amount: '-1.00',
      date: '2024-03-01T00:00:00Z',
      description: `row ${from + i}`,
    }))
  const batch = csvBatch()
  const units: number[] = []
  await assert.rejects(
    mergeBatch(
      app.ctx,
      'csv',
      {
        organizations: batch.organizations!,
        accounts: batch.accounts!,
        transactions: (async function* () {
          yield rows(0)
          yield rows(SYNC_UNIT_ROWS)
          yield rows(2 * SYNC_UNIT_ROWS)
        })(),
        summary: () => ({ skipped: 0, warnings: [] }),
      },
      zeroCounts(),
      (merged) => {
        units.push(merged)
        app.ctx.signals.beginClosing()
      },
    ),
    ShuttingDown,
  )
  assert.deepEqual(units, [SYNC_UNIT_ROWS])
  const synced = await app.ctx.db.kysely
    .selectFrom('transactions')
    .where('source', '=', 'csv')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  assert.equal(Number(synced.n), SYNC_UNIT_ROWS, 'the committed unit stays, the next never ran')

  // A search that streams through the matcher ends with a 503 problem.
  const res = await app.request('GET', '/api/v1/transactions/search?q=-tea')
  assert.equal(res.status, 503, JSON.stringify(res.body))
  assert.match((res.body as { detail: string }).detail, /shutting down/)
})

const ADMIN = 'shutdown-test-dashboard-token-0123456789'

test('a closing service does not wait for outside servers that never answer: a webhook test delivery, a bridge read, an explorer call', async (t) => {
  // Accepts connections and never answers.
  const silent = createServer(() => {})
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.after(() => {
    silent.close()
    silent.unref()
  })
  const port = (silent.address() as AddressInfo).port
  const app = await startTestApp(t, {
    env: {
      SERVICE_DASHBOARD_TOKEN: ADMIN,
      SERVICE_WEBHOOKS_TIMEOUT: '10m',
      SERVICE_AGGREGATOR_ACCESS_URL: `http://user:pass@127.0.0.1:${port}/simplefin`,
      SERVICE_ETHEREUM_API_URL: `http://127.0.0.1:${port}/api`,
      SERVICE_ETHEREUM_API_KEY: 'explorer-key',
      SERVICE_ETHEREUM_ADDRESS: `0x${'ab'.repeat(20)}`,
    },
  })
  const admin = { token: ADMIN }
  const hook = await expectStatus(
    app,
    'POST',
    '/api/v1/webhooks',
    201,
    { url: `http://127.0.0.1:${port}/hook`, event_types: ['*'] },
    admin,
  )
  const testDelivery = app.request('POST', `/api/v1/webhooks/${hook.id}/test`, admin)
  const started = await expectStatus(app, 'POST', '/api/v1/sync', 202, undefined, admin)
  await new Promise((resolve) => setTimeout(resolve, 300))
  const closingAt = Date.now()
  app.ctx.signals.beginClosing()

  // A request that arrives now is a 503 problem, never Fastify's own shape.
  const late = await app.request('GET', '/api/v1/accounts', admin)
  assert.equal(late.status, 503)
  assert.match(late.headers.get('content-type') ?? '', /^application\/problem\+json/)
  assert.match(late.body.detail, /shutting down/)

  const answered = await testDelivery
  assert.equal(answered.status, 503, answered.text)
  // The service answers no more requests: the run and the webhook are read from the database.
  const db = app.ctx.db.kysely
  let run: { status: string; error: string | null } | undefined
  while (Date.now() - closingAt < 10_000) {
    run = await db
      .selectFrom('sync_runs')
      .select(['status', 'error'])
      .where('id', '=', started.run_id)
      .executeTakeFirst()
    if (run && run.status !== 'running') break
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  assert.ok(Date.now() - closingAt < 5_000, 'neither waited for its timeout')
  assert.equal(run?.status, 'error')
  assert.match(run.error ?? '', /aggregator: [^;]*shutting down/)
  assert.match(run.error ?? '', /ethereum: [^;]*shutting down/)
  // The test delivery that never happened is not counted against the webhook's health.
  const after = await db
    .selectFrom('webhooks')
    .select('last_status')
    .where('id', '=', hook.id)
    .executeTakeFirstOrThrow()
  assert.equal(after.last_status, null)
})

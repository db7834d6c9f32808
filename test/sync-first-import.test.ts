// A first import into an empty ledger drops the ledger's secondary indexes and
// builds them at the run's end (src/sync/first-import.ts); one that dies
// part-way leaves them listed, and the next start builds them. Either way every
// list, filter and search answers as it would with the indexes all along.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import type { ServiceContext } from '../src/context.js'
import { processSandbox, startTestApp } from './helpers/app.js'
import { allTransactions, startCsvApp, syncNow, writeFolders, type Json } from './sync-helpers.js'
import { cofferArgs } from './helpers/program.js'
import { headSequence, history } from './helpers/ledger.js'
import { expectStatus } from './helpers/http.js'

const EXAMPLES = fileURLToPath(new URL('../examples/plugins/', import.meta.url))

/** Deferred by a first import on one engine or the other (first-import.ts). */
const DEFERRABLE = [
  'events_entity_id',
  'transaction_versions_key',
  'transactions_account_date',
  'transactions_amount_bucket',
  'transactions_amount_numeric',
  'transactions_date',
  'transactions_date_amount_real',
  'transactions_text_trgm',
]

/** The history's key: deferred only while no plugin is enabled. */
const KEYS = ['transaction_versions_key']

/** Two units of work: a first import defers from its first full unit (SYNC_UNIT_ROWS). */
const FIRST = 6000

/** The deferral and each index built are told at debug level (first-import.ts). */
const DEBUG_LOGS = { SERVICE_LOG_LEVEL: 'debug' }

/** Rows dated and priced out of order, as a bank's export can be. */
function csv(from: number, count: number): string {
  const lines = ['Date,Description,Amount']
  for (let i = from; i < from + count; i++) {
    const month = String(((i * 7) % 12) + 1).padStart(2, '0')
    const day = String(((i * 11) % 28) + 1).padStart(2, '0')
    lines.push(
      `2024-${month}-${day},Shop ${i} coffee,-${(i * 37) % 500}.${String(i % 100).padStart(2, '0')}`,
    )
  }
  return `${lines.join('\n')}\n`
}

/** The indexes the log says were built, and whether off the event loop (each distinct value). */
function builtIndexes(logs: string[]): { names: string[]; offThread: boolean[] } {
  const built = logs
    .filter((l) => l.includes('db: built a deferred index'))
    .map((l) => JSON.parse(l))
  return {
    names: built.map((b) => b.index).sort(),
    offThread: [...new Set(built.map((b) => b.off_thread))],
  }
}

/** Which of DEFERRABLE exist now, and which `deferred_indexes` lists. */
async function indexState(ctx: ServiceContext): Promise<{ present: string[]; listed: string[] }> {
  const db = ctx.db.kysely
  const names =
    ctx.db.dialect === 'postgres'
      ? await sql<{
          name: string
        }>`select indexname as name from pg_indexes where schemaname = current_schema()`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(db)
  const present = names.rows.map((r) => r.name).filter((n) => DEFERRABLE.includes(n))
  const listed = (await db.selectFrom('deferred_indexes').select('name').execute()).map(
    (r) => r.name,
  )
  return { present: present.sort(), listed: listed.sort() }
}

const deferredOn = (ctx: ServiceContext) =>
  DEFERRABLE.filter((n) =>
    ctx.db.dialect === 'postgres' ? !/_real$|_bucket$/.test(n) : !/numeric|trgm/.test(n),
  )

/** Whether the engine's definition of index `name` is a unique one. */
async function isUnique(ctx: ServiceContext, name: string): Promise<boolean> {
  const { rows } =
    ctx.db.dialect === 'postgres'
      ? await sql<{
          definition: string
        }>`select indexdef as definition from pg_indexes where schemaname = current_schema() and indexname = ${name}`.execute(
          ctx.db.kysely,
        )
      : await sql<{
          definition: string
        }>`select sql as definition from sqlite_master where type = 'index' and name = ${name}`.execute(
          ctx.db.kysely,
        )
  return /^create unique index/i.test(rows[0]?.definition ?? '')
}

test('a first import builds the secondary indexes at its end; later imports keep them throughout', async (t) => {
  const { app, root } = await startCsvApp(
    t,
    [{ name: 'Checking', files: { 'a.csv': csv(0, FIRST) } }],
    { env: DEBUG_LOGS },
  )
  const expected = deferredOn(app.ctx)
  const first = await syncNow(app)
  assert.equal(first.counts.csv.inserted, FIRST)
  const deferring = app.logs.filter((l) => l.includes('first import; building these indexes'))
  assert.equal(deferring.length, 1)
  assert.deepEqual(JSON.parse(deferring[0]!).indexes.sort(), expected)
  // On SQLite in a worker thread, off the event loop (a first import has thousands of rows).
  assert.deepEqual(builtIndexes(app.logs), {
    names: expected,
    offThread: [app.ctx.db.dialect === 'sqlite'],
  })
  assert.deepEqual(await indexState(app.ctx), { present: expected, listed: [] })

  // Newest first by date, then id, as with the indexes all along.
  const rows = await allTransactions(app, 'csv:checking')
  const page = await app.request('GET', '/api/v1/transactions?limit=500')
  assert.equal(page.status, 200)
  const sorted = [...rows].sort((a: Json, b: Json) =>
    a.date === b.date ? (a.id < b.id ? 1 : -1) : a.date < b.date ? 1 : -1,
  )
  assert.deepEqual(
    page.body.transactions.map((r: Json) => r.id),
    sorted.slice(0, 500).map((r: Json) => r.id),
  )
  const search = await app.request(
    'GET',
    `/api/v1/transactions/search?q=${encodeURIComponent('amount:-100..-50')}&limit=500`,
  )
  assert.equal(search.status, 200)
  const inRange = rows.filter((r: Json) => Number(r.amount) >= -100 && Number(r.amount) <= -50)
  assert.ok(inRange.length > 0)
  assert.equal(search.body.total, inRange.length)

  // The history's key was built unique again, and the next version and
  // keys document of an imported row are found by it and by the row's number.
  for (const key of KEYS.filter((k) => expected.includes(k)))
    assert.ok(await isUnique(app.ctx, key), `${key} is unique`)
  const labelled = rows[FIRST - 1]
  assert.deepEqual(
    (await history(app, labelled.id)).map((v: Json) => v.kind),
    ['imported'],
  )
  const put = await app.request('PUT', `/api/v1/transactions/${labelled.id}/labels`, {
    body: { labels: { reviewed: 'first-import' } },
  })
  assert.equal(put.status, 200, put.text)
  assert.deepEqual(
    (await history(app, labelled.id)).map((v: Json) => [v.version, v.kind]),
    [
      [1, 'imported'],
      [2, 'labeled'],
    ],
  )
  const found = await app.request(
    'GET',
    `/api/v1/transactions/search?q=${encodeURIComponent('label:reviewed=first-import')}`,
  )
  assert.equal(found.status, 200)
  assert.deepEqual(
    found.body.transactions.map((r: Json) => r.id),
    [labelled.id],
  )

  // The ledger is no longer empty: the next import enters its rows into the indexes.
  writeFileSync(join(root, 'Checking', 'b.csv'), csv(FIRST, 50))
  const second = await syncNow(app)
  assert.equal(second.counts.csv.inserted, 50)
  assert.equal(app.logs.filter((l) => l.includes('first import; building')).length, 1)
  assert.deepEqual(await indexState(app.ctx), { present: expected, listed: [] })
})

test('with a plugin enabled, a first import keeps the keys of the history and the search documents; the plugin labels what it imports', async (t) => {
  const token = 'first-import-plugin-token-0123456789'
  const rows = csv(0, FIRST).replace(/Shop (\d*1) coffee/g, 'Starbucks $1 coffee')
  const { app } = await startCsvApp(t, [{ name: 'Checking', files: { 'a.csv': rows } }], {
    env: { ...DEBUG_LOGS, SERVICE_DASHBOARD_TOKEN: token },
  })
  const pluginsDir = app.ctx.config.plugins.dir
  mkdirSync(pluginsDir, { recursive: true })
  cpSync(join(EXAMPLES, 'merchant-labels'), join(pluginsDir, 'merchant-labels'), {
    recursive: true,
  })
  const enabled = await app.request('POST', '/api/v1/plugins/merchant-labels/enable', { token })
  assert.equal(enabled.status, 200, enabled.text)

  const first = await syncNow(app, '/api/v1/sync', token)
  assert.equal(first.counts.csv.inserted, FIRST)
  const expected = deferredOn(app.ctx).filter((n) => !KEYS.includes(n))
  const deferring = app.logs.filter((l) => l.includes('first import; building these indexes'))
  assert.equal(deferring.length, 1)
  assert.deepEqual(JSON.parse(deferring[0]!).indexes.sort(), expected)
  assert.deepEqual(builtIndexes(app.logs).names, expected)

  await app.plugins.manager.whenHandled('merchant-labels', await headSequence(app, { token }))
  const starbucks = (await allTransactions(app, 'csv:checking', token)).filter((r: Json) =>
    String(r.description).startsWith('Starbucks'),
  )
  assert.equal(starbucks.length, FIRST / 10)
  for (const row of starbucks)
    assert.deepEqual(row.labels, { category: 'coffee', merchant: 'starbucks' })
  const versions = await expectStatus(
    app,
    'GET',
    `/api/v1/transactions/${encodeURIComponent(starbucks[0]!.id)}/history`,
    200,
    undefined,
    { token },
  )
  assert.deepEqual(
    versions.versions.map((v: Json) => v.kind),
    ['imported', 'labeled'],
  )
})

test('a first import smaller than one unit of work keeps the indexes throughout', async (t) => {
  const { app } = await startCsvApp(t, [{ name: 'Checking', files: { 'a.csv': csv(0, 300) } }], {
    env: DEBUG_LOGS,
  })
  const first = await syncNow(app)
  assert.equal(first.counts.csv.inserted, 300)
  assert.equal(app.logs.filter((l) => l.includes('first import; building')).length, 0)
  assert.deepEqual(builtIndexes(app.logs), { names: [], offThread: [] })
  assert.deepEqual(await indexState(app.ctx), { present: deferredOn(app.ctx), listed: [] })
})

test('a first import killed part-way leaves its indexes listed; the next start builds them', async (t) => {
  const sandbox = await processSandbox(t, 'first-import')
  // Thirty units of work: the kill lands while the first ones commit.
  const folders = writeFolders(sandbox.dir, [
    { name: 'Big', files: { 'big.csv': csv(0, 150_000) } },
  ])
  // A service on the same database, ready before the import starts: it shows
  // the first units land, and while the run holds its lock it leaves the
  // indexes alone.
  const reuse = { dir: sandbox.dir, schema: sandbox.schema }
  const watcher = await startTestApp(null, { reuse, env: DEBUG_LOGS })
  t.after(() => watcher.stop())
  const base: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SERVICE_')) base[name] = value
  }
  const child = spawn(process.execPath, cofferArgs(['sync']), {
    cwd: sandbox.dir,
    env: {
      ...base,
      ...sandbox.env,
      SERVICE_CSV_FOLDERS: JSON.stringify(folders),
      SERVICE_LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  let output = ''
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('close', (_code, signal) => resolve(signal)),
  )
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  }
  try {
    const deadline = Date.now() + 120_000
    for (;;) {
      const page = await watcher.request('GET', '/api/v1/transactions?limit=1')
      if (page.status === 200 && page.body.transactions.length > 0) break
      assert.ok(Date.now() < deadline && child.exitCode === null, output)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    child.kill('SIGKILL')
    assert.equal(await exited, 'SIGKILL', output)
    const left = await indexState(watcher.ctx)
    assert.deepEqual(left, { present: [], listed: deferredOn(watcher.ctx) })
  } finally {
    await watcher.stop()
  }

  const app = await startTestApp(null, { reuse, env: DEBUG_LOGS })
  try {
    const expected = deferredOn(app.ctx)
    // Built as the service started (SyncService.start), before it answered; on
    // SQLite, over the thousands of rows the killed run left, in a worker thread.
    assert.deepEqual(builtIndexes(app.logs), {
      names: expected,
      offThread: [app.ctx.db.dialect === 'sqlite'],
    })
    assert.deepEqual(await indexState(app.ctx), { present: expected, listed: [] })

    // What the killed run committed stays, listed newest first through the rebuilt index.
    const page = await app.request('GET', '/api/v1/transactions?limit=1000')
    assert.equal(page.status, 200)
    const dates = page.body.transactions.map((r: Json) => r.date)
    assert.equal(dates.length, 1000)
    assert.deepEqual(dates, [...dates].sort().reverse())
  } finally {
    await app.stop()
  }
})

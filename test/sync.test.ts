// The sync engine over HTTP (SPEC 1.1, 4.2-4.4; CONTRACT 6 "Sync run", "Source entry").
import assert from 'node:assert/strict'
import { hostname } from 'node:os'
import { test } from 'node:test'
import { startTestApp } from './helpers/app.js'
import {
  allTransactions,
  eventsAfter,
  headSequence,
  startCsvApp,
  syncNow,
  waitForRun,
  type Json,
} from './sync-helpers.js'

const FILE = 'Date,Description,Amount\n2024-03-01,Coffee,-3.50\n2024-03-02,Salary,1000.00\n'

test('POST /sync answers 202 {run_id}; the run is recorded and ends with one sync.completed', async (t) => {
  const { app } = await startCsvApp(t, [{ name: 'Checking', files: { 'a.csv': FILE } }])
  const before = await headSequence(app)
  const run = await syncNow(app)
  assert.match(run.id, /^run_/)
  assert.deepEqual(
    { ...run, id: undefined, started_at: undefined, completed_at: undefined },
    {
      id: undefined,
      source: null,
      trigger: 'manual',
      started_at: undefined,
      completed_at: undefined,
      status: 'success',
      error: null,
      counts: { csv: { inserted: 2, updated: 0, unchanged: 0, skipped: 0 } },
      warnings: [],
    },
  )
  assert.ok(run.completed_at >= run.started_at)

  const latest = await app.request('GET', '/api/v1/sync')
  assert.deepEqual(latest.body, { latest: run })

  const events = await eventsAfter(app, before)
  const completed = events.filter((e) => e.type === 'sync.completed')
  assert.equal(completed.length, 1)
  assert.equal(completed[0].entity_type, 'sync')
  assert.equal(completed[0].entity_id, run.id)
  assert.deepEqual(completed[0].data, run)
  // The completion is the last event of the run.
  assert.equal(events.at(-1).type, 'sync.completed')
  assert.deepEqual(
    events.map((e) => e.type).filter((type) => type !== 'transaction.created'),
    ['account.created', 'sync.completed'],
  )
})

test('GET /sync before any run is {latest: null}; history is newest first and honours limit', async (t) => {
  const { app } = await startCsvApp(t, [{ name: 'Checking', files: { 'a.csv': FILE } }])
  assert.deepEqual((await app.request('GET', '/api/v1/sync')).body, { latest: null })
  assert.deepEqual((await app.request('GET', '/api/v1/sync/history')).body, { runs: [] })
  const first = await syncNow(app)
  const second = await syncNow(app)
  const history = await app.request('GET', '/api/v1/sync/history?limit=1')
  assert.deepEqual(
    history.body.runs.map((r: { id: string }) => r.id),
    [second.id],
  )
  const all = await app.request('GET', '/api/v1/sync/history')
  assert.deepEqual(
    all.body.runs.map((r: { id: string }) => r.id),
    [second.id, first.id],
  )
  const bad = await app.request('GET', '/api/v1/sync/history?limit=-1')
  assert.equal(bad.status, 400)
})

test('a trigger during a run joins it: one run, one id', async (t) => {
  const rows = Array.from({ length: 20_000 }, (_, i) => `2024-01-01,Row ${i},${i}.00`).join('\n')
  const { app } = await startCsvApp(t, [
    { name: 'Big', files: { 'a.csv': `Date,Description,Amount\n${rows}\n` } },
  ])
  const [a, b] = await Promise.all([
    app.request('POST', '/api/v1/sync'),
    app.request('POST', '/api/v1/sync'),
  ])
  assert.equal(a.status, 202)
  assert.equal(b.status, 202)
  assert.equal(a.body.run_id, b.body.run_id)
  const c = await app.request('POST', '/api/v1/sources/csv/sync')
  const run = await waitForRun(app, a.body.run_id)
  // The third either joined the same run or, if it came after it, started a new one.
  if (c.body.run_id !== run.id) await waitForRun(app, c.body.run_id)
  assert.equal(run.counts.csv.inserted, 20_000)
  const history = await app.request('GET', '/api/v1/sync/history')
  assert.ok(history.body.runs.length <= 2)
})

test('a trigger as a run ends starts the next run instead of handing out the ended one', async (t) => {
  const { app } = await startCsvApp(t, [{ name: 'Checking', files: { 'a.csv': FILE } }])
  const engine = app.sync.engine
  // Trigger the moment sync.completed is published: the first run has its
  // outcome, but it may still hold the lock.
  const sub = app.ctx.bus.subscribe()
  t.after(() => sub.close())
  const first = await engine.trigger({ trigger: 'manual', source: null })
  let event
  do event = await sub.next()
  while (event && event.type !== 'sync.completed')
  const next = await engine.trigger({ trigger: 'manual', source: null })
  assert.notEqual(next.run_id, first.run_id)
  assert.equal((await first.done).status, 'success')
  const second = await next.done
  assert.equal(second.status, 'success')
  assert.deepEqual(second.counts.csv, { inserted: 0, updated: 0, unchanged: 2, skipped: 0 })
})

test('POST /sources/{type}/sync: 404 unknown, 409 not configured, 202 and source-scoped run', async (t) => {
  const bare = await startTestApp(t)
  const unknown = await bare.request('POST', '/api/v1/sources/nope/sync')
  assert.equal(unknown.status, 404)
  assert.match(unknown.headers.get('content-type') ?? '', /^application\/problem\+json/)
  const notConfigured = await bare.request('POST', '/api/v1/sources/csv/sync')
  assert.equal(notConfigured.status, 409)
  assert.equal(notConfigured.body.detail, 'source csv is not configured')

  // A sync with no configured source at all succeeds with nothing to do.
  const empty = await syncNow(bare)
  assert.equal(empty.status, 'success')
  assert.deepEqual(empty.counts, {})

  const { app } = await startCsvApp(t, [{ name: 'Checking', files: { 'a.csv': FILE } }])
  const run = await syncNow(app, '/api/v1/sources/csv/sync')
  assert.equal(run.source, 'csv')
  assert.equal(run.counts.csv.inserted, 2)
})

test('GET /sources lists every source with its entry; the entry follows CONTRACT 6', async (t) => {
  const bare = await startTestApp(t)
  const list = await bare.request('GET', '/api/v1/sources')
  assert.equal(list.status, 200)
  // The csv entry; the other sources have their own tests.
  const csvOnly = { ...list.body, sources: list.body.sources.filter((s: Json) => s.type === 'csv') }
  assert.deepEqual(csvOnly, {
    enabled: [],
    restart_required: false,
    sources: [
      {
        type: 'csv',
        title: 'CSV files',
        active: false,
        connected: false,
        credential: { kind: 'none' },
        config: [
          { key: 'csv.folders', value: [] },
          { key: 'csv.drive_client_id', value: null },
          { key: 'csv.drive_client_secret', value: null },
          { key: 'csv.drive_redirect_url', value: null },
        ],
        last_run: null,
        errors: [],
      },
    ],
  })

  const { app } = await startCsvApp(t, [
    { name: 'Checking', files: { 'a.csv': FILE, 'b.csv': 'nothing,useful\n1,2\n' } },
  ])
  const run = await syncNow(app)
  assert.equal(run.status, 'success')
  const entry = (await app.request('GET', '/api/v1/sources')).body.sources[0]
  assert.equal(entry.active, true)
  assert.equal(entry.connected, true)
  assert.deepEqual(entry.last_run, run)
  assert.deepEqual(entry.errors, [
    'folder "Checking": file "b.csv" skipped: no date column (set mapping.date_column)',
  ])
})

test('runs left running by a dead process are marked error "interrupted" at start', async (t) => {
  const first = await startTestApp(t)
  // A run row as a process that died mid-run leaves it (pid 2^22+1 is never alive).
  await first.ctx.db.kysely
    .insertInto('sync_runs')
    .values({
      id: 'run_dead',
      source: null,
      trigger: 'schedule',
      started_at: '2024-01-01T00:00:00Z',
      completed_at: null,
      status: 'running',
      error: null,
      counts: '{}',
      warnings: '[]',
      source_errors: '{}',
      owner: `${hostname()}:4194305:deadbeef`,
    })
    .execute()
  await first.stop()
  const second = await startTestApp(t, { reuse: { dir: first.dir, schema: first.schema } })
  const latest = (await second.request('GET', '/api/v1/sync')).body.latest
  assert.equal(latest.id, 'run_dead')
  assert.equal(latest.status, 'error')
  assert.equal(latest.error, 'interrupted')
  assert.ok(latest.completed_at)
  // It never blocks a new run.
  const run = await syncNow(second)
  assert.equal(run.status, 'success')
})

test('sync triggers are write tier; credentials are admin tier', async (t) => {
  const token = 'dashboard-token-0123456789'
  const { app } = await startCsvApp(t, [{ name: 'Checking', files: { 'a.csv': FILE } }], {
    env: { SERVICE_DASHBOARD_TOKEN: token },
  })
  assert.equal((await app.request('POST', '/api/v1/sync')).status, 401)
  const key = await app.request('POST', '/api/v1/security/api-keys', {
    token,
    body: { name: 'reader', scope: 'read' },
  })
  assert.equal((await app.request('POST', '/api/v1/sync', { token: key.body.key })).status, 403)
  assert.equal((await app.request('GET', '/api/v1/sync', { token: key.body.key })).status, 200)
  assert.equal((await app.request('GET', '/api/v1/sources', { token: key.body.key })).status, 200)
  const rw = await app.request('POST', '/api/v1/security/api-keys', {
    token,
    body: { name: 'writer', scope: 'read_write' },
  })
  const run = await syncNow(app, '/api/v1/sync', rw.body.key)
  assert.equal(run.status, 'success')
  const put = await app.request('PUT', '/api/v1/sources/csv/credential', {
    token: rw.body.key,
    body: { token: 'x' },
  })
  assert.equal(put.status, 403)
  const txns = await allTransactions(app, 'csv:checking', token)
  assert.equal(txns.length, 2)
})

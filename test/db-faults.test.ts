// Database faults (issue 17): what a routine PostgreSQL restart does to the
// service's connections (every session reset, a query in flight, the sync lock's
// session checked out for a whole run), and a SQLite file locked past
// busy_timeout. The service answers 503 with Retry-After, never 500, never
// exits, and works again on the next request. PostgreSQL is reached through a
// TCP proxy on 127.0.0.1 that cuts the connections as a restart would.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import SqliteDatabase from '../src/db/sqlite-binding.js'
import { startFakeSimplefin } from './fakes/simplefin.js'
import {
  createSchema,
  dropSchema,
  dsnWithSchema,
  ENGINE,
  POSTGRES_DSN,
  startTestApp,
} from './helpers/app.js'
import { expectStatus } from './helpers/http.js'
import { startTcpProxy } from './helpers/tcp-proxy.js'
import { waitForRun } from './sync-helpers.js'

const UNAVAILABLE = /^the database is unavailable/

async function eventually<T>(what: string, attempt: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const value = await attempt()
    if (value !== null) return value
    if (Date.now() > deadline) throw new Error(`${what} did not happen`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

test(
  'a PostgreSQL restart (every connection reset) mid-query and mid-sync: 503, then service as usual',
  { skip: ENGINE !== 'postgres' && 'needs PostgreSQL (COFFER_TEST_POSTGRES_DSN)' },
  async (t) => {
    const target = new URL(POSTGRES_DSN!)
    const proxy = await startTcpProxy(t, {
      host: target.hostname,
      port: Number(target.port || 5432),
    })
    const schema = await createSchema()
    const dir = mkdtempSync(join(tmpdir(), 'coffer-db-faults-'))
    t.after(async () => {
      await dropSchema(schema)
      rmSync(dir, { recursive: true, force: true })
    })
    const dsn = new URL(dsnWithSchema(schema))
    dsn.host = `127.0.0.1:${proxy.port}`
    const bank = await startFakeSimplefin(t)
    const app = await startTestApp(t, {
      reuse: { dir, schema },
      env: {
        SERVICE_DATABASE_DSN: dsn.toString(),
        SERVICE_AGGREGATOR_ACCESS_URL: bank.accessUrl,
      },
    })
    await expectStatus(app, 'POST', '/api/v1/accounts', 201, { name: 'Cash', currency: 'USD' })

    // A query in flight when the server goes away: 503 problem with Retry-After.
    proxy.hold()
    const inFlight = app.request('GET', '/api/v1/accounts')
    await new Promise((resolve) => setTimeout(resolve, 300))
    proxy.cut()
    const answer = await inFlight
    assert.equal(answer.status, 503, answer.text)
    assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/)
    assert.equal(answer.headers.get('retry-after'), '1')
    assert.match(answer.body.detail, UNAVAILABLE)

    // A sync holds its lock on a checked-out session for the whole run; a
    // restart ends that session while the bank is still answering.
    let release!: () => void
    bank.hold = new Promise<void>((resolve) => (release = resolve))
    const started = await expectStatus(app, 'POST', '/api/v1/sync', 202)
    await eventually('the bank request', async () => (bank.requests.length > 0 ? true : null))
    proxy.cut()
    bank.hold = null
    release()
    const run = await eventually('the run to end', async () => {
      try {
        return await waitForRun(app, started.run_id)
      } catch {
        return null // a read may meet a connection that the cut killed
      }
    })
    assert.notEqual(run.status, 'running')
    console.log('run cut by the restart:', run.status, run.error ?? '')

    // Still alive, and the database is used again: reads, writes, the next sync
    // (the lock died with its session), and live events.
    await eventually('a healthy answer', async () => {
      const res = await app.request('GET', '/healthz')
      return res.status === 200 ? res : null
    })
    await expectStatus(app, 'POST', '/api/v1/accounts', 201, { name: 'Card', currency: 'USD' })
    const accounts = await expectStatus(app, 'GET', '/api/v1/accounts', 200)
    assert.deepEqual(accounts.accounts.map((a: { name: string }) => a.name).sort(), [
      'Card',
      'Cash',
    ])
    const next = await expectStatus(app, 'POST', '/api/v1/sync', 202)
    assert.equal((await waitForRun(app, next.run_id)).status, 'success')
    assert.ok(
      app.logs.some((line) => line.includes('db: lost a connection to PostgreSQL')),
      'the lost connections were not logged',
    )
    assert.ok(proxy.connections() > 1)
  },
)

test(
  'a SQLite file locked past busy_timeout: a write is 503 with Retry-After, then works; the server answers meanwhile',
  { skip: ENGINE !== 'sqlite' && 'SQLite only' },
  async (t) => {
    const app = await startTestApp(t)
    const other = new SqliteDatabase(join(app.dir, 'coffer.db'))
    t.after(() => other.close())
    other.exec('begin immediate') // another process holding the write lock
    let answered = false
    const write = app
      .request('POST', '/api/v1/accounts', { body: { name: 'Cash', currency: 'USD' } })
      .finally(() => (answered = true))
    // The write waits for the lock without holding the event loop.
    const health = await app.request('GET', '/healthz')
    assert.equal(health.status, 200)
    assert.equal(answered, false, 'the health check waited for the write')
    const refused = await write
    assert.equal(refused.status, 503, refused.text)
    assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/)
    assert.equal(refused.headers.get('retry-after'), '1')
    assert.match(refused.body.detail, UNAVAILABLE)
    other.exec('rollback')
    await expectStatus(app, 'POST', '/api/v1/accounts', 201, { name: 'Cash', currency: 'USD' })
    const accounts = await expectStatus(app, 'GET', '/api/v1/accounts', 200)
    assert.equal(accounts.total, 1)
  },
)

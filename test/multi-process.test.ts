// One event path for every process (DESIGN "One event path"): `coffer sync` from
// cron and `coffer mcp` over stdio write to the database of a running server,
// and every event of the log reaches that server's SSE clients, in order, and
// its webhooks, whoever committed it. Two syncs started together import each
// row once. On PostgreSQL, a webhook registered through a server that does not
// dispatch receives every event written after its 201.
import assert from 'node:assert/strict'
import { expectStatus } from './helpers/http.js'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { startReceiver } from './fakes/receiver.js'
import {
  dsnWithSchema,
  POSTGRES_DSN,
  requester,
  startTestApp,
  type TestAppHandle,
} from './helpers/app.js'
import { eventsAfter, headSequence } from './helpers/ledger.js'
import { toolOk } from './helpers/mcp.js'
import { SseClient } from './helpers/sse.js'
import { writeFolders } from './sync-helpers.js'
import { CHECKOUT, cofferArgs } from './helpers/program.js'

const TOKEN = 'multi-process-token-0123456789abcdef'
const CHILD_TIMEOUT_MS = 180_000

/** The environment that points a `coffer` command at the app's database. */
function sameDatabase(app: TestAppHandle, extra: Record<string, string> = {}) {
  return {
    PATH: process.env.PATH ?? '',
    SERVICE_DATA_DIR: join(app.dir, 'data'),
    SERVICE_DATABASE_PATH: join(app.dir, 'coffer.db'),
    SERVICE_LOG_FORMAT: 'json',
    SERVICE_SYNC_INTERVAL: '0',
    ...(app.schema
      ? { SERVICE_DATABASE_DRIVER: 'postgres', SERVICE_DATABASE_DSN: dsnWithSchema(app.schema) }
      : {}),
    ...extra,
  }
}

interface Finished {
  status: number | null
  stdout: string
  stderr: string
}

/** An empty config file: a `coffer.toml` left in the checkout must not leak into a test. */
const CONFIG_DIR = mkdtempSync(join(tmpdir(), 'coffer-noconfig-'))
const NO_CONFIG = join(CONFIG_DIR, 'coffer.toml')
writeFileSync(NO_CONFIG, '')
process.on('exit', () => rmSync(CONFIG_DIR, { recursive: true, force: true }))

/** Runs `coffer <args>` from source in another process, without blocking this one. */
function coffer(args: string[], env: Record<string, string>): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const argv = cofferArgs([...args, '--config', NO_CONFIG])
    const child = spawn(process.execPath, argv, {
      cwd: CHECKOUT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS)
    child.on('error', reject)
    child.on('close', (status) => {
      clearTimeout(timer)
      resolve({ status, stdout, stderr })
    })
  })
}

/** `coffer serve` in another process on the app's database; answers its request function. */
async function serveProcess(t: TestContext, app: TestAppHandle) {
  const env = sameDatabase(app, {
    SERVICE_SERVER_ADDR: '127.0.0.1:0',
    SERVICE_DASHBOARD_TOKEN: TOKEN,
  })
  const child = spawn(process.execPath, cofferArgs(['serve', '--config', NO_CONFIG]), {
    cwd: CHECKOUT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()))
  t.after(async () => {
    child.kill('SIGTERM')
    await exited
  })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`coffer serve did not start:\n${output}`)),
      CHILD_TIMEOUT_MS,
    )
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8')
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout.on('data', read)
    child.stderr.on('data', read)
    child.on('close', () => reject(new Error(`coffer serve exited:\n${output}`)))
  })
  return { request: requester(url) }
}

function csvFolder(t: TestContext, rows: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-multi-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const lines = ['Date,Amount,Description']
  for (let i = 0; i < rows; i++)
    lines.push(`2024-03-${String((i % 28) + 1).padStart(2, '0')},-${i}.25,row ${i}`)
  return JSON.stringify(
    writeFolders(dir, [{ name: 'Checking', files: { 'rows.csv': lines.join('\n') + '\n' } }]),
  )
}

/** Every request of this file carries the dashboard token. */
function call(
  app: Pick<TestAppHandle, 'request'>,
  method: string,
  path: string,
  status: number,
  body?: unknown,
) {
  return expectStatus(app, method, path, status, body, { token: TOKEN })
}

/** `coffer mcp` over stdio in another process, on the app's database. */
async function mcpClient(app: TestAppHandle): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: cofferArgs(['mcp', '--config', NO_CONFIG]),
    cwd: CHECKOUT,
    env: sameDatabase(app),
    stderr: 'ignore',
  })
  const client = new Client({ name: 'coffer-test', version: '1' })
  await client.connect(transport)
  return client
}

/** The SSE client received every event of `log`, in order, once, as the log holds it. */
async function sawTheLog(sse: SseClient, log: Array<{ sequence: number }>): Promise<void> {
  await sse.until(`${log.length} frames`, () => sse.frames.length >= log.length)
  assert.deepEqual(
    sse.frames.map((f) => Number(f.id)),
    log.map((e) => e.sequence),
    'every sequence of the log, in order, once',
  )
  assert.deepEqual(
    sse.frames.map((f) => f.data),
    log,
    'each event as the log holds it',
  )
}

async function mcpWrites(app: TestAppHandle): Promise<void> {
  const client = await mcpClient(app)
  try {
    const account = await toolOk(client, 'create_account', { name: 'From MCP', currency: 'EUR' })
    await toolOk(client, 'create_transaction', {
      account_id: account.id,
      amount: '-3.50',
      date: '2024-02-01',
    })
  } finally {
    await client.close()
  }
}

test('events written by coffer sync and coffer mcp reach the server’s SSE clients in order and its webhooks', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const receiver = await startReceiver(t)
  await call(app, 'POST', '/api/v1/webhooks', 201, { url: receiver.url, event_types: ['*'] })
  const sse = await SseClient.open(app, '', { authorization: `Bearer ${TOKEN}` })
  t.after(() => sse.close())
  await sse.until('the stream to open', () => sse.comments.includes('stream open'))
  const start = await headSequence(app, { token: TOKEN })

  const sync = await coffer(['sync'], sameDatabase(app, { SERVICE_CSV_FOLDERS: csvFolder(t, 30) }))
  assert.equal(sync.status, 0, sync.stdout + sync.stderr)
  assert.match(sync.stdout, /csv: 30 inserted/)
  await mcpWrites(app)
  // And then the server itself.
  await call(app, 'POST', '/api/v1/accounts', 201, { name: 'From REST', currency: 'USD' })

  const log = await eventsAfter(app, start, { token: TOKEN })
  const types = new Set(log.map((e) => e.type))
  for (const type of ['transaction.created', 'sync.completed', 'account.created'])
    assert.ok(types.has(type), `${type} in the log`)
  await sawTheLog(sse, log)
  const wanted = new Set(log.map((e) => e.event_id))
  await receiver.waitFor(`${wanted.size} events delivered`, (deliveries) => {
    const got = new Set(deliveries.map((d) => d.headers['x-service-event-id']))
    return [...wanted].every((id) => got.has(id))
  })
})

test('the server’s own writes, interleaved with another process’s, reach its SSE clients once each and in order', async (t) => {
  // The server publishes its own commits as it has them in hand and reads the
  // log only for what another process committed between them (events/publisher.ts).
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const sse = await SseClient.open(app, '', { authorization: `Bearer ${TOKEN}` })
  t.after(() => sse.close())
  await sse.until('the stream to open', () => sse.comments.includes('stream open'))
  const start = await headSequence(app, { token: TOKEN })
  const own = (await call(app, 'POST', '/api/v1/accounts', 201, {
    name: 'Own',
    currency: 'USD',
  })) as { id: string }

  const client = await mcpClient(app)
  t.after(() => client.close())
  const other = await toolOk(client, 'create_account', { name: 'Other', currency: 'USD' })
  const WRITES = 40
  await Promise.all([
    (async () => {
      for (let i = 0; i < WRITES; i++)
        await toolOk(client, 'create_transaction', {
          account_id: other.id,
          amount: `-${i}.10`,
          date: '2024-02-01',
        })
    })(),
    (async () => {
      for (let i = 0; i < WRITES; i++)
        await call(app, 'POST', '/api/v1/transactions', 201, {
          account_id: own.id,
          amount: `-${i}.20`,
          date: '2024-02-02',
        })
    })(),
  ])

  const log = await eventsAfter(app, start, { token: TOKEN })
  assert.equal(log.filter((e) => e.type === 'transaction.created').length, 2 * WRITES)
  await sawTheLog(sse, log)
})

test('two coffer sync processes started together import each row once', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const rows = 2_000
  const env = sameDatabase(app, { SERVICE_CSV_FOLDERS: csvFolder(t, rows) })
  const [first, second] = await Promise.all([coffer(['sync'], env), coffer(['sync'], env)])
  for (const run of [first, second]) {
    assert.equal(run.status, 0, run.stdout + run.stderr)
    assert.doesNotMatch(run.stderr, /SQLITE_BUSY|database is locked|deadlock|"level":50/)
  }

  const account = await call(app, 'GET', '/api/v1/accounts/csv:checking', 200)
  assert.equal(account.id, 'csv:checking')
  const list = await call(app, 'GET', '/api/v1/accounts/csv:checking/transactions?limit=1', 200)
  assert.equal(list.total, rows)
  const created = (await eventsAfter(app, 0, { token: TOKEN })).filter(
    (e) => e.type === 'transaction.created',
  )
  assert.equal(created.length, rows, 'one transaction.created per row')
  const { runs } = await call(app, 'GET', '/api/v1/sync/history?limit=10', 200)
  const inserted = runs.reduce(
    (sum: number, run: { counts: { csv?: { inserted: number } } }) =>
      sum + (run.counts.csv?.inserted ?? 0),
    0,
  )
  assert.equal(
    inserted,
    rows,
    `runs: ${JSON.stringify(runs.map((r: { status: string }) => r.status))}`,
  )
  for (const run of runs) assert.equal(run.status, 'success')
})

test(
  'a webhook registered through a server that does not dispatch receives every later event',
  { skip: !POSTGRES_DSN && 'COFFER_TEST_POSTGRES_DSN not set' },
  async (t) => {
    const dispatching = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
    assert.equal(dispatching.webhooks.dispatching, true)
    // A second server, a process of its own: it does not dispatch while the first does.
    const other = await serveProcess(t, dispatching)
    const account = await call(dispatching, 'POST', '/api/v1/accounts', 201, {
      name: 'Shared',
      currency: 'EUR',
    })

    const receiver = await startReceiver(t)
    await call(other, 'POST', '/api/v1/webhooks', 201, { url: receiver.url, event_types: ['*'] })
    const start = await headSequence(other, { token: TOKEN })
    // Written at once, through both servers: no time for a registry refresh.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(i % 2 === 0 ? other : dispatching, 'POST', '/api/v1/transactions', 201, {
          account_id: account.id,
          amount: `${i}.00`,
          date: '2024-03-01',
        }),
      ),
    )
    const log = await eventsAfter(other, start, { token: TOKEN })
    assert.equal(log.length, 20)
    await dispatching.webhooks.whenSettled(log.at(-1)!.sequence)
    const got = receiver.deliveries.map((d) => d.headers['x-service-event-id'])
    assert.equal(dispatching.webhooks.dispatching, true, 'the first server dispatched throughout')
    assert.deepEqual(new Set(got), new Set(log.map((e) => e.event_id)))
    assert.equal(got.length, 20, 'each event once')
  },
)

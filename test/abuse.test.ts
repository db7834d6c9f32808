// Abuse limits and operability (issue 17, docs/security.md): failed
// authentications rate-limited per address, event streams capped and replayed
// with backpressure, slow requests cut off, security headers on every answer,
// an access log without secrets, and a 500 that a person can debug from.
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { test } from 'node:test'
import { sql } from 'kysely'
import { SSE_YIELD_BYTES, type SseStream } from '../src/http/sse.js'
import { ingestBatchInUnit } from '../src/ledger/ingest.js'
import { formatTextLine } from '../src/log.js'
import { startTestApp, type TestAppHandle } from './helpers/app.js'
import { expectProblem, expectStatus } from './helpers/http.js'
import { SseClient } from './helpers/sse.js'

const TOKEN = 'abuse-test-dashboard-token-0123456789'
const DEADLINE_MS = 20_000

/** Polls `check` until it holds, failing after a generous deadline (never a timing claim). */
async function eventually(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

async function metric(app: TestAppHandle, name: string): Promise<number> {
  const res = await app.request('GET', '/metrics')
  const line = res.text
    .split('\n')
    .find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
  return line ? Number(line.split(' ').pop()) : 0
}

type LogEntry = Record<string, unknown> & { level: number; msg: string }

function entries(app: TestAppHandle): LogEntry[] {
  return app.logs.map((line) => JSON.parse(line) as LogEntry)
}

/** A raw HTTP/1.1 connection: what a slow or non-reading client does. */
function rawSocket(app: TestAppHandle): Promise<Socket> {
  const { hostname, port } = new URL(app.url)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket))
    socket.once('error', reject)
  })
}

/**
 * Everything the server sends until it closes the connection, failing after a
 * deadline far above the configured timeout (Node's own defaults, 60 s for the
 * headers and none for the body, would pass it otherwise).
 */
function readUntilClosed(socket: Socket, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`${what}: the server kept the connection open (${JSON.stringify(text)})`))
    }, 15_000)
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => (text += chunk))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(text)
    })
  })
}

// --- brute force -----------------------------------------------------------

test('failed authentications from one address are limited: 429 with Retry-After, counted', async (t) => {
  const app = await startTestApp(t, {
    env: {
      SERVICE_DASHBOARD_TOKEN: TOKEN,
      SERVICE_AUTH_MAX_FAILURES: '3',
      SERVICE_AUTH_FAILURE_WINDOW: '10m',
    },
  })
  // Successes are neither counted nor slowed.
  for (let i = 0; i < 5; i++)
    await expectStatus(app, 'GET', '/api/v1/accounts', 200, undefined, { token: TOKEN })
  for (let i = 0; i < 3; i++) {
    await expectProblem(app, 'GET', '/api/v1/accounts', 401, undefined, { token: `wrong-${i}` })
  }
  // The open /api/v1/auth would otherwise be an oracle; the limit covers every route.
  const res = await app.request('GET', '/api/v1/auth', { token: 'wrong-3' })
  assert.equal(res.status, 429, res.text)
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/)
  assert.equal(res.body.title, 'Too Many Requests')
  assert.match(res.body.detail, /auth\.max_failures = 3/)
  const retryAfter = Number(res.headers.get('retry-after'))
  assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 600, `${retryAfter}`)
  // While limited, a credential from this address is not even checked, so a
  // guess cannot be confirmed; loopback is not exempt.
  await expectProblem(app, 'GET', '/api/v1/accounts', 429, undefined, { token: TOKEN })
  // Requests without a credential are not refused.
  assert.equal((await app.request('GET', '/healthz')).status, 200)
  assert.equal((await app.request('GET', '/api/v1/accounts')).status, 401)
  assert.equal(await metric(app, 'service_auth_failures_total'), 3)
  assert.equal(await metric(app, 'service_auth_rate_limited_total'), 2)
  assert.ok(
    entries(app).some((e) => e.level === 40 && /auth\.max_failures/.test(e.msg)),
    'reaching the limit is logged at warn',
  )
})

test('the failure window ends: the address may try again', async (t) => {
  const app = await startTestApp(t, {
    env: {
      SERVICE_DASHBOARD_TOKEN: TOKEN,
      SERVICE_AUTH_MAX_FAILURES: '2',
      SERVICE_AUTH_FAILURE_WINDOW: '1s',
    },
  })
  await expectProblem(app, 'GET', '/api/v1/accounts', 401, undefined, { token: 'wrong-a' })
  await expectProblem(app, 'GET', '/api/v1/accounts', 401, undefined, { token: 'wrong-b' })
  await expectProblem(app, 'GET', '/api/v1/accounts', 429, undefined, { token: TOKEN })
  await eventually('the window to end', async () => {
    const res = await app.request('GET', '/api/v1/accounts', { token: TOKEN })
    return res.status === 200
  })
})

test('without a dashboard token nothing is guarded by a secret, so nothing is counted', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_AUTH_MAX_FAILURES: '1' } })
  for (let i = 0; i < 3; i++) {
    await expectStatus(app, 'GET', '/api/v1/accounts', 200, undefined, { token: `stale-${i}` })
  }
  assert.equal(await metric(app, 'service_auth_failures_total'), 0)
})

// --- event streams -----------------------------------------------------------

async function readKey(app: TestAppHandle, name: string): Promise<string> {
  const body = await expectStatus(
    app,
    'POST',
    '/api/v1/security/api-keys',
    201,
    { name, scope: 'read' },
    { token: TOKEN },
  )
  return body.key as string
}

async function openStream(
  t: { after: (fn: () => void) => void },
  app: TestAppHandle,
  token: string,
): Promise<SseClient> {
  const client = await SseClient.open(app, '', { authorization: `Bearer ${token}` })
  t.after(() => client.close())
  return client
}

test('event streams are capped per credential and in total, with a 429 naming the cap', async (t) => {
  const app = await startTestApp(t, {
    env: {
      SERVICE_DASHBOARD_TOKEN: TOKEN,
      SERVICE_EVENTS_MAX_STREAMS: '3',
      SERVICE_EVENTS_MAX_STREAMS_PER_CLIENT: '2',
    },
  })
  const keyA = await readKey(app, 'a')
  const keyB = await readKey(app, 'b')
  const a1 = await openStream(t, app, keyA)
  const a2 = await openStream(t, app, keyA)
  assert.equal(a1.response.status, 200)
  assert.equal(a2.response.status, 200)

  const perClient = await app.request('GET', '/api/v1/events/stream', { token: keyA })
  assert.equal(perClient.status, 429, perClient.text)
  assert.match(perClient.headers.get('content-type') ?? '', /^application\/problem\+json/)
  assert.match(perClient.body.detail, /events\.max_streams_per_client \(2\)/)
  assert.ok(Number(perClient.headers.get('retry-after')) > 0)

  const b1 = await openStream(t, app, keyB)
  assert.equal(b1.response.status, 200)
  const total = await app.request('GET', '/api/v1/events/stream', { token: TOKEN })
  assert.equal(total.status, 429, total.text)
  assert.match(total.body.detail, /events\.max_streams \(3\)/)
  assert.equal(await metric(app, 'service_sse_streams'), 3)

  // Closing a stream frees its slot.
  a1.close()
  await eventually('the closed stream to free its slot', () => app.sse.open.size === 2)
  const again = await openStream(t, app, keyA)
  assert.equal(again.response.status, 200)
})

/** Commits `count` synced transactions with long descriptions (one event each). */
async function ingestMany(app: TestAppHandle, count: number): Promise<void> {
  await app.ctx.ledger.mutate((uow) =>
    ingestBatchInUnit(uow, {
      source: 'csv',
      organizations: [{ id: 'csv:bank', name: 'Bank' }],
      accounts: [
        { id: 'csv:checking', org_id: 'csv:bank', name: 'Checking', currency: 'USD', balance: '0' },
      ],
      transactions: Array.from({ length: count }, (_, i) => ({
        id: `csv:bulk-${String(i).padStart(5, '0')}`,
        account_id: 'csv:checking',
        amount: `${i}.01`,
        date: '2024-03-01T00:00:00Z',
        description: `payment ${i} ${'x'.repeat(1000)}`,
      })),
    }),
  )
}

test('replaying streams whose clients never read apply backpressure and let other requests in', async (t) => {
  // Every client here is one address; the per-client cap (default 10) is raised
  // so that the replays themselves are what is tested.
  const app = await startTestApp(t, { env: { SERVICE_EVENTS_MAX_STREAMS_PER_CLIENT: '50' } })
  await ingestMany(app, 3000)
  const clients = 30
  const sockets: Socket[] = []
  t.after(() => sockets.forEach((s) => s.destroy()))

  // Per event-loop turn, how much each stream wrote: a stream must hand the loop
  // back every SSE_YIELD_BYTES (plus the frame that crossed it), however much
  // the kernel would take, so that /healthz is never stuck behind a replay.
  const seen = new Map<SseStream, number>()
  let worstTurn = 0
  let turns = 0
  let ticking = true
  const tick = () => {
    if (!ticking) return
    turns += 1
    for (const stream of app.sse.open) {
      const before = seen.get(stream) ?? 0
      worstTurn = Math.max(worstTurn, stream.bytesWritten - before)
      seen.set(stream, stream.bytesWritten)
    }
    setImmediate(tick)
  }
  setImmediate(tick)
  t.after(() => {
    ticking = false
  })

  for (let i = 0; i < clients; i++) {
    const socket = await rawSocket(app)
    socket.pause() // never reads: the kernel buffers fill, then the server's
    socket.write(`GET /api/v1/events/stream?after=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)
    sockets.push(socket)
  }
  await eventually(`${clients} streams to open`, () => app.sse.open.size === clients)
  // /healthz answers while they replay (no timing asserted: it answers at all
  // before every stream is done or blocked).
  assert.equal((await app.request('GET', '/healthz')).status, 200)

  // Until the replays are blocked on their full sockets or done.
  let last = -1
  let quietSince = Date.now()
  await eventually('the replays to block or finish', () => {
    const total = [...app.sse.open].reduce((sum, s) => sum + s.bytesWritten, 0)
    if (total !== last) {
      last = total
      quietSince = Date.now()
    }
    return Date.now() - quietSince > 1000
  })
  ticking = false
  assert.ok(turns > 10, `the event loop turned (${turns})`)
  const frameMax = 4 * 1024
  assert.ok(
    worstTurn <= SSE_YIELD_BYTES + frameMax,
    `a stream wrote ${worstTurn} bytes in one event-loop turn (bound ${SSE_YIELD_BYTES} + one frame)`,
  )
  // Nothing piles up in the server for a client that does not read: what the
  // kernel does not take waits in the log, not in memory.
  for (const stream of app.sse.open) {
    assert.ok(stream.buffered() <= 64 * 1024 + frameMax, `buffered ${stream.buffered()} bytes`)
  }
  assert.equal((await app.request('GET', '/healthz')).status, 200)

  // Shutdown does not wait on them (issue 16: within 10 s whatever the service is
  // doing): a stream stalled on a client that never reads ends at once.
  const closing = performance.now()
  await app.stop()
  const closeMs = performance.now() - closing
  assert.ok(closeMs < 10_000, `the service took ${closeMs.toFixed(0)} ms to stop`)
})

// --- slow clients --------------------------------------------------------------

test('a request whose headers or body dribble in is cut off with 408; a stream is not', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_SERVER_REQUEST_TIMEOUT: '2s' } })

  // Slowloris: a header line now and then, never the blank line that ends them.
  const headers = await rawSocket(app)
  const headersAnswer = readUntilClosed(headers, 'dribbled headers')
  headers.write('GET /api/v1/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\n')
  const dribble = setInterval(() => headers.writable && headers.write('X-Slow: 1\r\n'), 300)
  t.after(() => clearInterval(dribble))
  const answer = await headersAnswer
  clearInterval(dribble)
  assert.match(answer, /^HTTP\/1\.1 408 /)
  assert.match(answer, /application\/problem\+json/)

  // A body that never completes.
  const body = await rawSocket(app)
  const bodyAnswer = readUntilClosed(body, 'an unfinished body')
  body.write(
    'POST /api/v1/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
      'Content-Length: 100\r\n\r\n{"name":',
  )
  assert.match(await bodyAnswer, /^HTTP\/1\.1 408 /)

  // An event stream outlives the request timeout: it times the request only.
  const stream = await SseClient.open(app)
  t.after(() => stream.close())
  await new Promise((resolve) => setTimeout(resolve, 3500))
  await expectStatus(app, 'POST', '/api/v1/accounts', 201, { name: 'Late', currency: 'USD' })
  await stream.untilFrames(1)
  assert.equal(stream.frames[0]!.event, 'account.created')
})

// --- headers -------------------------------------------------------------------

test('every answer carries the security headers and no CORS', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const check = (what: string, h: Headers) => {
    assert.equal(h.get('x-content-type-options'), 'nosniff', what)
    assert.equal(h.get('referrer-policy'), 'no-referrer', what)
    assert.equal(
      h.get('content-security-policy'),
      "default-src 'none'; frame-ancestors 'none'",
      what,
    )
    assert.equal(h.get('access-control-allow-origin'), null, what)
  }
  for (const [method, path, token] of [
    ['GET', '/healthz', undefined],
    ['GET', '/metrics', undefined],
    ['GET', '/api/v1/accounts', TOKEN],
    ['GET', '/api/v1/accounts', undefined], // 401
    ['GET', '/api/v1/nope', undefined], // 404
    ['OPTIONS', '/api/v1/accounts', undefined], // a preflight: no CORS
    ['POST', '/mcp', TOKEN], // written by the MCP SDK on the raw response
  ] as const) {
    const res = await app.request(method, path, {
      ...(token ? { token } : {}),
      ...(method === 'POST'
        ? {
            body: { jsonrpc: '2.0', id: 1, method: 'ping' },
            headers: { accept: 'application/json, text/event-stream', origin: app.url },
          }
        : { headers: { origin: 'https://evil.example' } }),
    })
    check(`${method} ${path} (${res.status})`, res.headers)
  }
  const stream = await SseClient.open(app, '', { authorization: `Bearer ${TOKEN}` })
  t.after(() => stream.close())
  check('GET /api/v1/events/stream', stream.response.headers)
})

test('a body over 1 MiB is a 413 problem', async (t) => {
  const app = await startTestApp(t)
  const body = await expectProblem(app, 'POST', '/api/v1/accounts', 413, undefined, {
    rawBody: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 1), currency: 'USD' }),
  })
  assert.match(body.detail, /1 MiB/)
})

// --- logs ----------------------------------------------------------------------

test('one access line per request, without query values or credentials; log.access = false turns it off', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  await app.request('GET', '/api/v1/accounts?limit=5&token=query-secret-value', { token: TOKEN })
  const lines = entries(app).filter((e) => e.msg === 'request' && e.route === '/api/v1/accounts')
  assert.equal(lines.length, 1, JSON.stringify(lines))
  const line = lines[0]!
  assert.equal(line.level, 30)
  assert.equal(line.method, 'GET')
  assert.equal(line.path, '/api/v1/accounts?limit=…&token=…')
  assert.equal(line.status, 200)
  assert.equal(typeof line.duration_ms, 'number')
  assert.equal(typeof line.reqId, 'string')
  const all = app.logs.join('\n')
  assert.ok(!all.includes('query-secret-value'), 'a query value was logged')
  assert.ok(!all.includes(TOKEN), 'the bearer token was logged')
  // Fastify's own "incoming request" / "request completed" lines stay off.
  assert.ok(
    !entries(app).some((e) => e.msg === 'incoming request' || e.msg === 'request completed'),
  )

  const quiet = await startTestApp(t, { env: { SERVICE_LOG_ACCESS: 'false' } })
  await quiet.request('GET', '/api/v1/accounts')
  assert.ok(!entries(quiet).some((e) => e.msg === 'request'))
})

test('a 500 logs method, route, path, request id and the stack; the answer hides them', async (t) => {
  const app = await startTestApp(t)
  // Break the database under a route: the handler fails with an unexpected error.
  await sql`alter table organizations rename to organizations_gone`.execute(app.ctx.db.kysely)
  const body = await expectProblem(app, 'GET', '/api/v1/organizations?limit=2', 500)
  assert.equal(body.detail, 'internal error; see the service log')
  const failed = entries(app).find((e) => e.msg === 'request failed')
  assert.ok(failed, 'the failure is logged')
  assert.equal(failed.level, 50)
  assert.equal(failed.method, 'GET')
  assert.equal(failed.route, '/api/v1/organizations')
  assert.equal(failed.path, '/api/v1/organizations?limit=…')
  assert.equal(typeof failed.reqId, 'string')
  const err = failed.err as { stack?: string; message?: string }
  assert.match(err.stack ?? '', /\n\s+at /, 'the stack is logged')
  // The access line of the same request carries the same request id.
  const access = entries(app).find((e) => e.msg === 'request' && e.status === 500)
  assert.equal(access?.reqId, failed.reqId)
  // The text format shows the stack too, on the lines after the entry.
  const text = formatTextLine(app.logs.find((l) => l.includes('request failed'))!)
  assert.match(text, /ERROR request failed .*method=GET .*route=\/api\/v1\/organizations/)
  assert.match(text, /\n {4}at /)
  await sql`alter table organizations_gone rename to organizations`.execute(app.ctx.db.kysely)
})

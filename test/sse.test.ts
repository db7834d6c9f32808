// The SSE tail of the event log (SPEC 4.6, 6.1.4; CONTRACT 6): frame format and
// headers, new-events-only without ?after, replay-then-follow without a gap or a
// duplicate under concurrent writes, filters, auth, events.enabled = false, and
// the bus dropping a lagging subscriber while the durable follower catches up.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { followEvents } from '../src/events/follow.js'
import type { EventEnvelope } from '../src/events/types.js'
import { ingestBatchInUnit, type IngestTransaction } from '../src/ledger/ingest.js'
import { expectStatus } from './helpers/http.js'
import { eventsAfter, headSequence } from './helpers/ledger.js'
import { startTestApp, type TestAppHandle } from './helpers/app.js'
import { SseClient, WAIT_MS, type Frame } from './helpers/sse.js'
import { waitFor } from './helpers/plugins.js'

const TOKEN = 'sse-test-dashboard-token-0123456789'
async function open(
  t: TestContext,
  app: TestAppHandle,
  query = '',
  headers: Record<string, string> = {},
): Promise<SseClient> {
  const client = await SseClient.open(app, query, headers)
  t.after(() => client.close())
  return client
}

function framesOf(events: readonly EventEnvelope[]): Frame[] {
  return events.map((e) => ({ id: String(e.sequence), event: e.type, data: e }))
}

function csvTransactions(prefix: string, count: number): IngestTransaction[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `csv:${prefix}-${String(i).padStart(5, '0')}`,
    account_id: 'csv:checking',
    amount: `${i}.01`,
    date: '2024-03-01T00:00:00Z',
  }))
}

/** Commits `count` synced transactions (one event each) in one unit of work. */
async function ingest(app: TestAppHandle, prefix: string, count: number): Promise<void> {
  await app.ctx.ledger.mutate((uow) =>
    ingestBatchInUnit(uow, {
      source: 'csv',
      organizations: [{ id: 'csv:bank', name: 'Bank' }],
      accounts: [
        { id: 'csv:checking', org_id: 'csv:bank', name: 'Checking', currency: 'USD', balance: '0' },
      ],
      transactions: csvTransactions(prefix, count),
    }),
  )
}

/** The follower's next event, failing instead of hanging when none comes. */
async function nextWithin(follower: AsyncGenerator<EventEnvelope>): Promise<EventEnvelope> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the follower yielded nothing in time')), WAIT_MS)
  })
  try {
    const next = await Promise.race([follower.next(), timeout])
    assert.equal(next.done, false)
    return next.value
  } finally {
    clearTimeout(timer)
  }
}

async function waitUntil(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS
  while (!(await done())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

async function publishedTotal(app: TestAppHandle): Promise<number> {
  const res = await app.request('GET', '/metrics')
  assert.equal(res.status, 200)
  const match = /^service_events_published_total (\d+)$/m.exec(res.text)
  assert.ok(match, 'service_events_published_total is exported')
  return Number(match[1])
}

async function droppedTotal(app: TestAppHandle): Promise<number> {
  const res = await app.request('GET', '/metrics')
  assert.equal(res.status, 200)
  const match = /^service_events_dropped_total (\d+)$/m.exec(res.text)
  assert.ok(match, 'service_events_dropped_total is exported')
  return Number(match[1])
}

test('frames carry id = sequence, event = type, data = envelope; only new events without ?after', async (t) => {
  const app = await startTestApp(t)
  const acct = await expectStatus(app, 'POST', '/api/v1/accounts', 201, {
    name: 'Before',
    currency: 'usd',
  })
  await expectStatus(app, 'POST', '/api/v1/transactions', 201, {
    account_id: acct.id,
    amount: '1',
    date: '2024-01-01',
  })
  const start = await headSequence(app)
  assert.equal(start, 2)

  const stream = await open(t, app)
  assert.equal(stream.response.status, 200)
  assert.equal(stream.response.headers.get('content-type'), 'text/event-stream; charset=utf-8')
  assert.equal(stream.response.headers.get('x-accel-buffering'), 'no')
  assert.equal(stream.response.headers.get('cache-control'), 'no-cache, no-transform')
  // The opening comment is written once the stream's starting point is fixed.
  await stream.until('the opening comment', () => stream.comments.length > 0)

  const tx = await expectStatus(app, 'POST', '/api/v1/transactions', 201, {
    account_id: acct.id,
    amount: '-2.50',
    date: '2024-01-02',
  })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${tx.id}/labels`, 200, {
    labels: { shop: 'bakery' },
  })
  const fresh = await eventsAfter(app, start)
  assert.deepEqual(
    fresh.map((e) => e.type),
    ['transaction.created', 'label.applied'],
  )
  await stream.untilFrames(2)
  // Exactly the new events, in order, with the envelope GET /events/{sequence} shows.
  assert.deepEqual(stream.frames, framesOf(fresh))
  assert.deepEqual(stream.frames[0]!.data.data, tx)
  for (const frame of stream.frames) {
    assert.deepEqual(await expectStatus(app, 'GET', `/api/v1/events/${frame.id}`, 200), frame.data)
  }
  stream.close()
})

test('?after replays the log and then follows live writes with no gap and no duplicate', async (t) => {
  const app = await startTestApp(t)
  // Several replay pages (500 each) already in the log, plus some HTTP writes.
  await ingest(app, 'old', 3000)
  const acct = await expectStatus(app, 'POST', '/api/v1/accounts', 201, {
    name: 'Live',
    currency: 'usd',
  })
  const existing = await headSequence(app)

  // Writers run before, during and after the stream's replay: the stream opens
  // once they are under way, and they stop only after it has switched to live
  // events (and after at least 300 writes in all).
  let stream: SseClient | null = null
  let written = 0
  const writers = 6
  const perWriter = 50
  const write = async (w: number, i: number) => {
    await expectStatus(app, 'POST', '/api/v1/transactions', 201, {
      account_id: acct.id,
      amount: `${w}.${String(i).padStart(4, '0')}`,
      date: '2024-04-01',
    })
    written++
  }
  const running = Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; i < perWriter || !stream || stream.frames.length <= existing; i++) {
        await write(w, i)
      }
      // A few more once the stream is live.
      for (let i = 0; i < 5; i++) await write(w, perWriter + 10_000 + i)
    }),
  )
  const deadline = Date.now() + WAIT_MS
  while (written < 30) {
    assert.ok(Date.now() < deadline, 'writers make progress')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  stream = await open(t, app, '?after=0')
  await running
  assert.ok(written >= writers * perWriter)

  const log = await eventsAfter(app, 0)
  assert.equal(log.length, existing + written)
  await stream.untilFrames(log.length)

  const sequences = stream.frames.map((f) => Number(f.id))
  assert.deepEqual(
    sequences,
    log.map((e) => e.sequence),
    'the stream is exactly the log',
  )
  for (let i = 1; i < sequences.length; i++) {
    assert.ok(sequences[i]! > sequences[i - 1]!, `strictly increasing at ${i}`)
  }
  assert.equal(new Set(stream.frames.map((f) => f.data.event_id)).size, log.length, 'no duplicates')
  assert.deepEqual(stream.frames, framesOf(log))

  // Nothing extra trails in: a later event is the next frame.
  const last = await expectStatus(app, 'POST', '/api/v1/accounts', 201, {
    name: 'Last',
    currency: 'usd',
  })
  await stream.untilFrames(log.length + 1)
  assert.equal(stream.frames.length, log.length + 1)
  assert.equal(stream.frames.at(-1)!.data.entity_id, last.id)
  stream.close()
})

test('?after=N and Last-Event-ID resume after the given sequence', async (t) => {
  const app = await startTestApp(t)
  await ingest(app, 'x', 5)
  const log = await eventsAfter(app, 0)
  assert.equal(log.length, 6)
  const byQuery = await open(t, app, `?after=${log[2]!.sequence}`)
  const byHeader = await open(t, app, '', { 'last-event-id': String(log[3]!.sequence) })
  // ?after wins over the header.
  const both = await open(t, app, `?after=${log[4]!.sequence}`, { 'last-event-id': '0' })
  await byQuery.untilFrames(3)
  await byHeader.untilFrames(2)
  await both.untilFrames(1)
  // Then they follow live events.
  const live = await expectStatus(app, 'POST', '/api/v1/accounts', 201, {
    name: 'Live',
    currency: 'usd',
  })
  const all = await eventsAfter(app, 0)
  assert.equal(all.at(-1)!.entity_id, live.id)
  await byQuery.untilFrames(4)
  await byHeader.untilFrames(3)
  await both.untilFrames(2)
  assert.deepEqual(byQuery.frames, framesOf(all.slice(3)))
  assert.deepEqual(byHeader.frames, framesOf(all.slice(4)))
  assert.deepEqual(both.frames, framesOf(all.slice(5)))
  for (const s of [byQuery, byHeader, both]) s.close()
})

test('type and entity_type filters apply to the replay and to live events', async (t) => {
  const app = await startTestApp(t)
  const acct = await expectStatus(app, 'POST', '/api/v1/accounts', 201, {
    name: 'A',
    currency: 'usd',
  })
  const tx1 = await expectStatus(app, 'POST', '/api/v1/transactions', 201, {
    account_id: acct.id,
    amount: '1',
    date: '2024-01-01',
  })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${tx1.id}/labels`, 200, {
    labels: { a: 'b' },
  })

  const created = await open(t, app, '?after=0&type=transaction.created')
  const ofTransactions = await open(t, app, '?after=0&entity_type=transaction')
  const both = await open(t, app, '?after=0&type=transaction.created&entity_type=transaction')
  const ofAccounts = await open(t, app, '?after=0&entity_type=account')
  await created.untilFrames(1)
  await ofTransactions.untilFrames(2)
  await both.untilFrames(1)
  await ofAccounts.untilFrames(1)

  // Live: a mix of matching and non-matching events...
  await expectStatus(app, 'PUT', `/api/v1/accounts/${acct.id}`, 200, { name: 'A2' })
  const tx2 = await expectStatus(app, 'POST', '/api/v1/transactions', 201, {
    account_id: acct.id,
    amount: '2',
    date: '2024-01-02',
  })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${tx2.id}/labels`, 200, {
    labels: { c: 'd' },
  })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${tx1.id}`, 200, { amount: '1.5' })
  // ...and last one that every transaction stream matches: once a stream has it,
  // any event it should have left out would already have arrived before it.
  const tx3 = await expectStatus(app, 'POST', '/api/v1/transactions', 201, {
    account_id: acct.id,
    amount: '3',
    date: '2024-01-03',
  })

  const log = await eventsAfter(app, 0)
  assert.deepEqual(
    log.map((e) => [e.type, e.entity_id]),
    [
      ['account.created', acct.id],
      ['transaction.created', tx1.id],
      ['label.applied', tx1.id],
      ['account.updated', acct.id],
      ['transaction.created', tx2.id],
      ['label.applied', tx2.id],
      ['transaction.updated', tx1.id],
      ['transaction.created', tx3.id],
    ],
  )
  const expectCreated = log.filter((e) => e.type === 'transaction.created')
  const expectTransactions = log.filter((e) => e.entity_type === 'transaction')
  const expectAccounts = log.filter((e) => e.entity_type === 'account')
  await created.until('tx3', () => created.frames.at(-1)?.data.entity_id === tx3.id)
  await both.until('tx3', () => both.frames.at(-1)?.data.entity_id === tx3.id)
  await ofTransactions.until('tx3', () => ofTransactions.frames.at(-1)?.data.entity_id === tx3.id)
  assert.deepEqual(created.frames, framesOf(expectCreated))
  assert.deepEqual(both.frames, framesOf(expectCreated))
  assert.deepEqual(ofTransactions.frames, framesOf(expectTransactions))

  // The account stream: a final account event plays the same role.
  const acct2 = await expectStatus(app, 'POST', '/api/v1/accounts', 201, {
    name: 'B',
    currency: 'eur',
  })
  await ofAccounts.until('acct2', () => ofAccounts.frames.at(-1)?.data.entity_id === acct2.id)
  const accountLog = (await eventsAfter(app, 0)).filter((e) => e.entity_type === 'account')
  assert.deepEqual(accountLog.slice(0, -1), expectAccounts)
  assert.deepEqual(ofAccounts.frames, framesOf(accountLog))
  for (const s of [created, ofTransactions, both, ofAccounts]) s.close()
})

test('the stream needs a token once one is configured', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const denied: Array<Record<string, string>> = [{}, { authorization: 'Bearer not-the-token' }]
  for (const headers of denied) {
    const res = await fetch(`${app.url}/api/v1/events/stream`, {
      headers,
      signal: AbortSignal.timeout(WAIT_MS),
    })
    assert.equal(res.status, 401)
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/)
    const body = (await res.json()) as { status: number; title: string }
    assert.equal(body.status, 401)
    assert.equal(body.title, 'Unauthorized')
  }
  // The dashboard token and a read-only API key may both read the stream.
  const key = await app.request('POST', '/api/v1/security/api-keys', {
    token: TOKEN,
    body: { name: 'reader', scope: 'read' },
  })
  assert.equal(key.status, 201, key.text)
  for (const bearer of [TOKEN, key.body.key as string]) {
    const stream = await open(t, app, '?after=0', { authorization: `Bearer ${bearer}` })
    assert.equal(stream.response.status, 200)
    stream.close()
  }
})

test('a revoked API key or a replaced dashboard token ends its open streams; the others go on', async (t) => {
  const app = await startTestApp(t)
  const { token } = await expectStatus(app, 'POST', '/api/v1/security/token', 201, {})
  const admin = { token: token as string }
  const key = await expectStatus(
    app,
    'POST',
    '/api/v1/security/api-keys',
    201,
    { name: 'reader', scope: 'read' },
    admin,
  )
  const byKey = await open(t, app, '', { authorization: `Bearer ${key.key as string}` })
  const byToken = await open(t, app, '', { authorization: `Bearer ${token as string}` })

  await expectStatus(
    app,
    'DELETE',
    `/api/v1/security/api-keys/${key.id as string}`,
    204,
    undefined,
    admin,
  )
  await byKey
    .until('the revoked key’s stream to end', () => byKey.isEnded)
    .catch(() => {
      assert.fail('the revoked key’s stream is still open')
    })
  // The dashboard token's stream still hears what happens.
  await expectStatus(app, 'POST', '/api/v1/accounts', 201, { name: 'Cash', currency: 'USD' }, admin)
  await byToken.untilFrames(1)
  assert.equal(byKey.frames.length, 0, 'nothing reached the revoked key')

  // A new dashboard token ends the previous one's streams.
  await expectStatus(app, 'POST', '/api/v1/security/token', 201, {}, admin)
  await byToken
    .until('the replaced token’s stream to end', () => byToken.isEnded)
    .catch(() => {
      assert.fail('the replaced token’s stream is still open')
    })
})

test('a credential revoked or replaced through another process stops working in this one and ends its streams here', async (t) => {
  // Two services on one database, each with its own context and signals: what one
  // stores, the other hears of by a notice (PostgreSQL) or its poll (SQLite).
  const first = await startTestApp(t)
  const second = await startTestApp(t, { reuse: { dir: first.dir, schema: first.schema } })
  const status = (app: TestAppHandle, token: string, path = '/api/v1/accounts') =>
    app.request('GET', path, { token }).then((res) => res.status)
  // Admin: 200 for the dashboard token in force, whatever the read routes allow.
  const asAdmin = (app: TestAppHandle, token: string) =>
    status(app, token, '/api/v1/security/api-keys')
  const { token } = await expectStatus(first, 'POST', '/api/v1/security/token', 201, {})
  const admin = { token: token as string }
  await waitFor('the second to take the new token', async () =>
    (await asAdmin(second, admin.token)) === 200 ? true : undefined,
  )
  const key = await expectStatus(
    second,
    'POST',
    '/api/v1/security/api-keys',
    201,
    { name: 'reader', scope: 'read' },
    admin,
  )
  const byKey = await open(t, second, '', { authorization: `Bearer ${key.key as string}` })
  const byToken = await open(t, second, '', { authorization: `Bearer ${admin.token}` })

  await expectStatus(
    first,
    'DELETE',
    `/api/v1/security/api-keys/${key.id as string}`,
    204,
    undefined,
    admin,
  )
  await byKey.until('the revoked key’s stream to end', () => byKey.isEnded)
  assert.equal(await status(second, key.key as string), 401)
  assert.equal(byToken.isEnded, false, 'the dashboard token’s stream goes on')

  const next = await expectStatus(first, 'POST', '/api/v1/security/token', 201, {}, admin)
  await byToken.until('the replaced token’s stream to end', () => byToken.isEnded)
  assert.equal(await asAdmin(second, admin.token), 401, 'the replaced token no longer works')
  assert.equal(await asAdmin(second, next.token as string), 200, 'the new one does')

  await expectStatus(first, 'DELETE', '/api/v1/security/token', 204, undefined, {
    token: next.token as string,
  })
  // With no token left, admin routes answer 503 (SPEC 5.3) rather than take the old one.
  await waitFor('the second to drop the revoked token', async () =>
    (await asAdmin(second, next.token as string)) === 503 ? true : undefined,
  )
})

test('events.enabled = false: the stream answers 503', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_EVENTS_ENABLED: 'false' } })
  for (const query of ['', '?after=0']) {
    const res = await fetch(`${app.url}/api/v1/events/stream${query}`, {
      signal: AbortSignal.timeout(WAIT_MS),
    })
    assert.equal(res.status, 503)
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/)
    assert.deepEqual(await res.json(), {
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
      detail: 'the event log is turned off (events.enabled = false)',
    })
  }
})

test('the bus drops a subscriber that does not read; the follower replays the gap', async (t) => {
  // Webhooks off: the dispatcher would be one more subscriber on the bus.
  const app = await startTestApp(t, { env: { SERVICE_WEBHOOKS_ENABLED: 'false' } })
  assert.equal(app.ctx.bus.subscriberCount, 0)
  await ingest(app, 'seed', 3)
  const start = await headSequence(app)

  // A subscriber that never reads is dropped once more than 64 events arrive.
  // (On PostgreSQL events reach the bus from the log tail, a moment after the
  // commit: wait until the bus has published them.)
  const droppedBefore = await droppedTotal(app)
  const publishedBefore = await publishedTotal(app)
  const lazy = app.ctx.bus.subscribe()
  await ingest(app, 'burst', 64)
  await waitUntil(
    '64 events published',
    async () => (await publishedTotal(app)) >= publishedBefore + 64,
  )
  assert.equal(await publishedTotal(app), publishedBefore + 64)
  assert.equal(lazy.dropped, false, 'a full buffer of 64 is still fine')
  await ingest(app, 'more', 1)
  await waitUntil('the lazy subscriber is dropped', async () => lazy.dropped)
  assert.equal(lazy.closed, true)
  assert.equal(await lazy.next(), null)
  assert.equal(await droppedTotal(app), droppedBefore + 1)

  // A slow follower: it is dropped too, but yields every event once, in order.
  const controller = new AbortController()
  t.after(() => controller.abort())
  const follower = followEvents({
    db: app.ctx.db.kysely,
    bus: app.ctx.bus,
    after: start,
    signal: controller.signal,
  })
  const seen: EventEnvelope[] = []
  const droppedMid = await droppedTotal(app)
  const bursts = 4
  for (let b = 0; b < bursts; b++) {
    // Publish a burst larger than the buffer while the follower is not reading.
    await ingest(app, `slow-${b}`, 150)
    const goal = await headSequence(app)
    while (seen.length === 0 || seen.at(-1)!.sequence < goal) {
      seen.push(await nextWithin(follower))
      // Reading slowly: more than a buffer of writes between two reads.
      if (seen.length % 100 === 0) await ingest(app, `mid-${b}-${seen.length}`, 70)
    }
  }
  // Drain what the mid-loop writes added.
  const log = await eventsAfter(app, start)
  while (seen.at(-1)!.sequence < log.at(-1)!.sequence) {
    seen.push(await nextWithin(follower))
  }
  assert.deepEqual(seen, log, 'every event exactly once, in order')
  assert.ok((await droppedTotal(app)) > droppedMid, 'the slow follower was dropped at least once')

  controller.abort()
  assert.deepEqual(await follower.next(), { done: true, value: undefined })
  assert.equal(app.ctx.bus.subscriberCount, 0)
})

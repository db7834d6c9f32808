// The webhook dispatcher end to end (SPEC 6.3, 8; CONTRACT 6): real local
// receivers on 127.0.0.1, the real service, events made through HTTP and through
// the sync engine's ingest path.
import assert from 'node:assert/strict'
import { expectStatus } from './helpers/http.js'
import { test, type TestContext } from 'node:test'
import {
  POSTGRES_DSN,
  sharedDatabase,
  startTestApp,
  type TestAppHandle,
  type TestAppOptions,
} from './helpers/app.js'
import { ManualClock, stepThroughBackoff } from './helpers/clock.js'
import { csvBatch, eventsAfter, headSequence, ingest } from './helpers/ledger.js'
import { signatureValid, startReceiver, waitUntil, type Delivery } from './fakes/receiver.js'

const TOKEN = 'webhooks-delivery-token-0123456789'

/** Every service of this file has the dashboard token; `env` adds to it. */
function appOptions(env: Record<string, string> = {}, clock?: ManualClock): TestAppOptions {
  return { env: { SERVICE_DASHBOARD_TOKEN: TOKEN, ...env }, ...(clock ? { clock } : {}) }
}

async function start(t: TestContext, env: Record<string, string> = {}, clock?: ManualClock) {
  return startTestApp(t, appOptions(env, clock))
}

/** Every request of this file carries the dashboard token. */
function call(app: TestAppHandle, method: string, path: string, status: number, body?: unknown) {
  return expectStatus(app, method, path, status, body, { token: TOKEN })
}

async function subscribe(app: TestAppHandle, url: string, eventTypes: string[]) {
  return call(app, 'POST', '/api/v1/webhooks', 201, { url, event_types: eventTypes }) as Promise<{
    id: string
    secret: string
  }>
}

async function metric(app: TestAppHandle, name: string, labels = ''): Promise<number> {
  const res = await app.request('GET', '/metrics')
  const line = res.text.split('\n').find((l) => l.startsWith(`${name}${labels} `))
  return line ? Number(line.split(' ')[1]) : 0
}

function transactions(count: number, from = 0) {
  return Array.from({ length: count }, (_, i) => ({
    id: `csv:burst-${from + i}`,
    account_id: 'csv:checking',
    amount: `-${from + i}.25`,
    date: '2024-04-01',
    description: `Burst ${from + i}`,
  }))
}

const idsOf = (deliveries: Delivery[]) =>
  new Set(deliveries.map((d) => d.headers['x-service-event-id']))

test('each webhook gets the types it subscribed to; a disabled one gets nothing', async (t) => {
  const app = await start(t)
  const accounts = await startReceiver(t)
  const everything = await startReceiver(t)
  const star = await startReceiver(t)
  const disabled = await startReceiver(t)
  await subscribe(app, accounts.url, ['account.created', 'account.updated'])
  await subscribe(app, everything.url, [])
  await subscribe(app, star.url, ['*'])
  const off = await subscribe(app, disabled.url, ['*'])
  await call(app, 'PUT', `/api/v1/webhooks/${off.id}`, 200, { enabled: false })

  const account = await call(app, 'POST', '/api/v1/accounts', 201, {
    name: 'Cash',
    currency: 'USD',
  })
  await call(app, 'POST', '/api/v1/transactions', 201, {
    account_id: account.id,
    amount: '-4.50',
    date: '2024-04-02',
  })
  await call(app, 'PUT', `/api/v1/accounts/${account.id}`, 200, { name: 'Wallet' })
  await app.webhooks.whenSettled(await headSequence(app, { token: TOKEN }))

  const log = await eventsAfter(app, 0, { token: TOKEN })
  assert.deepEqual(
    log.map((e) => e.type),
    ['account.created', 'transaction.created', 'account.updated'],
  )
  const types = (r: { deliveries: Delivery[] }) =>
    r.deliveries.map((d) => d.headers['x-service-event']).sort()
  assert.deepEqual(types(accounts), ['account.created', 'account.updated'])
  assert.deepEqual(types(everything), ['account.created', 'account.updated', 'transaction.created'])
  assert.deepEqual(types(star), ['account.created', 'account.updated', 'transaction.created'])
  assert.deepEqual(disabled.deliveries, [])

  // Enabled again, it receives what happens from then on.
  await call(app, 'PUT', `/api/v1/webhooks/${off.id}`, 200, { enabled: true })
  await call(app, 'POST', '/api/v1/accounts', 201, { name: 'Savings', currency: 'USD' })
  await disabled.waitFor('a delivery after re-enabling', (d) => d.length === 1)
  const [late] = disabled.deliveries as Delivery[]
  assert.equal(late!.headers['x-service-event'], 'account.created')
  assert.ok(signatureValid(off.secret, late!))
})

test('a failing receiver is retried with growing gaps until the first 2xx; health is recorded', async (t) => {
  // The service's clock moves by hand: each backoff is read off it exactly.
  // It starts at the wall clock's time: receivers reject stale signed timestamps.
  const clock = new ManualClock(Date.now())
  const app = await start(t, { SERVICE_WEBHOOKS_MAX_ATTEMPTS: '5' }, clock)
  // Three failures, then success: four attempts, and no fifth.
  const receiver = await startReceiver(t, (_d, index) => (index < 3 ? 500 : 200))
  const hook = await subscribe(app, receiver.url, ['account.created'])

  await call(app, 'POST', '/api/v1/accounts', 201, { name: 'Cash', currency: 'USD' })
  // Health after the first failure: HTTP 500 recorded (written shortly after the attempt).
  await waitUntil('the first failure to be recorded', async () => {
    const h = await call(app, 'GET', `/api/v1/webhooks/${hook.id}`, 200)
    return h.consecutive_failures >= 1
  })
  const failing = await call(app, 'GET', `/api/v1/webhooks/${hook.id}`, 200)
  assert.equal(failing.last_status, 500)
  assert.equal(failing.last_error, 'HTTP 500')
  assert.equal(failing.last_success_at, null)

  // SPEC 8: 500 ms, then doubling; no attempt before its wait is over.
  const waits = await stepThroughBackoff(clock, receiver, 3)
  assert.deepEqual(waits, [500, 1000, 2000])
  await app.webhooks.whenSettled(await headSequence(app, { token: TOKEN }))
  assert.equal(receiver.deliveries.length, 4)
  const ids = idsOf(receiver.deliveries)
  assert.equal(ids.size, 1, 'every attempt carries the same event id')
  for (const d of receiver.deliveries) assert.ok(signatureValid(hook.secret, d))
  assert.deepEqual(clock.pending(), [], 'no retry is left waiting')

  await waitUntil('the success to be recorded', async () => {
    const h = await call(app, 'GET', `/api/v1/webhooks/${hook.id}`, 200)
    return h.last_success_at !== null
  })
  const healthy = await call(app, 'GET', `/api/v1/webhooks/${hook.id}`, 200)
  assert.equal(healthy.last_status, 200)
  assert.equal(healthy.last_error, null)
  assert.equal(healthy.consecutive_failures, 0)
  assert.equal(healthy.last_attempt_at, healthy.last_success_at)
  assert.equal(await metric(app, 'service_webhook_delivery_attempts_total'), 4)
  assert.equal(await metric(app, 'service_webhook_deliveries_total', '{outcome="delivered"}'), 1)
})

test('a delivery that never gets a 2xx stops after max_attempts and counts as failed', async (t) => {
  const app = await start(t, { SERVICE_WEBHOOKS_MAX_ATTEMPTS: '2' })
  const receiver = await startReceiver(t, () => 503)
  const hook = await subscribe(app, receiver.url, ['*'])
  await call(app, 'POST', '/api/v1/accounts', 201, { name: 'Cash', currency: 'USD' })
  await app.webhooks.whenSettled(await headSequence(app, { token: TOKEN }))
  assert.equal(receiver.deliveries.length, 2)
  assert.equal(await metric(app, 'service_webhook_deliveries_total', '{outcome="failed"}'), 1)
  await waitUntil('health to be written', async () => {
    const h = await call(app, 'GET', `/api/v1/webhooks/${hook.id}`, 200)
    return h.consecutive_failures === 2
  })
  const health = await call(app, 'GET', `/api/v1/webhooks/${hook.id}`, 200)
  assert.equal(health.last_error, 'HTTP 503')
  assert.equal(health.last_status, 503)
})

test('a hanging receiver is cut at webhooks.timeout', async (t) => {
  const app = await start(t, {
    SERVICE_WEBHOOKS_TIMEOUT: '300ms',
    SERVICE_WEBHOOKS_MAX_ATTEMPTS: '1',
  })
  const receiver = await startReceiver(t, () => 'hang')
  const hook = await subscribe(app, receiver.url, ['*'])
  await call(app, 'POST', '/api/v1/accounts', 201, { name: 'Cash', currency: 'USD' })
  await app.webhooks.whenSettled(await headSequence(app, { token: TOKEN }))
  assert.equal(receiver.deliveries.length, 1)
  await waitUntil('the timeout to be recorded', async () => {
    const h = await call(app, 'GET', `/api/v1/webhooks/${hook.id}`, 200)
    return h.last_error !== null
  })
  const health = await call(app, 'GET', `/api/v1/webhooks/${hook.id}`, 200)
  assert.equal(health.last_error, 'timed out after 300 ms')
  assert.equal(health.last_status, null)
  assert.equal(health.consecutive_failures, 1)
  assert.equal(await metric(app, 'service_webhook_deliveries_total', '{outcome="failed"}'), 1)
})

test('an https:// URL on a plain-HTTP port records a short TLS reason', async (t) => {
  const app = await start(t, { SERVICE_WEBHOOKS_MAX_ATTEMPTS: '1' })
  const receiver = await startReceiver(t)
  const hook = await subscribe(app, receiver.url.replace(/^http:/, 'https:'), ['*'])
  await call(app, 'POST', '/api/v1/accounts', 201, { name: 'Cash', currency: 'USD' })
  await app.webhooks.whenSettled(await headSequence(app, { token: TOKEN }))
  await waitUntil('the failure to be recorded', async () => {
    const h = await call(app, 'GET', `/api/v1/webhooks/${hook.id}`, 200)
    return h.last_error !== null
  })
  const health = await call(app, 'GET', `/api/v1/webhooks/${hook.id}`, 200)
  // Not OpenSSL's raw dump ("80BC…:error:0A00010B:SSL routines:…").
  assert.equal(
    health.last_error,
    'TLS handshake failed: the server does not speak TLS on that port',
  )
  assert.equal(health.last_status, null)
})

test('a full queue drops jobs and counts them without stalling the ledger', async (t) => {
  // Every worker hangs on a receiver that never answers, so the queue fills up.
  const receiver = await startReceiver(t, () => 'hang')
  const app = await start(t, { SERVICE_WEBHOOKS_TIMEOUT: '60s' })
  t.after(() => receiver.close()) // before the app stops: releases the hanging attempts
  await subscribe(app, receiver.url, ['*'])
  await ingest(app, csvBatch(transactions(400)))
  const last = await headSequence(app, { token: TOKEN })
  assert.equal(last, 401, 'account.created + 400 transaction.created')
  // 8 in flight + 256 queued; the other 137 jobs are dropped, and the log moves on.
  await waitUntil(
    'the dispatcher to reach the end of the log',
    async () => (await metric(app, 'service_webhook_deliveries_dropped_total')) >= 137,
  )
  await receiver.waitFor('the workers to be busy', (d) => d.length === 8)
  assert.equal(await metric(app, 'service_webhook_deliveries_dropped_total'), 137)
  // The ledger keeps writing at once.
  const res = await app.request('POST', '/api/v1/accounts', {
    token: TOKEN,
    body: { name: 'Still writable', currency: 'USD' },
  })
  assert.equal(res.status, 201)
  // Its job is dropped too: the queue is still full.
  await waitUntil(
    'the next job to be dropped',
    async () => (await metric(app, 'service_webhook_deliveries_dropped_total')) === 138,
  )
})

test('a restart in the middle of a burst delivers every matching event at least once', async (t) => {
  const database = sharedDatabase(t)
  // The first 20 deliveries are answered at once and later ones hang, so the
  // stop surely comes mid-burst; the service's clock moves by hand, so the
  // shutdown grace for the hanging attempts ends when the test says.
  let holding = true
  const receiver = await startReceiver(t, (_d, index) => (holding && index >= 20 ? 'hang' : 200))
  const clock = new ManualClock(Date.now())
  const first = await database.start(appOptions({}, clock))
  const hook = await subscribe(first, receiver.url, ['transaction.created'])
  await ingest(first, csvBatch(transactions(150)))
  // 20 answered, and the 8 workers each holding one that hangs.
  await receiver.waitFor('part of the burst', (d) => d.length === 28)
  const stopping = first.stop()
  await clock.untilTimer()
  assert.deepEqual(clock.pending(), [5_000], 'stop waits 5 s for attempts in flight')
  clock.advance(5_000)
  await stopping
  holding = false
  const beforeRestart = receiver.deliveries.length
  assert.equal(beforeRestart, 28, 'nothing new is attempted once the stop began')

  const second = await database.start(appOptions())
  const wanted = (await eventsAfter(second, 0, { token: TOKEN })).filter(
    (e) => e.type === 'transaction.created',
  )
  assert.equal(wanted.length, 150)
  await receiver.waitFor('every event of the burst', (d) => {
    const got = idsOf(d)
    return wanted.every((e) => got.has(e.event_id))
  })
  for (const d of receiver.deliveries) assert.ok(signatureValid(hook.secret, d))
  // At least once, not a flood: nothing is sent more than twice.
  const counts = new Map<string, number>()
  for (const d of receiver.deliveries) {
    const id = d.headers['x-service-event-id']!
    counts.set(id, (counts.get(id) ?? 0) + 1)
  }
  assert.ok(Math.max(...counts.values()) <= 2)

  // A later event after the restart is delivered once, and old ones are not replayed.
  await second.webhooks.whenSettled(await headSequence(second, { token: TOKEN }))
  const settledCount = receiver.deliveries.length
  await ingest(second, csvBatch(transactions(1, 1000)))
  await receiver.waitFor('the next event', (d) => d.length === settledCount + 1)
  await second.webhooks.whenSettled(await headSequence(second, { token: TOKEN }))
  assert.equal(receiver.deliveries.length, settledCount + 1)
})

test('a dispatcher dropped by the bus replays the gap from the log', async (t) => {
  const app = await start(t)
  const receiver = await startReceiver(t)
  await subscribe(app, receiver.url, ['transaction.created'])
  const droppedBefore = await metric(app, 'service_events_dropped_total')
  // One unit of work publishes 201 events at once: far more than a bus buffer of 64.
  await ingest(app, csvBatch(transactions(200)))
  await app.webhooks.whenSettled(await headSequence(app, { token: TOKEN }))
  assert.ok(
    (await metric(app, 'service_events_dropped_total')) > droppedBefore,
    'the bus dropped the dispatcher',
  )
  const wanted = (await eventsAfter(app, 0, { token: TOKEN })).filter(
    (e) => e.type === 'transaction.created',
  )
  assert.equal(wanted.length, 200)
  const got = idsOf(receiver.deliveries)
  assert.ok(
    wanted.every((e) => got.has(e.event_id)),
    'every event was delivered',
  )
  assert.equal(receiver.deliveries.length, 200, 'each once')
})

test('webhooks.enabled = false and events.enabled = false turn delivery off', async (t) => {
  const switches: Array<Record<string, string>> = [
    { SERVICE_WEBHOOKS_ENABLED: 'false' },
    { SERVICE_EVENTS_ENABLED: 'false' },
  ]
  for (const env of switches) {
    const app = await start(t, env)
    const receiver = await startReceiver(t)
    await subscribe(app, receiver.url, ['*'])
    await call(app, 'POST', '/api/v1/accounts', 201, { name: 'Cash', currency: 'USD' })
    // The registry still works, and a test delivery is still sent on request.
    const hooks = await call(app, 'GET', '/api/v1/webhooks', 200)
    await call(app, 'POST', `/api/v1/webhooks/${hooks.webhooks[0].id}/test`, 200)
    await receiver.waitFor('the test delivery', (d) => d.length >= 1)
    assert.deepEqual(
      receiver.deliveries.map((d) => d.headers['x-service-event']),
      ['webhook.test'],
    )
    assert.ok(app.logs.some((line) => line.includes('webhooks: delivery is off')))
  }
})

test(
  'processes sharing PostgreSQL deliver each event once; another takes over when the dispatching one stops',
  { skip: !POSTGRES_DSN && 'COFFER_TEST_POSTGRES_DSN not set' },
  async (t) => {
    const database = sharedDatabase(t)
    const receiver = await startReceiver(t)
    const first = await database.start(appOptions())
    const second = await database.start(appOptions())
    assert.equal(first.webhooks.dispatching, true)
    assert.equal(second.webhooks.dispatching, false)
    await subscribe(first, receiver.url, ['account.created'])

    for (let i = 0; i < 10; i++) {
      const app = i % 2 === 0 ? first : second
      await call(app, 'POST', '/api/v1/accounts', 201, { name: `A${i}`, currency: 'USD' })
    }
    await first.webhooks.whenSettled(await headSequence(first, { token: TOKEN }))
    assert.equal(receiver.deliveries.length, 10)
    assert.equal(idsOf(receiver.deliveries).size, 10, 'each event once')

    await first.stop()
    await call(second, 'POST', '/api/v1/accounts', 201, { name: 'After', currency: 'USD' })
    await receiver.waitFor('the standby to take over', (d) => d.length === 11, 15_000)
    assert.equal(second.webhooks.dispatching, true)
    assert.equal(idsOf(receiver.deliveries).size, 11)
  },
)

// The webhook registry over HTTP (SPEC 2.8, 4.4, 4.8; CONTRACT 6): shapes, the
// admin tier, input checks, test deliveries, signatures and secret rotation.
import assert from 'node:assert/strict'
import { expectStatus } from './helpers/http.js'
import { test, type TestContext } from 'node:test'
import { startTestApp, type TestAppHandle } from './helpers/app.js'
import { signatureValid, startReceiver, type Answer, type Delivery } from './fakes/receiver.js'

const TOKEN = 'webhooks-dashboard-token-0123456789'
const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/
const SECRET_RE = /^whsec_[A-Za-z0-9_-]{43}$/
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

async function start(t: TestContext, env: Record<string, string> = {}) {
  return startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN, ...env } })
}

/** Every request of this file carries the dashboard token. */
function call(app: TestAppHandle, method: string, path: string, status: number, body?: unknown) {
  return expectStatus(app, method, path, status, body, { token: TOKEN })
}

function assertProblem(res: { status: number; headers: Headers; body: unknown }, status: number) {
  assert.equal(res.status, status)
  assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/)
  const body = res.body as { status: number; detail: string }
  assert.equal(body.status, status)
  assert.equal(typeof body.detail, 'string')
}

test('create, list, get, partial update and delete; the secret is shown only at creation', async (t) => {
  const app = await start(t)
  const created = await call(app, 'POST', '/api/v1/webhooks', 201, {
    url: 'https://hooks.example.test/coffer',
    event_types: ['transaction.created', 'account.created'],
  })
  assert.match(created.id, /^wh_/)
  assert.match(created.secret, SECRET_RE)
  assert.deepEqual(created, {
    id: created.id,
    url: 'https://hooks.example.test/coffer',
    event_types: ['transaction.created', 'account.created'],
    enabled: true,
    secret: created.secret,
  })

  const list = await call(app, 'GET', '/api/v1/webhooks', 200)
  assert.equal(list.webhooks.length, 1)
  const listed = list.webhooks[0]
  assert.match(listed.created_at, TIMESTAMP_RE)
  assert.deepEqual(listed, {
    id: created.id,
    url: 'https://hooks.example.test/coffer',
    event_types: ['transaction.created', 'account.created'],
    enabled: true,
    created_at: listed.created_at,
    updated_at: listed.created_at,
    last_status: null,
    last_error: null,
    last_attempt_at: null,
    last_success_at: null,
    consecutive_failures: 0,
  })
  assert.deepEqual(await call(app, 'GET', `/api/v1/webhooks/${created.id}`, 200), listed)

  // Partial: only `enabled` changes; url and event_types keep their values.
  const disabled = await call(app, 'PUT', `/api/v1/webhooks/${created.id}`, 200, { enabled: false })
  assert.deepEqual(disabled, { ...listed, enabled: false, updated_at: disabled.updated_at })
  const moved = await call(app, 'PUT', `/api/v1/webhooks/${created.id}`, 200, {
    url: 'http://127.0.0.1:9/elsewhere',
    event_types: ['*'],
  })
  assert.deepEqual(moved, {
    ...disabled,
    url: 'http://127.0.0.1:9/elsewhere',
    event_types: ['*'],
    updated_at: moved.updated_at,
  })
  // Nothing in a read carries the secret.
  const everything = JSON.stringify(await call(app, 'GET', '/api/v1/webhooks', 200))
  assert.ok(!everything.includes(created.secret))
  assert.ok(!everything.includes('secret'))

  const res = await app.request('DELETE', `/api/v1/webhooks/${created.id}`, { token: TOKEN })
  assert.equal(res.status, 204)
  assert.equal(res.text, '')
  assert.deepEqual(await call(app, 'GET', '/api/v1/webhooks', 200), { webhooks: [] })
  assertProblem(
    await app.request('DELETE', `/api/v1/webhooks/${created.id}`, { token: TOKEN }),
    404,
  )

  // SPEC 6.1.5: management actions emit no events.
  assert.deepEqual(await call(app, 'GET', '/api/v1/events', 200), { events: [], next: 0 })
  // And the secret never reached the log.
  assert.ok(!app.logs.some((line) => line.includes(created.secret)))
})

test('webhooks are admin tier: 503 without a dashboard token, 403 for an API key, 401 without a bearer', async (t) => {
  const open = await startTestApp(t)
  for (const [method, path] of [
    ['GET', '/api/v1/webhooks'],
    ['POST', '/api/v1/webhooks'],
    ['PUT', '/api/v1/webhooks/wh_x'],
    ['DELETE', '/api/v1/webhooks/wh_x'],
    ['POST', '/api/v1/webhooks/wh_x/test'],
    ['POST', '/api/v1/webhooks/wh_x/rotate-secret'],
  ] as const) {
    const body =
      method === 'POST' || method === 'PUT' ? { url: 'http://a.test', event_types: [] } : undefined
    assertProblem(await open.request(method, path, body === undefined ? {} : { body }), 503)
  }

  const app = await start(t)
  const key = await call(app, 'POST', '/api/v1/security/api-keys', 201, {
    name: 'writer',
    scope: 'read_write',
  })
  assertProblem(await app.request('GET', '/api/v1/webhooks', { token: key.key }), 403)
  assertProblem(
    await app.request('POST', '/api/v1/webhooks', {
      token: key.key,
      body: { url: 'http://a.test/', event_types: [] },
    }),
    403,
  )
  assertProblem(await app.request('GET', '/api/v1/webhooks'), 401)
  assert.deepEqual(await call(app, 'GET', '/api/v1/webhooks', 200), { webhooks: [] })
})

test('bad input is a 400 naming the field; unknown ids are 404', async (t) => {
  const app = await start(t)
  const cases: Array<[unknown, string]> = [
    [{ url: '/relative/path', event_types: [] }, 'url'],
    [{ url: 'ftp://files.example.test/x', event_types: [] }, 'url'],
    [{ url: 'https://user:pass@example.test/x', event_types: [] }, 'url'],
    [{ url: 'not a url', event_types: [] }, 'url'],
    [{ url: '', event_types: [] }, 'url'],
    [{ url: 'https://example.test/x', event_types: ['transaction.exploded'] }, 'event_types.0'],
    [{ url: 'https://example.test/x', event_types: ['*', 'nope'] }, 'event_types.1'],
    [{ url: 'https://example.test/x', event_types: 'transaction.created' }, 'event_types'],
    [{ url: 'https://example.test/x', event_types: [1] }, 'event_types.0'],
    [{ url: 'https://example.test/x' }, 'event_types'],
    [{ event_types: [] }, 'url'],
    [{ url: 'https://example.test/x', event_types: [], enabled: false }, 'enabled'],
    [{ url: 'https://example.test/x', event_types: [], secret: 'mine' }, 'secret'],
  ]
  for (const [body, field] of cases) {
    const res = await app.request('POST', '/api/v1/webhooks', { token: TOKEN, body })
    assertProblem(res, 400)
    assert.deepEqual(
      (res.body as { errors: Array<{ field: string }> }).errors.map((e) => e.field),
      [field],
      JSON.stringify(body),
    )
  }
  assertProblem(await app.request('POST', '/api/v1/webhooks', { token: TOKEN, rawBody: '{' }), 400)

  const hook = await call(app, 'POST', '/api/v1/webhooks', 201, {
    url: 'https://example.test/x',
    event_types: [],
  })
  for (const [body, field] of [
    [{ url: 'mailto:someone@example.test' }, 'url'],
    [{ event_types: ['bogus'] }, 'event_types.0'],
    [{ enabled: 'yes' }, 'enabled'],
    [{ secret: 'x' }, 'secret'],
  ] as const) {
    const res = await app.request('PUT', `/api/v1/webhooks/${hook.id}`, { token: TOKEN, body })
    assertProblem(res, 400)
    assert.equal((res.body as { errors: Array<{ field: string }> }).errors[0]!.field, field)
  }
  // Nothing was half-written.
  const after = await call(app, 'GET', `/api/v1/webhooks/${hook.id}`, 200)
  assert.equal(after.url, 'https://example.test/x')
  assert.equal(after.enabled, true)

  for (const [method, path] of [
    ['GET', '/api/v1/webhooks/wh_missing'],
    ['PUT', '/api/v1/webhooks/wh_missing'],
    ['DELETE', '/api/v1/webhooks/wh_missing'],
    ['POST', '/api/v1/webhooks/wh_missing/test'],
    ['POST', '/api/v1/webhooks/wh_missing/rotate-secret'],
  ] as const) {
    const res = await app.request(method, path, {
      token: TOKEN,
      ...(method === 'PUT' ? { body: { enabled: true } } : {}),
    })
    assertProblem(res, 404)
  }
})

function assertSignedTestDelivery(delivery: Delivery, hookId: string): void {
  assert.equal(delivery.headers['content-type'], 'application/json')
  assert.equal(delivery.headers['x-service-event'], 'webhook.test')
  assert.match(delivery.headers['x-service-event-id'] ?? '', UUID_RE)
  assert.match(delivery.headers['x-service-signature'] ?? '', /^sha256=[0-9a-f]{64}$/)
  assert.deepEqual(delivery.event, {
    sequence: 0,
    event_id: delivery.headers['x-service-event-id'],
    type: 'webhook.test',
    entity_type: 'webhook',
    entity_id: hookId,
    occurred_at: delivery.event.occurred_at,
    data: { webhook_id: hookId, message: 'A test delivery from Coffer.' },
  })
}

test('a test delivery is signed, sent now, and answered 200 with its outcome', async (t) => {
  const app = await start(t, { SERVICE_WEBHOOKS_TIMEOUT: '300ms' })
  let answer: Answer = 204
  const receiver = await startReceiver(t, () => answer)
  const hook = await call(app, 'POST', '/api/v1/webhooks', 201, {
    url: receiver.url,
    event_types: ['account.created'],
  })

  const ok = await call(app, 'POST', `/api/v1/webhooks/${hook.id}/test`, 200)
  assert.equal(Number.isInteger(ok.duration_ms), true)
  assert.deepEqual(ok, { delivered: true, status: 204, duration_ms: ok.duration_ms })
  assert.equal(receiver.deliveries.length, 1)
  const first = receiver.deliveries[0]!
  assertSignedTestDelivery(first, hook.id)
  assert.ok(signatureValid(hook.secret, first), 'the signature verifies with the secret')
  assert.ok(!signatureValid(hook.secret + 'x', first), 'and not with another secret')

  answer = 500
  const failed = await call(app, 'POST', `/api/v1/webhooks/${hook.id}/test`, 200)
  assert.deepEqual(failed, {
    delivered: false,
    status: 500,
    duration_ms: failed.duration_ms,
    error: 'HTTP 500',
  })
  const health = await call(app, 'GET', `/api/v1/webhooks/${hook.id}`, 200)
  assert.equal(health.last_status, 500)
  assert.equal(health.last_error, 'HTTP 500')
  assert.equal(health.consecutive_failures, 1)
  assert.match(health.last_success_at, TIMESTAMP_RE)

  answer = 'hang'
  const slow = await call(app, 'POST', `/api/v1/webhooks/${hook.id}/test`, 200)
  assert.deepEqual(slow, {
    delivered: false,
    status: null,
    duration_ms: slow.duration_ms,
    error: 'timed out after 300 ms',
  })

  await receiver.close()
  const down = await call(app, 'POST', `/api/v1/webhooks/${hook.id}/test`, 200)
  assert.equal(down.delivered, false)
  assert.equal(down.status, null)
  assert.match(down.error, /ECONNREFUSED/)
  const after = await call(app, 'GET', `/api/v1/webhooks/${hook.id}`, 200)
  assert.equal(after.consecutive_failures, 3)
  assert.equal(after.last_status, null)
  assert.match(after.last_error, /ECONNREFUSED/)
  // A test delivery is not an event.
  assert.deepEqual(await call(app, 'GET', '/api/v1/events', 200), { events: [], next: 0 })
})

test('deliveries verify with the secret; rotating it invalidates the old one at once', async (t) => {
  const app = await start(t)
  const receiver = await startReceiver(t)
  const hook = await call(app, 'POST', '/api/v1/webhooks', 201, {
    url: receiver.url,
    event_types: ['account.created'],
  })

  const account = await call(app, 'POST', '/api/v1/accounts', 201, {
    name: 'Cash',
    currency: 'USD',
  })
  await receiver.waitFor('the account.created delivery', (d) => d.length === 1)
  const delivery = receiver.deliveries[0]!
  const [event] = (await call(app, 'GET', '/api/v1/events', 200)).events
  // The body is the envelope exactly as the log serves it.
  assert.deepEqual(delivery.event, event)
  assert.equal(delivery.event.entity_id, account.id)
  assert.equal(delivery.headers['x-service-event'], 'account.created')
  assert.equal(delivery.headers['x-service-event-id'], event.event_id)
  assert.ok(Math.abs(Number(delivery.headers['x-service-timestamp']) - Date.now() / 1000) < 60)
  assert.ok(signatureValid(hook.secret, delivery))

  const rotated = await call(app, 'POST', `/api/v1/webhooks/${hook.id}/rotate-secret`, 200)
  assert.match(rotated.secret, SECRET_RE)
  assert.notEqual(rotated.secret, hook.secret)
  assert.deepEqual(rotated, {
    id: hook.id,
    url: receiver.url,
    event_types: ['account.created'],
    enabled: true,
    secret: rotated.secret,
  })

  await call(app, 'POST', '/api/v1/accounts', 201, { name: 'Card', currency: 'USD' })
  await receiver.waitFor('the second delivery', (d) => d.length === 2)
  const after = receiver.deliveries[1]!
  assert.ok(signatureValid(rotated.secret, after), 'the new secret verifies')
  assert.ok(!signatureValid(hook.secret, after), 'the old secret no longer does')

  await call(app, 'POST', `/api/v1/webhooks/${hook.id}/test`, 200)
  assert.ok(signatureValid(rotated.secret, receiver.deliveries[2]!))
  assert.ok(!signatureValid(hook.secret, receiver.deliveries[2]!))
  for (const secret of [hook.secret, rotated.secret]) {
    assert.ok(!app.logs.some((line) => line.includes(secret)), 'no secret in the log')
  }
})

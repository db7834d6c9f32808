// The dashboard token's lifecycle (SPEC 5.3, CONTRACT 3b) and API keys (SPEC 2.7):
// bootstrap from loopback, paste, rotate, revoke, config precedence, restarts,
// minting, listing without secrets, revoking, and the once-a-minute last_used_at.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { networkInterfaces } from 'node:os'
import { test } from 'node:test'
import type { Clock } from '../src/clock.js'
import { startTestApp, type TestAppHandle, type TestResponse } from './helpers/app.js'

const KEY_RE = /^coffer_[A-Za-z0-9_-]{43}$/

class TestClock implements Clock {
  constructor(private ms: number) {}
  now(): Date {
    return new Date(this.ms)
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000
  }
  /** The fixed-width UTC form the service stores (whole seconds). */
  iso(): string {
    return `${new Date(this.ms).toISOString().slice(0, 19)}Z`
  }
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  503: 'Service Unavailable',
}

/** Asserts an RFC 9457 answer; returns its body for further checks. */
function assertProblem(
  res: TestResponse,
  status: number,
  detail?: RegExp,
): { detail: string; errors?: Array<{ field: string; message: string }> } {
  assert.equal(res.status, status, res.text)
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/)
  const { errors: _errors, ...rest } = res.body
  assert.deepEqual(rest, {
    type: 'about:blank',
    title: TITLES[status],
    status,
    detail: rest.detail,
  })
  assert.equal(typeof rest.detail, 'string')
  if (detail) assert.match(rest.detail, detail)
  return res.body
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

function assertNoSecretInLogs(app: TestAppHandle, secrets: string[]): void {
  // The service logs at least its listening line, so this reads a real log.
  assert.ok(
    app.logs.some((line) => line.includes('listening on')),
    'no log lines were captured',
  )
  const all = app.logs.join('\n')
  for (const secret of secrets) {
    assert.ok(!all.includes(secret), `a secret appears in the log: ${secret.slice(0, 10)}…`)
    assert.ok(!all.includes(sha256(secret)), 'a secret hash appears in the log')
  }
}

async function bootstrap(app: TestAppHandle): Promise<string> {
  const res = await app.request('POST', '/api/v1/security/token', { body: {} })
  assert.equal(res.status, 201, res.text)
  assert.deepEqual(res.body, { token: res.body.token, source: 'stored', replaced: false })
  assert.equal(typeof res.body.token, 'string')
  assert.ok(res.body.token.length >= 16)
  return res.body.token
}

test('bootstrap: a loopback client creates the first token without auth, then it is an admin route', async (t) => {
  const app = await startTestApp(t)
  assert.deepEqual((await app.request('GET', '/api/v1/auth')).body, {
    auth_required: false,
    authenticated: false,
    access: 'read_write',
    token_source: null,
    can_create_token: true,
  })
  assertProblem(await app.request('GET', '/api/v1/security/api-keys'), 503, /dashboard token/)

  const token = await bootstrap(app)
  assert.deepEqual((await app.request('GET', '/api/v1/auth', { token })).body, {
    auth_required: true,
    authenticated: true,
    access: 'admin',
    token_source: 'stored',
    can_create_token: false,
  })
  assert.deepEqual((await app.request('GET', '/api/v1/auth')).body, {
    auth_required: true,
    authenticated: false,
    access: 'none',
    token_source: 'stored',
    can_create_token: false,
  })
  // Admin, read and write routes now need it.
  assertProblem(await app.request('GET', '/api/v1/security/api-keys'), 401)
  assertProblem(await app.request('GET', '/api/v1/accounts'), 401)
  assert.deepEqual((await app.request('GET', '/api/v1/security/api-keys', { token })).body, {
    api_keys: [],
  })
  // The bootstrap exception is gone: a second unauthenticated POST is refused.
  assertProblem(await app.request('POST', '/api/v1/security/token'), 401)
  assertProblem(
    await app.request('POST', '/api/v1/security/token', { body: { token: 'x'.repeat(20) } }),
    401,
  )
  // With the token it rotates: the new one works, the old one no longer does.
  const rotated = await app.request('POST', '/api/v1/security/token', { token, body: {} })
  assert.equal(rotated.status, 201, rotated.text)
  assert.deepEqual(rotated.body, {
    token: rotated.body.token,
    source: 'stored',
    replaced: true,
    notice: rotated.body.notice,
  })
  assert.match(rotated.body.notice, /previous dashboard token.*stopped working/)
  assert.ok(
    app.logs.some((line) => {
      const entry = JSON.parse(line) as { level: number; msg: string }
      return entry.level === 40 && /dashboard token was replaced/.test(entry.msg)
    }),
    'the replacement is logged at warn',
  )
  assert.notEqual(rotated.body.token, token)
  assertProblem(await app.request('GET', '/api/v1/security/api-keys', { token }), 401)
  assert.equal(
    (await app.request('GET', '/api/v1/security/api-keys', { token: rotated.body.token })).status,
    200,
  )
  assertNoSecretInLogs(app, [token, rotated.body.token])
})

test('bootstrap: a pasted token needs at least 16 characters and no white space', async (t) => {
  const app = await startTestApp(t)
  for (const bad of ['', 'short', 'x'.repeat(15)]) {
    const res = await app.request('POST', '/api/v1/security/token', { body: { token: bad } })
    const body = assertProblem(res, 400, /16/)
    assert.deepEqual(body.errors, [{ field: 'token', message: body.errors![0]!.message }])
  }
  assertProblem(
    await app.request('POST', '/api/v1/security/token', { body: { token: 'has white space 123' } }),
    400,
  )
  // Wrong type and unknown fields are 400 too, never coerced.
  assertProblem(
    await app.request('POST', '/api/v1/security/token', { body: { token: 1234567890123456 } }),
    400,
  )
  assertProblem(
    await app.request('POST', '/api/v1/security/token', { body: { tokn: 'x'.repeat(20) } }),
    400,
  )
  // Nothing was stored by the refused attempts.
  assertProblem(await app.request('GET', '/api/v1/security/api-keys'), 503)

  const pasted = 'exactly-16-chars'
  assert.equal(pasted.length, 16)
  const res = await app.request('POST', '/api/v1/security/token', { body: { token: pasted } })
  assert.equal(res.status, 201, res.text)
  assert.deepEqual(res.body, { token: pasted, source: 'stored', replaced: false })
  assert.equal(
    (await app.request('GET', '/api/v1/security/api-keys', { token: pasted })).status,
    200,
  )
  assertProblem(await app.request('GET', '/api/v1/security/api-keys'), 401)
  assertNoSecretInLogs(app, [pasted])
})

test('bootstrap is refused to a client beyond loopback', async (t) => {
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)
  if (!external) {
    t.skip('no non-loopback IPv4 interface on this machine')
    return
  }
  const app = await startTestApp(t, {
    env: { SERVICE_SERVER_ADDR: '0.0.0.0:0', SERVICE_SERVER_ALLOW_UNAUTHENTICATED: 'true' },
  })
  const port = new URL(app.url).port
  const remote = `http://${external.address}:${port}`
  const spoofs: Array<Record<string, string>> = [{}, { 'x-forwarded-for': '127.0.0.1' }]
  for (const headers of spoofs) {
    const res = await fetch(`${remote}/api/v1/security/token`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{}',
    })
    const text = await res.text()
    assertProblem(
      { status: res.status, headers: res.headers, text, body: JSON.parse(text) },
      503,
      /dashboard token/,
    )
  }
  // The same request from loopback succeeds.
  await bootstrap(app)
})

test('a config token makes POST and DELETE /security/token 409', async (t) => {
  const token = 'config-token-abcdefghijklmnop'
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: token } })
  assertProblem(await app.request('POST', '/api/v1/security/token'), 401)
  assertProblem(
    await app.request('POST', '/api/v1/security/token', { token, body: {} }),
    409,
    /configuration/,
  )
  assertProblem(
    await app.request('POST', '/api/v1/security/token', {
      token,
      body: { token: 'pasted-token-0123456789' },
    }),
    409,
  )
  assertProblem(await app.request('DELETE', '/api/v1/security/token', { token }), 409)
  // The config token still works and nothing else does.
  assert.equal((await app.request('GET', '/api/v1/security/api-keys', { token })).status, 200)
  assertProblem(
    await app.request('GET', '/api/v1/security/api-keys', { token: 'pasted-token-0123456789' }),
    401,
  )
  assertNoSecretInLogs(app, [token])
})

test('DELETE /security/token revokes the stored token: admin answers 503 again', async (t) => {
  const app = await startTestApp(t)
  const token = await bootstrap(app)
  assertProblem(await app.request('DELETE', '/api/v1/security/token'), 401)
  const del = await app.request('DELETE', '/api/v1/security/token', { token })
  assert.equal(del.status, 204, del.text)
  assert.equal(del.text, '')
  assert.deepEqual((await app.request('GET', '/api/v1/auth', { token })).body, {
    auth_required: false,
    authenticated: false,
    access: 'read_write',
    token_source: null,
    can_create_token: true,
  })
  assertProblem(await app.request('GET', '/api/v1/security/api-keys', { token }), 503)
  assertProblem(await app.request('DELETE', '/api/v1/security/token', { token }), 503)
  // Read and write are open again, and a new token can be bootstrapped.
  assert.equal((await app.request('GET', '/api/v1/accounts')).status, 200)
  const next = await bootstrap(app)
  assert.notEqual(next, token)
  assertProblem(await app.request('GET', '/api/v1/security/api-keys', { token }), 401)
  assert.equal((await app.request('GET', '/api/v1/security/api-keys', { token: next })).status, 200)
})

test('the stored token and API keys survive a restart', async (t) => {
  const first = await startTestApp(t)
  const token = await bootstrap(first)
  const minted = await first.request('POST', '/api/v1/security/api-keys', {
    token,
    body: { name: 'survivor', scope: 'read' },
  })
  assert.equal(minted.status, 201, minted.text)
  await first.stop()

  const second = await startTestApp(t, { reuse: { dir: first.dir, schema: first.schema } })
  assert.deepEqual((await second.request('GET', '/api/v1/auth')).body, {
    auth_required: true,
    authenticated: false,
    access: 'none',
    token_source: 'stored',
    can_create_token: false,
  })
  assertProblem(await second.request('GET', '/api/v1/security/api-keys'), 401)
  assertProblem(await second.request('POST', '/api/v1/security/token'), 401)
  const list = await second.request('GET', '/api/v1/security/api-keys', { token })
  assert.equal(list.status, 200, list.text)
  assert.deepEqual(
    list.body.api_keys.map((k: { id: string; name: string }) => [k.id, k.name]),
    [[minted.body.id, 'survivor']],
  )
  assert.equal(
    (await second.request('GET', '/api/v1/accounts', { token: minted.body.key })).status,
    200,
  )
  assertNoSecretInLogs(second, [token, minted.body.key])
})

test('API keys: mint, list without secrets, revoke', async (t) => {
  const clock = new TestClock(Date.parse('2024-05-01T12:00:00.250Z'))
  const token = 'dashboard-token-for-api-keys'
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: token }, clock })

  const a = await app.request('POST', '/api/v1/security/api-keys', {
    token,
    body: { name: 'reporting', scope: 'read' },
  })
  assert.equal(a.status, 201, a.text)
  assert.match(a.body.key, KEY_RE)
  assert.deepEqual(a.body, {
    id: a.body.id,
    name: 'reporting',
    prefix: a.body.key.slice(0, 16),
    scope: 'read',
    key: a.body.key,
  })
  assert.equal(typeof a.body.id, 'string')
  const createdA = clock.iso()

  clock.advance(5)
  const b = await app.request('POST', '/api/v1/security/api-keys', {
    token,
    body: { name: 'automation', scope: 'read_write' },
  })
  assert.equal(b.status, 201, b.text)
  assert.match(b.body.key, KEY_RE)
  assert.equal(b.body.prefix, b.body.key.slice(0, 16))
  assert.notEqual(b.body.key, a.body.key)
  assert.notEqual(b.body.id, a.body.id)

  const list = await app.request('GET', '/api/v1/security/api-keys', { token })
  assert.equal(list.status, 200, list.text)
  assert.deepEqual(list.body, {
    api_keys: [
      {
        id: a.body.id,
        name: 'reporting',
        prefix: a.body.prefix,
        scope: 'read',
        created_at: createdA,
        last_used_at: null,
      },
      {
        id: b.body.id,
        name: 'automation',
        prefix: b.body.prefix,
        scope: 'read_write',
        created_at: clock.iso(),
        last_used_at: null,
      },
    ],
  })
  for (const key of [a.body.key, b.body.key]) {
    assert.ok(!list.text.includes(key), 'the list shows a full key')
    assert.ok(!list.text.includes(key.slice(16)), 'the list shows the secret part of a key')
    assert.ok(!list.text.includes(sha256(key)), 'the list shows a key hash')
  }

  // Both keys work before revocation.
  assert.equal((await app.request('GET', '/api/v1/accounts', { token: a.body.key })).status, 200)

  const revoked = await app.request('DELETE', `/api/v1/security/api-keys/${a.body.id}`, { token })
  assert.equal(revoked.status, 204, revoked.text)
  assert.equal(revoked.text, '')
  assertProblem(await app.request('GET', '/api/v1/accounts', { token: a.body.key }), 401)
  assert.deepEqual((await app.request('GET', '/api/v1/auth', { token: a.body.key })).body, {
    auth_required: true,
    authenticated: false,
    access: 'none',
    token_source: 'config',
    can_create_token: false,
  })
  assert.deepEqual(
    (await app.request('GET', '/api/v1/security/api-keys', { token })).body.api_keys.map(
      (k: { id: string }) => k.id,
    ),
    [b.body.id],
  )
  // The other key is untouched.
  assert.equal((await app.request('GET', '/api/v1/accounts', { token: b.body.key })).status, 200)
  // Revoking again, or an id that never existed, is 404.
  assertProblem(
    await app.request('DELETE', `/api/v1/security/api-keys/${a.body.id}`, { token }),
    404,
  )
  assertProblem(await app.request('DELETE', '/api/v1/security/api-keys/key_nope', { token }), 404)
  // A key is never an admin credential, not even to revoke itself.
  assertProblem(
    await app.request('DELETE', `/api/v1/security/api-keys/${b.body.id}`, { token: b.body.key }),
    403,
  )
  assertNoSecretInLogs(app, [token, a.body.key, b.body.key])
})

test('API keys: bad bodies are 400 and create nothing', async (t) => {
  const token = 'dashboard-token-for-bad-bodies'
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: token } })
  const cases: Array<{ name: string; body?: unknown; rawBody?: string; field?: string }> = [
    { name: 'unknown scope', body: { name: 'k', scope: 'admin' }, field: 'scope' },
    { name: 'missing scope', body: { name: 'k' }, field: 'scope' },
    { name: 'missing name', body: { scope: 'read' }, field: 'name' },
    { name: 'name of the wrong type', body: { name: 123, scope: 'read' }, field: 'name' },
    { name: 'empty name', body: { name: '   ', scope: 'read' }, field: 'name' },
    { name: 'too long name', body: { name: 'n'.repeat(201), scope: 'read' }, field: 'name' },
    { name: 'unknown field', body: { name: 'k', scope: 'read', key: 'mine' }, field: 'key' },
    { name: 'array body', body: [{ name: 'k', scope: 'read' }] },
    { name: 'not JSON', rawBody: '{"name": "k", scope: read}' },
  ]
  for (const c of cases) {
    const res = await app.request('POST', '/api/v1/security/api-keys', {
      token,
      ...(c.rawBody !== undefined ? { rawBody: c.rawBody } : { body: c.body }),
    })
    const body = assertProblem(res, 400)
    if (c.field) {
      assert.ok(
        body.errors?.some((e) => e.field === c.field),
        `${c.name}: errors do not name ${c.field}: ${res.text}`,
      )
    }
  }
  assert.deepEqual((await app.request('GET', '/api/v1/security/api-keys', { token })).body, {
    api_keys: [],
  })
})

test('API keys: last_used_at is written at most once a minute', async (t) => {
  const clock = new TestClock(Date.parse('2024-05-01T12:00:00.000Z'))
  const token = 'dashboard-token-for-last-used'
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: token }, clock })
  const minted = await app.request('POST', '/api/v1/security/api-keys', {
    token,
    body: { name: 'usage', scope: 'read' },
  })
  assert.equal(minted.status, 201, minted.text)
  const key: string = minted.body.key
  const lastUsed = async (): Promise<string | null> => {
    const res = await app.request('GET', '/api/v1/security/api-keys', { token })
    assert.equal(res.status, 200, res.text)
    return res.body.api_keys[0].last_used_at
  }
  assert.equal(await lastUsed(), null)

  clock.advance(10)
  const firstUse = clock.iso()
  assert.equal((await app.request('GET', '/api/v1/accounts', { token: key })).status, 200)
  assert.equal(await lastUsed(), firstUse)

  clock.advance(30)
  assert.equal((await app.request('GET', '/api/v1/events', { token: key })).status, 200)
  assert.equal(await lastUsed(), firstUse, 'rewritten within a minute')

  clock.advance(29) // 59 s after the first use
  assert.equal((await app.request('GET', '/api/v1/accounts', { token: key })).status, 200)
  assert.equal(await lastUsed(), firstUse, 'rewritten within a minute')

  clock.advance(2) // 61 s after the first use
  const secondWrite = clock.iso()
  assert.equal((await app.request('GET', '/api/v1/accounts', { token: key })).status, 200)
  assert.equal(await lastUsed(), secondWrite)

  // Only the matching key counts: a near miss changes nothing.
  clock.advance(61)
  assertProblem(await app.request('GET', '/api/v1/accounts', { token: `${key}x` }), 401)
  assert.equal(await lastUsed(), secondWrite)
  assertNoSecretInLogs(app, [token, key])
})

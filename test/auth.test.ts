// The authentication matrix of SPEC 5.1 / 5.2 over real HTTP: every kind of
// credential against one route of every tier, in each of the three ways the
// dashboard token can be set up (none, config/env, stored through the API).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createApiKey } from '../src/auth/api-keys.js'
import { startTestApp, type TestAppHandle, type TestResponse } from './helpers/app.js'

type Tier = 'open' | 'read' | 'write' | 'admin'

interface Route {
  tier: Tier
  method: string
  path: string
  body?: unknown
  /** The status of a permitted call. */
  ok: number
}

const ROUTES: Route[] = [
  { tier: 'open', method: 'GET', path: '/healthz', ok: 200 },
  { tier: 'open', method: 'GET', path: '/readyz', ok: 200 },
  { tier: 'open', method: 'GET', path: '/metrics', ok: 200 },
  { tier: 'open', method: 'GET', path: '/api/v1/auth', ok: 200 },
  { tier: 'read', method: 'GET', path: '/api/v1/accounts', ok: 200 },
  { tier: 'read', method: 'GET', path: '/api/v1/events', ok: 200 },
  {
    tier: 'write',
    method: 'POST',
    path: '/api/v1/accounts',
    body: { name: 'Matrix', currency: 'USD' },
    ok: 201,
  },
  { tier: 'admin', method: 'GET', path: '/api/v1/security/api-keys', ok: 200 },
  {
    tier: 'admin',
    method: 'POST',
    path: '/api/v1/security/api-keys',
    body: { name: 'matrix', scope: 'read' },
    ok: 201,
  },
]

type Outcome = 'ok' | 401 | 403 | 503

/** SPEC 5.2 written out per credential and tier (not derived from the code under test). */
type Expectation = Record<Tier, Outcome> & { authenticated: boolean }

const OPEN_READ_WRITE: Expectation = {
  open: 'ok',
  read: 'ok',
  write: 'ok',
  admin: 503,
  authenticated: false,
}
const REJECTED: Expectation = {
  open: 'ok',
  read: 401,
  write: 401,
  admin: 401,
  authenticated: false,
}
const FULL: Expectation = { open: 'ok', read: 'ok', write: 'ok', admin: 'ok', authenticated: true }
const READ_KEY: Expectation = {
  open: 'ok',
  read: 'ok',
  write: 403,
  admin: 403,
  authenticated: true,
}
const READ_WRITE_KEY: Expectation = {
  open: 'ok',
  read: 'ok',
  write: 'ok',
  admin: 403,
  authenticated: true,
}

interface Credential {
  name: string
  /** The Authorization header to send, or none. */
  header: string | null
  expect: Expectation
  /** Secret text that must never be echoed back in a problem body. */
  secret?: string
}

const WRONG_KEY = `coffer_${'A'.repeat(43)}`
const TITLES: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  503: 'Service Unavailable',
}
const DETAIL_HINT: Record<number, RegExp> = {
  401: /token|key/i,
  403: /key/i,
  503: /dashboard token/i,
}

async function call(
  app: TestAppHandle,
  route: Route,
  header: string | null,
): Promise<TestResponse> {
  return app.request(route.method, route.path, {
    ...(route.body !== undefined ? { body: route.body } : {}),
    ...(header !== null ? { headers: { authorization: header } } : {}),
  })
}

function assertProblem(res: TestResponse, status: number, secret: string | undefined): void {
  assert.equal(res.status, status, res.text)
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/)
  assert.deepEqual(res.body, {
    type: 'about:blank',
    title: TITLES[status],
    status,
    detail: res.body.detail,
  })
  assert.equal(typeof res.body.detail, 'string')
  assert.match(res.body.detail, DETAIL_HINT[status]!)
  if (secret) assert.ok(!res.text.includes(secret), 'the problem body echoes the credential')
}

function assertAllowed(res: TestResponse, route: Route): void {
  assert.equal(res.status, route.ok, res.text)
  assert.doesNotMatch(res.headers.get('content-type') ?? '', /problem/)
  if (route.path === '/healthz') assert.equal(res.text, 'ok')
  if (route.path === '/readyz') assert.deepEqual(res.body, { status: 'ready' })
  if (route.path === '/metrics') assert.match(res.text, /service_http_requests_total/)
  if (route.method === 'POST' && route.path === '/api/v1/accounts') {
    assert.equal(res.body.name, 'Matrix')
  }
  if (route.method === 'POST' && route.path === '/api/v1/security/api-keys') {
    assert.match(res.body.key, /^coffer_/)
  }
}

/**
 * Runs every credential against every route; afterwards checks through public reads
 * that exactly the permitted writes took effect.
 */
async function runMatrix(
  t: import('node:test').TestContext,
  app: TestAppHandle,
  credentials: Credential[],
  tokenConfigured: boolean,
  reader: string | null,
): Promise<void> {
  const accountsBefore = (await app.request('GET', '/api/v1/accounts', readerOpts(reader))).body
    .total as number
  let accountsCreated = 0
  let keysCreated = 0
  for (const credential of credentials) {
    for (const route of ROUTES) {
      const expected = credential.expect[route.tier]
      await t.test(`${credential.name} → ${route.method} ${route.path} = ${expected}`, async () => {
        const res = await call(app, route, credential.header)
        if (expected === 'ok') {
          assertAllowed(res, route)
          if (route.method === 'POST' && route.path === '/api/v1/accounts') accountsCreated++
          if (route.method === 'POST' && route.path === '/api/v1/security/api-keys') keysCreated++
        } else {
          assertProblem(res, expected, credential.secret)
        }
        if (route.path === '/api/v1/auth') {
          const { expect } = credential
          // SPEC 2.9's two fields, then what the dashboard reads: the highest tier
          // reached, where the token comes from, and whether this (loopback) client
          // may create the first one (CONTRACT 3b).
          assert.deepEqual(res.body, {
            auth_required: tokenConfigured,
            authenticated: expect.authenticated,
            access:
              expect.admin === 'ok'
                ? 'admin'
                : expect.write === 'ok'
                  ? 'read_write'
                  : expect.read === 'ok'
                    ? 'read'
                    : 'none',
            token_source: tokenConfigured ? res.body.token_source : null,
            can_create_token: !tokenConfigured,
          })
          if (tokenConfigured) assert.match(res.body.token_source, /^(config|stored)$/)
        }
      })
    }
  }
  // Denied writes changed nothing; permitted ones each took effect once.
  const accounts = await app.request('GET', '/api/v1/accounts', readerOpts(reader))
  assert.equal(accounts.status, 200, accounts.text)
  assert.equal(accounts.body.total, accountsBefore + accountsCreated)
  const created = await app.request(
    'GET',
    '/api/v1/events?type=account.created',
    readerOpts(reader),
  )
  assert.equal(created.body.events.length, accountsBefore + accountsCreated)
  if (tokenConfigured) {
    const keys = await app.request('GET', '/api/v1/security/api-keys', readerOpts(reader))
    assert.equal(keys.status, 200, keys.text)
    assert.equal(
      keys.body.api_keys.filter((k: { name: string }) => k.name === 'matrix').length,
      keysCreated,
    )
  }
}

function readerOpts(token: string | null): { token?: string } {
  return token ? { token } : {}
}

async function mintKeys(
  app: TestAppHandle,
  adminToken: string,
): Promise<{ read: string; readWrite: string }> {
  const read = await app.request('POST', '/api/v1/security/api-keys', {
    token: adminToken,
    body: { name: 'reader', scope: 'read' },
  })
  assert.equal(read.status, 201, read.text)
  const readWrite = await app.request('POST', '/api/v1/security/api-keys', {
    token: adminToken,
    body: { name: 'writer', scope: 'read_write' },
  })
  assert.equal(readWrite.status, 201, readWrite.text)
  return { read: read.body.key, readWrite: readWrite.body.key }
}

function tokenCredentials(token: string, keys: { read: string; readWrite: string }): Credential[] {
  return [
    { name: 'dashboard token', header: `Bearer ${token}`, expect: FULL },
    { name: 'dashboard token, lower-case scheme', header: `bearer ${token}`, expect: FULL },
    { name: 'read key', header: `Bearer ${keys.read}`, expect: READ_KEY, secret: keys.read },
    {
      name: 'read_write key',
      header: `Bearer ${keys.readWrite}`,
      expect: READ_WRITE_KEY,
      secret: keys.readWrite,
    },
    { name: 'wrong key', header: `Bearer ${WRONG_KEY}`, expect: REJECTED, secret: WRONG_KEY },
    {
      name: 'wrong token (dashboard token plus a character)',
      header: `Bearer ${token}x`,
      expect: REJECTED,
      secret: token,
    },
    {
      name: 'malformed header (dashboard token, Token scheme)',
      header: `Token ${token}`,
      expect: REJECTED,
      secret: token,
    },
    { name: 'malformed header (Basic)', header: 'Basic dXNlcjpwYXNzd29yZA==', expect: REJECTED },
    {
      name: 'malformed header (two values)',
      header: `Bearer ${token} ${token}`,
      expect: REJECTED,
      secret: token,
    },
    { name: 'malformed header (scheme only)', header: 'Bearer', expect: REJECTED },
    { name: 'no header', header: null, expect: REJECTED },
  ]
}

test('no dashboard token configured: read and write open, admin 503', async (t) => {
  const app = await startTestApp(t)
  // Keys can exist without a token (e.g. minted before the token was revoked).
  const read = await createApiKey(app.ctx, { name: 'reader', scope: 'read' })
  const readWrite = await createApiKey(app.ctx, { name: 'writer', scope: 'read_write' })
  const credentials: Credential[] = [
    { name: 'no header', header: null, expect: OPEN_READ_WRITE },
    { name: 'wrong key', header: `Bearer ${WRONG_KEY}`, expect: OPEN_READ_WRITE },
    { name: 'malformed header', header: 'Basic dXNlcjpwYXNzd29yZA==', expect: OPEN_READ_WRITE },
    // A read key does not narrow anything while no token exists (SPEC 5.2 step 2).
    {
      name: 'read key',
      header: `Bearer ${read.key}`,
      expect: { ...OPEN_READ_WRITE, authenticated: true },
    },
    {
      name: 'read_write key',
      header: `Bearer ${readWrite.key}`,
      expect: { ...OPEN_READ_WRITE, authenticated: true },
    },
  ]
  await runMatrix(t, app, credentials, false, null)
})

test('dashboard token from SERVICE_DASHBOARD_TOKEN', async (t) => {
  const token = 'env-dashboard-token-0123456789'
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: token } })
  const keys = await mintKeys(app, token)
  await runMatrix(t, app, tokenCredentials(token, keys), true, token)
})

test('dashboard token stored through POST /api/v1/security/token', async (t) => {
  const app = await startTestApp(t)
  const created = await app.request('POST', '/api/v1/security/token', { body: {} })
  assert.equal(created.status, 201, created.text)
  assert.deepEqual(created.body, { token: created.body.token, source: 'stored', replaced: false })
  const token: string = created.body.token
  const keys = await mintKeys(app, token)
  await runMatrix(t, app, tokenCredentials(token, keys), true, token)
})

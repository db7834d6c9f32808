// The open system routes (SPEC 4.1), the effective configuration with secrets
// redacted (SPEC 4.2, CONTRACT 2), problem answers for unknown routes and
// malformed URLs (CONTRACT 3), and the OpenAPI document describing every route.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { dashboardRoutes } from '../src/http/dashboard.js'
import type { Route } from '../src/http/route.js'
import { ROUTES } from '../src/http/routes.js'
import { buildHttpServer } from '../src/http/server.js'
import { AMOUNT_MAX_LENGTH, AMOUNT_PATTERN } from '../src/decimal.js'
import { ENGINE, startTestApp, type TestAppHandle, type TestResponse } from './helpers/app.js'

function assertProblem(res: TestResponse, status: number): void {
  assert.equal(res.status, status, res.text)
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/)
  const { errors, ...rest } = res.body
  assert.equal(typeof rest.title, 'string')
  assert.deepEqual(rest, { type: 'about:blank', title: rest.title, status, detail: rest.detail })
  assert.equal(typeof rest.detail, 'string')
  assert.ok(rest.detail.length > 0)
  if (errors !== undefined) assert.ok(Array.isArray(errors))
}

/** Polls /metrics until every pattern matches (counters update after the response is sent). */
async function metricsMatching(app: TestAppHandle, patterns: RegExp[]): Promise<string> {
  const deadline = Date.now() + 5000
  for (;;) {
    const res = await app.request('GET', '/metrics')
    assert.equal(res.status, 200, res.text)
    if (patterns.every((p) => p.test(res.text))) return res.text
    if (Date.now() > deadline) {
      const missing = patterns.filter((p) => !p.test(res.text))
      assert.fail(`metrics never matched ${missing.join(', ')}:\n${res.text}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

test('GET /healthz answers text "ok"', async (t) => {
  const app = await startTestApp(t)
  const res = await app.request('GET', '/healthz')
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/)
  assert.equal(res.text, 'ok')
})

test('GET /readyz pings the database: ready, then unavailable once it is closed', async (t) => {
  const app = await startTestApp(t)
  const ready = await app.request('GET', '/readyz')
  assert.equal(ready.status, 200, ready.text)
  assert.deepEqual(ready.body, { status: 'ready' })

  await app.ctx.db.close()
  const down = await app.request('GET', '/readyz')
  assert.equal(down.status, 503, down.text)
  assert.deepEqual(down.body, { status: 'unavailable' })
  // Liveness does not depend on the database.
  assert.equal((await app.request('GET', '/healthz')).text, 'ok')
})

test('GET /metrics is Prometheus text with request counts by route pattern', async (t) => {
  const app = await startTestApp(t)
  const missingId = 'acct_never_seen_4711'
  const unknownPath = '/api/v1/no-such-route-9313'
  assert.equal((await app.request('GET', '/api/v1/accounts')).status, 200)
  assert.equal((await app.request('GET', '/api/v1/accounts')).status, 200)
  assertProblem(await app.request('GET', `/api/v1/accounts/${missingId}`), 404)
  assertProblem(await app.request('GET', unknownPath), 404)

  const text = await metricsMatching(app, [
    /^service_http_requests_total\{method="GET",route="\/api\/v1\/accounts",status="200"\} 2$/m,
    /^service_http_requests_total\{method="GET",route="\/api\/v1\/accounts\/:id",status="404"\} 1$/m,
  ])
  const res = await app.request('GET', '/metrics')
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
  assert.match(text, /^# TYPE service_http_requests_total counter$/m)
  assert.match(text, /^# TYPE service_events_dropped_total counter$/m)
  assert.match(text, /^service_events_dropped_total 0$/m)
  assert.match(text, /^# TYPE service_http_request_duration_seconds histogram$/m)
  // Labels are route patterns, never raw paths (bounded cardinality).
  assert.ok(!text.includes(missingId), 'a raw id became a label value')
  assert.ok(!text.includes(unknownPath), 'an unknown path became a label value')
  // Every sample line is well-formed exposition text. prom-client writes a gauge
  // with no sample yet (the event-loop lag just after start) as `Nan`, which
  // Prometheus parses like `NaN` (its float parser ignores case).
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    assert.match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? -?(\d|NaN|Nan|\+Inf|-Inf)/, line)
  }
})

test('GET /api/v1/config shows the effective configuration with secrets redacted', async (t) => {
  const secrets = {
    SERVICE_DASHBOARD_TOKEN: 'dashboard-secret-5f1d2c7e9a',
    SERVICE_ETHEREUM_API_KEY: 'explorer-secret-8c3b1a0f42',
    SERVICE_AGGREGATOR_ACCESS_URL:
      'https://bridge-user:bridge-secret-77e1@bridge.example/simplefin',
    SERVICE_AGGREGATOR_SETUP_TOKEN: 'setup-secret-aGVsbG8gd29ybGQ',
    SERVICE_CSV_DRIVE_CLIENT_SECRET: 'drive-secret-0d9e8f7a6b',
  }
  const app = await startTestApp(t, {
    env: {
      ...secrets,
      SERVICE_CSV_DRIVE_CLIENT_ID: 'drive-client-id.apps.example',
      SERVICE_ETHEREUM_CHAIN_ID: '10',
      SERVICE_WEBHOOKS_MAX_ATTEMPTS: '7',
      // A DSN shows, with only its password hidden (on PostgreSQL the helper sets a real one).
      ...(ENGINE === 'sqlite'
        ? { SERVICE_DATABASE_DSN: 'postgres://ledger:dsn-secret-3a4b5c@db.example:5432/coffer' }
        : {}),
    },
  })
  const token = secrets.SERVICE_DASHBOARD_TOKEN
  assertProblem(await app.request('GET', '/api/v1/config'), 401)
  const res = await app.request('GET', '/api/v1/config', { token })
  assert.equal(res.status, 200, res.text)
  const config = res.body

  assert.deepEqual(config.dashboard, { token: '[redacted]' })
  assert.deepEqual(config.aggregator, { access_url: '[redacted]', setup_token: '[redacted]' })
  assert.deepEqual(config.ethereum, {
    api_key: '[redacted]',
    chain_id: 10,
    address: null,
    addresses: [],
    api_url: 'https://api.etherscan.io/v2/api',
    rate_limit: 3,
  })
  assert.deepEqual(config.csv, {
    drive_client_id: 'drive-client-id.apps.example',
    drive_client_secret: '[redacted]',
    drive_redirect_url: null,
    drive_api_url: 'https://www.googleapis.com/drive/v3',
    drive_auth_url: 'https://accounts.google.com/o/oauth2/v2/auth',
    drive_token_url: 'https://oauth2.googleapis.com/token',
    folders: [],
  })
  assert.deepEqual(config.server, {
    addr: '127.0.0.1:0',
    base_url: app.url,
    allow_unauthenticated: false,
    allowed_hosts: [],
    allowed_origins: [],
    request_timeout: '30s',
  })
  assert.deepEqual(config.webhooks, { enabled: true, max_attempts: 7, timeout: '10s' })
  assert.deepEqual(config.log, { level: 'info', format: 'json', access: true })
  if (ENGINE === 'sqlite') {
    assert.deepEqual(config.database, {
      driver: 'sqlite',
      path: `${app.dir}/coffer.db`,
      dsn: 'postgres://ledger:[redacted]@db.example:5432/coffer',
    })
    assert.ok(!res.text.includes('dsn-secret-3a4b5c'))
  } else {
    assert.equal(config.database.driver, 'postgres')
    assert.equal(typeof config.database.dsn, 'string')
  }
  for (const [name, secret] of Object.entries(secrets)) {
    assert.ok(!res.text.includes(secret), `${name} appears in GET /api/v1/config`)
  }
  // Not even the password part of the access URL alone.
  assert.ok(!res.text.includes('bridge-secret-77e1'))
  const all = app.logs.join('\n')
  for (const secret of [...Object.values(secrets), 'bridge-secret-77e1']) {
    assert.ok(!all.includes(secret), 'a configured secret appears in the log')
  }
})

test('unknown routes answer 404 problem details', async (t) => {
  const app = await startTestApp(t)
  for (const [method, path] of [
    // Other paths are the dashboard's pages (test/web/serving.test.ts).
    ['GET', '/api/v1/nope'],
    ['GET', '/metrics/nope'],
    ['GET', '/api'],
    ['POST', '/api/v1/nope/deeper?x=1'],
    ['DELETE', '/api/v1/accounts'],
    ['PATCH', '/api/v1/accounts'],
  ] as const) {
    const res = await app.request(method, path)
    assertProblem(res, 404)
    assert.deepEqual(res.body, {
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      detail: res.body.detail,
    })
    assert.match(res.body.detail, new RegExp(path.split('?')[0]!.replace(/\//g, '\\/')))
  }
})

test('malformed URLs answer 4xx problem details, never 5xx', async (t) => {
  const app = await startTestApp(t, {
    env: { SERVICE_DASHBOARD_TOKEN: 'token-for-malformed-urls' },
  })
  const paths = [
    '/api/v1/accounts/%E0%A4%A',
    '/api/v1/accounts/%C0%AF',
    '/api/v1/events/%FF',
    '/api/v1/transactions/%00',
    '/api/v1/transactions/%E0%A4%A/history',
    '/api/v1/accounts?limit=%ZZ',
    '/api/v1/accounts?offset=%E0%A4%A',
    '/%',
    '/api/v1/%',
  ]
  for (const path of paths) {
    for (const token of [undefined, 'token-for-malformed-urls']) {
      const res = await app.request('GET', path, token ? { token } : {})
      assert.ok(res.status >= 400 && res.status < 500, `${path}: ${res.status} ${res.text}`)
      assertProblem(res, res.status)
    }
  }
  // The service is still healthy afterwards.
  assert.equal((await app.request('GET', '/healthz')).text, 'ok')
})

// Schemas of the document are read field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

interface Operation {
  tags?: string[]
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>
}

/** The (method, path) pairs Fastify serves, from its route tree, in OpenAPI path syntax. */
function registeredRoutes(tree: string): Array<[string, string]> {
  const out: Array<[string, string]> = []
  const stack: string[] = []
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line)
    if (!m) continue
    const depth = m[1]!.length / 4
    stack.length = depth
    const full = (stack[depth - 1] ?? '') + m[2]!
    stack.push(full)
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim())) {
      if (method && method !== 'HEAD') {
        out.push([method.toLowerCase(), full.replace(/:([A-Za-z_]+)/g, '{$1}')])
      }
    }
  }
  return out
}

test('GET /api/v1/openapi.json documents every route with a tag and a response schema', async (t) => {
  const app = await startTestApp(t)
  const res = await app.request('GET', '/api/v1/openapi.json')
  assert.equal(res.status, 200, res.text)
  const doc = res.body
  assert.equal(doc.openapi, '3.1.0')
  assert.equal(typeof doc.info.title, 'string')
  assert.deepEqual(doc.components.securitySchemes.bearer, { type: 'http', scheme: 'bearer' })

  const paths = doc.paths as Record<string, Record<string, Operation>>
  // Every served route (but the document itself) is in the document.
  const served = registeredRoutes(app.http.printRoutes({ commonPrefix: false }))
  const dashboardPaths = new Set(dashboardRoutes(null).map((r) => r.url))
  assert.ok(served.length > 20, `could not read the route tree (${served.length} routes)`)
  for (const [method, path] of served) {
    if (path === '/api/v1/openapi.json') continue
    // The dashboard's files and pages (src/http/dashboard.ts) are not API operations.
    if (dashboardPaths.has(path) || dashboardPaths.has(`/${path}`)) continue
    assert.ok(paths[path]?.[method], `${method.toUpperCase()} ${path} is not documented`)
  }

  let operations = 0
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const where = `${method.toUpperCase()} ${path}`
      assert.ok(
        served.some(([m, p]) => m === method && p === path),
        `${where} is documented but not served`,
      )
      if (!path.startsWith('/api/v1/')) continue
      operations++
      assert.ok(Array.isArray(op.tags) && op.tags.length > 0, `${where} has no tag`)
      const responses = op.responses ?? {}
      // A redirect (an OAuth callback) is a success without a body.
      const success = Object.keys(responses).filter((code) => /^[23]\d\d$/.test(code))
      assert.ok(success.length > 0, `${where} documents no success response`)
      for (const code of success) {
        if (code === '204') {
          assert.equal(responses[code]!.content, undefined, `${where} 204 has a body`)
          continue
        }
        if (code.startsWith('3')) continue
        const schemas = Object.values(responses[code]!.content ?? {}).map((c) => c.schema)
        assert.ok(
          schemas.length > 0 && schemas.every((s) => s !== undefined),
          `${where} ${code} has no response schema`,
        )
      }
    }
  }
  assert.ok(operations > 20, `only ${operations} /api/v1 operations documented`)

  // Amounts carry their syntax (CONTRACT 6): what a client may send, and what it gets back.
  const json = (op: Operation, code: string) =>
    op.responses![code]!.content!['application/json']!.schema as Json
  const created = paths['/api/v1/transactions']!.post!
  const sent = (created as Json).requestBody.content['application/json'].schema.properties.amount
  assert.equal(sent.pattern, AMOUNT_PATTERN.source)
  assert.equal(sent.maxLength, AMOUNT_MAX_LENGTH)
  assert.equal(json(created, '201').properties.amount.pattern, '^-?(\\d+(\\.\\d*)?|\\.\\d+)$')
  const account = json(paths['/api/v1/accounts/{id}']!.get!, '200')
  assert.equal(account.properties.balance.pattern, '^-?(\\d+(\\.\\d*)?|\\.\\d+)$')
})

test('a route that names no tier is refused when the server is built, never open', async (t) => {
  const app = await startTestApp(t)
  const untiered = {
    ...ROUTES[0]!,
    url: '/untiered',
    tier: undefined as unknown as Route['tier'],
  }
  await assert.rejects(
    buildHttpServer(
      {
        ctx: app.ctx,
        auth: app.auth,
        sync: app.sync,
        searches: app.searches,
        settings: app.settings,
        update: app.update,
        plugins: app.plugins,
        restart: null,
      },
      [untiered],
    ),
    /GET \/untiered names no tier/,
  )
})

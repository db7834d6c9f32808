// A web page of another origin must not take over a fresh install, read the
// ledger or write to it (docs/security.md). The foreign page is a real HTTP
// server on 127.0.0.1 on another port; its requests are sent by a real HTTP
// client with the headers a browser adds (Origin, Sec-Fetch-Site), and the DNS
// rebinding attack resolves the attacker's name to 127.0.0.1 as a rebound
// browser would, so the service sees `Host: evil.example:<port>`.
import assert from 'node:assert/strict'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { LookupFunction } from 'node:net'
import { test, type TestContext } from 'node:test'
import { startTestApp, type TestApp, type TestResponse } from './helpers/app.js'
import { expectProblem, expectStatus } from './helpers/http.js'

// The attacker's DNS answers 127.0.0.1 once the page is loaded.
const rebind: LookupFunction = (hostname, options, callback) => {
  // The service listens on 127.0.0.1 only, so localhost is resolved to it too.
  const address = hostname === 'evil.example' || hostname === 'localhost' ? '127.0.0.1' : hostname
  if (typeof options === 'object' && options.all) {
    ;(callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
      { address, family: 4 },
    ])
  } else callback(null, address, 4)
}

/** Every answer the tests saw: none may carry a CORS grant. */
const answers: TestResponse[] = []

/** A client at `baseUrl` that sends exactly the headers it is given (fetch would replace Host). */
function client(baseUrl: string): Pick<TestApp, 'request'> {
  return {
    request: (method, path, opts = {}) =>
      new Promise((resolve, reject) => {
        const headers: Record<string, string> = { ...opts.headers }
        const body =
          opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body))
        if (body !== undefined && !Object.keys(headers).some((h) => /^content-type$/i.test(h))) {
          headers['content-type'] = 'application/json'
        }
        if (opts.token) headers.authorization = `Bearer ${opts.token}`
        const req = httpRequest(baseUrl + path, { method, headers, lookup: rebind }, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8')
            const responseHeaders = new Headers()
            for (const [name, value] of Object.entries(res.headers)) {
              if (value !== undefined) responseHeaders.set(name, String(value))
            }
            const type = responseHeaders.get('content-type') ?? ''
            const answer = {
              status: res.statusCode!,
              headers: responseHeaders,
              text,
              body: text && type.includes('json') ? JSON.parse(text) : undefined,
            }
            answers.push(answer)
            resolve(answer)
          })
        })
        req.on('error', reject)
        req.end(body)
      }),
  }
}

/** The attacker's page, served from another port of 127.0.0.1. */
async function foreignPage(t: TestContext, target: string): Promise<string> {
  const server: Server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html')
    // What the page would run in the owner's browser; the test sends the same requests.
    res.end(
      `<script>fetch(${JSON.stringify(target + '/api/v1/security/token')}, {method: 'POST'})</script>`,
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as { port: number }
  const origin = `http://127.0.0.1:${port}`
  const page = await fetch(origin)
  assert.match(await page.text(), /security\/token/)
  return origin
}

function originRefused(origin: string) {
  return {
    type: 'about:blank',
    title: 'Forbidden',
    status: 403,
    detail:
      `a request from the origin ${JSON.stringify(origin)} may not change anything here: ` +
      "it is not this service's own; add it to server.allowed_origins to allow it",
  }
}

function hostRefused(host: string) {
  return {
    type: 'about:blank',
    title: 'Misdirected Request',
    status: 421,
    detail:
      `the Host header ${JSON.stringify(host)} is not a name this service answers to; ` +
      'add the name to server.allowed_hosts if it is yours',
  }
}

const CROSS_SITE_REFUSED = {
  type: 'about:blank',
  title: 'Forbidden',
  status: 403,
  detail:
    'a cross-site request (Sec-Fetch-Site: cross-site) may not change anything; ' +
    'add its origin to server.allowed_origins to allow it',
}

const NO_ACCOUNTS = { accounts: [], total: 0, limit: 100, offset: 0 }

test('a page of another origin cannot create the token, read the ledger or write to it', async (t) => {
  answers.length = 0
  const app = await startTestApp(t)
  const port = new URL(app.url).port
  const foreign = await foreignPage(t, app.url)
  const service = client(app.url)
  const fromPage = { origin: foreign, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' }

  // The token, on a fresh install: a bare POST (no preflight needed) ...
  assert.deepEqual(
    await expectProblem(service, 'POST', '/api/v1/security/token', 403, undefined, {
      headers: fromPage,
    }),
    originRefused(foreign),
  )
  // ... a JSON body (which a browser sends only after a preflight) ...
  assert.deepEqual(
    await expectProblem(service, 'POST', '/api/v1/security/token', 403, {}, { headers: fromPage }),
    originRefused(foreign),
  )
  // ... a form's text/plain body, and a request whose Origin was stripped.
  assert.deepEqual(
    await expectProblem(service, 'POST', '/api/v1/security/token', 403, undefined, {
      rawBody: '{}',
      headers: { ...fromPage, 'content-type': 'text/plain' },
    }),
    originRefused(foreign),
  )
  assert.deepEqual(
    await expectProblem(service, 'POST', '/api/v1/security/token', 403, undefined, {
      headers: { 'sec-fetch-site': 'cross-site' },
    }),
    CROSS_SITE_REFUSED,
  )
  // The preflight is never granted.
  const preflight = await service.request('OPTIONS', '/api/v1/security/token', {
    headers: {
      origin: foreign,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    },
  })
  assert.equal(preflight.status, 404, preflight.text)
  assert.equal(preflight.body.detail, 'no route for OPTIONS /api/v1/security/token')

  // DNS rebinding: the page's own name now points at 127.0.0.1; to the browser
  // its requests are same-origin, so it may read the answers, but the service
  // refuses the name.
  const rebound = client(`http://evil.example:${port}`)
  const evilHost = `evil.example:${port}`
  const sameOrigin = { origin: `http://${evilHost}`, 'sec-fetch-site': 'same-origin' }
  assert.deepEqual(
    await expectProblem(rebound, 'GET', '/api/v1/accounts', 421),
    hostRefused(evilHost),
  )
  assert.deepEqual(
    await expectProblem(rebound, 'GET', '/api/v1/accounts', 421, undefined, {
      headers: { 'sec-fetch-site': 'same-origin' },
    }),
    hostRefused(evilHost),
  )
  assert.deepEqual(
    await expectProblem(
      rebound,
      'POST',
      '/api/v1/security/token',
      421,
      {},
      { headers: sameOrigin },
    ),
    hostRefused(evilHost),
  )
  assert.deepEqual(
    await expectProblem(
      rebound,
      'POST',
      '/api/v1/accounts',
      421,
      { name: 'Stolen', currency: 'USD' },
      { headers: sameOrigin },
    ),
    hostRefused(evilHost),
  )
  // Open routes too (a health probe uses an IP or localhost).
  assert.deepEqual(await expectProblem(rebound, 'GET', '/healthz', 421), hostRefused(evilHost))

  // Writing from the foreign page: 403 before anything runs.
  for (const [method, path, body] of [
    ['POST', '/api/v1/accounts', { name: 'Planted', currency: 'USD' }],
    ['PUT', '/api/v1/accounts/man_acct_x', { name: 'Renamed' }],
    ['DELETE', '/api/v1/accounts/man_acct_x', undefined],
  ] as const) {
    assert.deepEqual(
      await expectProblem(service, method, path, 403, body, { headers: fromPage }),
      originRefused(foreign),
    )
  }
  // An Origin a sandboxed frame or a file sends is foreign too.
  assert.deepEqual(
    await expectProblem(
      service,
      'POST',
      '/api/v1/accounts',
      403,
      { name: 'Sandboxed', currency: 'USD' },
      { headers: { origin: 'null' } },
    ),
    originRefused('null'),
  )

  // Nothing changed: no account, no token.
  assert.deepEqual(await expectStatus(service, 'GET', '/api/v1/accounts', 200), NO_ACCOUNTS)
  assert.deepEqual(await expectStatus(service, 'GET', '/api/v1/auth', 200), {
    auth_required: false,
    authenticated: false,
    access: 'read_write',
    token_source: null,
    can_create_token: true,
  })

  // The same requests from the service's own origin, or with no Origin (curl,
  // scripts, MCP clients), succeed.
  const own = { origin: app.url, 'sec-fetch-site': 'same-origin' }
  const local = client(`http://localhost:${port}`)
  assert.deepEqual(
    await expectStatus(local, 'GET', '/api/v1/accounts', 200, undefined, {
      headers: { 'sec-fetch-site': 'same-origin' },
    }),
    NO_ACCOUNTS,
  )
  const mine = await expectStatus(
    service,
    'POST',
    '/api/v1/accounts',
    201,
    { name: 'Mine', currency: 'USD' },
    { headers: own },
  )
  const scripted = await expectStatus(service, 'POST', '/api/v1/accounts', 201, {
    name: 'Scripted',
    currency: 'USD',
  })
  await expectStatus(
    local,
    'PUT',
    `/api/v1/accounts/${scripted.id}`,
    200,
    { name: 'Scripted too' },
    { headers: { origin: `http://localhost:${port}`, 'sec-fetch-site': 'same-origin' } },
  )
  // Without a JSON body the token is not created, even from the service's own page.
  await expectProblem(service, 'POST', '/api/v1/security/token', 400, undefined, { headers: own })
  await expectProblem(service, 'POST', '/api/v1/security/token', 415, undefined, {
    rawBody: '{}',
    headers: { ...own, 'content-type': 'text/plain' },
  })
  const created = await expectStatus(
    service,
    'POST',
    '/api/v1/security/token',
    201,
    {},
    {
      headers: own,
    },
  )
  assert.deepEqual(created, { token: created.token, source: 'stored', replaced: false })
  const token: string = created.token
  const listed = await expectStatus(service, 'GET', '/api/v1/accounts', 200, undefined, { token })
  assert.deepEqual(
    listed.accounts.map((a: { id: string; name: string }) => [a.id, a.name]).sort(),
    [
      [mine.id, 'Mine'],
      [scripted.id, 'Scripted too'],
    ].sort(),
  )
  // Even with the token, a foreign page's write is refused (before auth runs).
  assert.deepEqual(
    await expectProblem(
      service,
      'POST',
      '/api/v1/accounts',
      403,
      { name: 'Planted', currency: 'USD' },
      { token, headers: fromPage },
    ),
    originRefused(foreign),
  )

  // No answer granted CORS.
  assert.ok(answers.length > 20)
  for (const answer of answers) {
    assert.equal(answer.headers.get('access-control-allow-origin'), null)
    assert.equal(answer.headers.get('access-control-allow-credentials'), null)
  }
})

test('server.allowed_hosts and server.allowed_origins admit a name and a page the owner chose', async (t) => {
  answers.length = 0
  const foreign = await foreignPage(t, 'http://localhost:8080')
  const configured = await startTestApp(t, {
    env: {
      SERVICE_SERVER_ALLOWED_HOSTS: 'evil.example',
      SERVICE_SERVER_ALLOWED_ORIGINS: foreign,
    },
  })
  const cport = new URL(configured.url).port
  const named = client(`http://evil.example:${cport}`)
  assert.deepEqual(await expectStatus(named, 'GET', '/api/v1/accounts', 200), NO_ACCOUNTS)
  await expectStatus(
    client(configured.url),
    'POST',
    '/api/v1/accounts',
    201,
    { name: 'From the dashboard page', currency: 'USD' },
    { headers: { origin: foreign, 'sec-fetch-site': 'cross-site' } },
  )
  // Another port of the allowed host is another origin.
  const other = `http://127.0.0.1:${Number(new URL(foreign).port) === 1 ? 2 : 1}`
  assert.deepEqual(
    await expectProblem(
      client(configured.url),
      'POST',
      '/api/v1/accounts',
      403,
      { name: 'Elsewhere', currency: 'USD' },
      { headers: { origin: other } },
    ),
    originRefused(other),
  )
  for (const answer of answers) {
    assert.equal(answer.headers.get('access-control-allow-origin'), null)
  }
})

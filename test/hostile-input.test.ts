// Hostile input against every write endpoint (CONTRACT 3): whatever arrives —
// broken or truncated JSON, the wrong content type, non-object bodies, unknown
// fields, wrong JSON types, control characters and NUL, deep nesting, prototype
// keys, oversized bodies, numbers a double cannot hold, over-long or garbled
// paths and queries — the answer is a 4xx problem+json (never a 5xx, never a
// hang) and the ledger is exactly as it was.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp, type TestAppHandle } from './helpers/app.js'
import { expectStatus } from './helpers/http.js'

const TOKEN = 'hostile-input-dashboard-token-0123456789'
const REQUEST_TIMEOUT_MS = 10_000
const JSON_TYPE = 'application/json'

type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'array' | 'object'

/** One value of each JSON type, for "wrong type" substitutions. */
const SAMPLES: Record<JsonType, unknown> = {
  string: 'text',
  integer: 7,
  number: 1.5,
  boolean: true,
  null: null,
  array: ['a'],
  object: { a: 'b' },
}

/** Strings a text field must refuse (NUL, C0 controls, DEL). */
const CONTROL_STRINGS = [
  'a\u0000b',
  '\u0000',
  'a\u0001b',
  'esc\u001b[31m',
  'bell\u0007',
  'del\u007f',
]

interface Fixture {
  account: string
  tx1: string
  tx2: string
}

interface Endpoint {
  name: string
  method: 'POST' | 'PUT' | 'DELETE'
  /** The path, with `id` in place of the addressed resource when there is one. */
  path(f: Fixture, id?: string): string
  /** Whether the path carries an id that the hostile-path cases replace. */
  hasId?: boolean
  /** A body the endpoint would accept (DELETE endpoints take none). */
  body?(f: Fixture): Record<string, unknown>
  /** The JSON types each top-level body field accepts. */
  fields?: Record<string, JsonType[]>
  /** Text fields that must refuse control characters (NUL is refused everywhere). */
  text?: string[]
  /** Further bodies that must be refused (nested shapes). */
  badBodies?(f: Fixture): unknown[]
  /** Query strings (with the leading `?`) that must be refused. */
  badQueries?(f: Fixture): string[]
}

const ENDPOINTS: Endpoint[] = [
  {
    name: 'POST /accounts',
    method: 'POST',
    path: () => '/api/v1/accounts',
    body: () => ({ name: 'Savings', currency: 'usd', balance: '10.00' }),
    fields: { name: ['string'], currency: ['string'], balance: ['string'] },
    text: ['name', 'currency', 'balance'],
  },
  {
    name: 'PUT /accounts/{id}',
    method: 'PUT',
    hasId: true,
    path: (f, id = f.account) => `/api/v1/accounts/${id}`,
    body: () => ({ name: 'Renamed', currency: 'eur', balance: '1' }),
    fields: { name: ['string'], currency: ['string'], balance: ['string'] },
    text: ['name', 'currency', 'balance'],
  },
  {
    name: 'DELETE /accounts/{id}',
    method: 'DELETE',
    hasId: true,
    path: (f, id = f.account) => `/api/v1/accounts/${id}`,
  },
  {
    name: 'POST /transactions',
    method: 'POST',
    path: () => '/api/v1/transactions',
    body: (f) => ({
      account_id: f.account,
      amount: '-4.20',
      date: '2024-03-01',
      description: 'Coffee',
      payee: 'Cafe',
      memo: 'oat milk',
      pending: false,
    }),
    fields: {
      account_id: ['string'],
      amount: ['string'],
      date: ['string', 'integer'],
      description: ['string', 'null'],
      payee: ['string', 'null'],
      memo: ['string', 'null'],
      pending: ['boolean'],
    },
    text: ['account_id', 'amount', 'date', 'description', 'payee', 'memo'],
    badBodies: (f) => [
      { account_id: f.account, amount: '1', date: 253402300800 }, // year 10000
      { account_id: f.account, amount: '1', date: -62135596801 }, // before year 1
      { account_id: f.account, amount: '1', date: '2024-02-30' },
      { account_id: f.account, amount: '1e5', date: '2024-01-01' },
      { account_id: f.account, amount: '1'.repeat(65), date: '2024-01-01' },
      { account_id: 'man_acct_missing', amount: '1', date: '2024-01-01' },
      { account_id: 'x'.repeat(600), amount: '1', date: '2024-01-01' },
      { account_id: f.account, amount: '1', date: '2024-01-01', description: 'd'.repeat(5000) },
    ],
  },
  {
    name: 'PUT /transactions/{id}',
    method: 'PUT',
    hasId: true,
    path: (f, id = f.tx1) => `/api/v1/transactions/${id}`,
    body: () => ({ amount: '99.99', date: 1714560000, memo: 'edited', pending: true }),
    fields: {
      account_id: ['string'],
      amount: ['string'],
      date: ['string', 'integer'],
      description: ['string', 'null'],
      payee: ['string', 'null'],
      memo: ['string', 'null'],
      pending: ['boolean'],
    },
    text: ['account_id', 'amount', 'date', 'description', 'payee', 'memo'],
    badBodies: () => [{ account_id: 'man_acct_missing' }, { date: 1e15 }],
  },
  {
    name: 'DELETE /transactions/{id}',
    method: 'DELETE',
    hasId: true,
    path: (f, id = f.tx2) => `/api/v1/transactions/${id}`,
  },
  {
    name: 'PUT /transactions/{id}/labels',
    method: 'PUT',
    hasId: true,
    path: (f, id = f.tx1) => `/api/v1/transactions/${id}/labels`,
    body: () => ({ labels: { category: 'travel', trip: 'rome' } }),
    fields: { labels: ['object'] },
    badBodies: () => [
      { labels: { category: 1 } },
      { labels: { category: null } },
      { labels: { category: ['a'] } },
      { labels: { category: { nested: 'x' } } },
      ...CONTROL_STRINGS.map((s) => ({ labels: { category: s } })),
      ...CONTROL_STRINGS.map((s) => ({ labels: { [s]: 'x' } })),
      { labels: { 'has space': 'x' } },
      { labels: { ['k'.repeat(65)]: 'x' } },
      { labels: { category: 'v'.repeat(257) } },
      { labels: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) },
      { labels: { Category: 'a', category: 'b' } },
    ],
  },
  {
    name: 'DELETE /labels/{key}',
    method: 'DELETE',
    hasId: true,
    path: (_f, id = 'category') => `/api/v1/labels/${id}`,
    badQueries: () => ['?value=food&value=travel', '?value=%00', '?value=a%00b'],
  },
  {
    name: 'PUT /transactions/{id}/extensions',
    method: 'PUT',
    hasId: true,
    path: (f, id = f.tx1) => `/api/v1/transactions/${id}/extensions`,
    body: () => ({ extensions: { 'tax.rate': 0.2, 'custom.app.id': 'abc' } }),
    fields: { extensions: ['object'] },
    badBodies: () => [
      { extensions: { 'tax.rate': 'a\u0000b' } },
      { extensions: { 'tax.\u0000': 1 } },
      { extensions: { 'bad key': 1 } },
      { extensions: { '.leading': 1 } },
      { extensions: { ['k'.repeat(101)]: 1 } },
      { extensions: { 'big.value': 'v'.repeat(9000) } },
      { extensions: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k.${i}`, i])) },
    ],
  },
  {
    name: 'POST /transactions/{id}/relationships',
    method: 'POST',
    hasId: true,
    path: (f, id = f.tx2) => `/api/v1/transactions/${id}/relationships`,
    body: (f) => ({ kind: 'duplicate_of', target: f.tx1 }),
    fields: { kind: ['string'], target: ['string'] },
    text: ['kind', 'target'],
    badBodies: (f) => [
      { kind: 'Upper', target: f.tx1 },
      { kind: 'k'.repeat(65), target: f.tx1 },
      { kind: 'self', target: f.tx2 },
      { kind: 'missing', target: 'man_missing' },
    ],
  },
  {
    name: 'DELETE /transactions/{id}/relationships',
    method: 'DELETE',
    hasId: true,
    path: (f, id = f.tx1) =>
      `/api/v1/transactions/${id}/relationships?kind=refund_of&target=${f.tx2}`,
    badQueries: (f) => [
      `?kind=refund_of&kind=refund_of&target=${f.tx2}`,
      `?kind=refund_of&target=${f.tx2}&target=${f.tx2}`,
      `?kind=refund_of`,
      `?target=${f.tx2}`,
      `?kind=&target=${f.tx2}`,
      `?kind=%00&target=${f.tx2}`,
    ],
  },
  {
    name: 'POST /security/token',
    method: 'POST',
    path: () => '/api/v1/security/token',
    // With a token in the configuration this answers 409 even when well-formed.
    body: () => ({ token: 'a-pasted-token-of-some-length' }),
    fields: { token: ['string'] },
    badBodies: () => [{ token: 'a\u0000b' }, { token: { nested: 'x' } }],
  },
  {
    name: 'DELETE /security/token',
    method: 'DELETE',
    path: () => '/api/v1/security/token',
  },
  {
    name: 'POST /security/api-keys',
    method: 'POST',
    path: () => '/api/v1/security/api-keys',
    body: () => ({ name: 'ci reader', scope: 'read' }),
    fields: { name: ['string'], scope: ['string'] },
    text: ['name', 'scope'],
    badBodies: () => [
      { name: 'x', scope: 'admin' },
      { name: '', scope: 'read' },
      { name: 'n'.repeat(201), scope: 'read' },
    ],
  },
]

interface HostileRequest {
  label: string
  path: string
  body?: string
  contentType?: string | null
  /** The status the answer must have; any 4xx when not given. */
  status?: number
}

/** Every hostile variant of one endpoint. */
function hostileRequests(endpoint: Endpoint, f: Fixture): HostileRequest[] {
  const path = endpoint.path(f)
  const valid = endpoint.body?.(f)
  const validText = JSON.stringify(valid ?? {})
  const out: HostileRequest[] = []
  const add = (label: string, body: string | undefined, extra: Partial<HostileRequest> = {}) =>
    out.push({ label, path, body, ...extra })

  // Bodies that are not JSON at all, or cut short.
  add('malformed JSON', '{"name": }', { status: 400 })
  add('single-quoted JSON', "{'name': 'x'}", { status: 400 })
  add('trailing comma', '{"a": 1,}', { status: 400 })
  add('truncated JSON', validText.slice(0, Math.max(1, Math.floor(validText.length / 2))), {
    status: 400,
  })
  add('only an opening brace', '{', { status: 400 })
  add('binary garbage', '\u00ff\u00fe\u0000\u0001', { status: 400 })
  // Well-formed JSON of the wrong shape.
  for (const [label, text] of [
    ['array body', '[]'],
    ['array of the valid body', `[${validText}]`],
    ['string body', '"hello"'],
    ['number body', '42'],
    ['null body', 'null'],
    ['boolean body', 'true'],
  ]) {
    add(label!, text, { status: 400 })
  }
  // The wrong content type, with a body that would be fine as JSON.
  add('text/plain', validText, { contentType: 'text/plain', status: 415 })
  add('form-encoded', 'name=x&currency=usd', {
    contentType: 'application/x-www-form-urlencoded',
    status: 415,
  })
  add('multipart', '--b\r\n\r\nx\r\n--b--', {
    contentType: 'multipart/form-data; boundary=b',
    status: 415,
  })
  add('no content type', validText, { contentType: null, status: 415 })
  // Nesting, prototype keys, size.
  const deep = '['.repeat(10_000) + ']'.repeat(10_000)
  add('10,000-deep nested arrays', deep, { status: 400 })
  add('10,000-deep nested objects', '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000), {
    status: 400,
  })
  add(
    '__proto__ key',
    `{"__proto__": {"polluted": true}, ${validText.slice(1)}`.replace(/, }$/, '}'),
    {
      status: 400,
    },
  )
  add('constructor.prototype key', `{"constructor": {"prototype": {"polluted": true}}}`, {
    status: 400,
  })
  add('body over 1 MiB', JSON.stringify({ ...valid, padding: 'x'.repeat(1024 * 1024 + 10) }), {
    status: 413,
  })
  add('body over 1 MiB of whitespace', ' '.repeat(1024 * 1024 + 10) + validText, { status: 413 })
  // Hostile paths and queries (with a body the endpoint would otherwise accept).
  const okBody = valid === undefined ? undefined : validText
  if (endpoint.hasId) {
    out.push({
      label: '2,000-character id',
      path: endpoint.path(f, 'x'.repeat(2000)),
      body: okBody,
      status: 414,
    })
    for (const garbage of ['%ff%fe', '%', '%E0%A4%A', 'a%zzb']) {
      out.push({
        label: `garbled id ${garbage}`,
        path: endpoint.path(f, garbage),
        body: okBody,
        status: 400,
      })
    }
    out.push({ label: 'NUL in the id', path: endpoint.path(f, 'a%00b'), body: okBody, status: 400 })
  }
  const base = path.split('?')[0]!
  const query = path.includes('?') ? path.slice(path.indexOf('?')) + '&' : '?'
  out.push({ label: 'NUL in the query', path: `${base}${query}x=%00`, body: okBody, status: 400 })
  out.push({ label: 'NUL in a query key', path: `${base}${query}%00=1`, body: okBody, status: 400 })
  out.push({
    label: 'garbled query with NUL',
    path: `${base}${query}%ff=%fe%00&%E0%A4%A=1`,
    body: okBody,
    status: 400,
  })
  for (const q of endpoint.badQueries?.(f) ?? []) {
    out.push({ label: `query ${q}`, path: `${base}${q}`, body: okBody, status: 400 })
  }

  if (valid === undefined) {
    // A DELETE takes no body: any JSON body is refused rather than ignored.
    add('unknown field in a DELETE body', '{"force": true}', { status: 400 })
    add('10,000-deep nested arrays in a DELETE body', deep, { status: 400 })
    return out
  }

  // Empty bodies, with and without a content type (POST /security/token too:
  // its JSON body is what forces a browser's preflight, docs/security.md).
  add('empty body', '', { status: 400 })
  add('empty body, no content type', undefined, { contentType: null, status: 400 })
  add('whitespace body', '   \n ', { status: 400 })
  // Unknown fields.
  add('unknown field', JSON.stringify({ ...valid, unexpected: 1 }), { status: 400 })
  add('unknown field only', JSON.stringify({ unexpected: 1 }), { status: 400 })
  add('id in the body', JSON.stringify({ ...valid, id: 'chosen-id' }), { status: 400 })
  add('source in the body', JSON.stringify({ ...valid, source: 'aggregator' }), { status: 400 })
  // Wrong JSON types for each field; numbers no double can hold; deep values.
  for (const [field, accepted] of Object.entries(endpoint.fields ?? {})) {
    for (const [type, sample] of Object.entries(SAMPLES)) {
      if (accepted.includes(type as JsonType)) continue
      if (type === 'integer' && accepted.includes('number')) continue
      add(`${field} as ${type}`, JSON.stringify({ ...valid, [field]: sample }), { status: 400 })
    }
    const marker = '"__HUGE__"'
    const withMarker = JSON.stringify({ ...valid, [field]: '__HUGE__' })
    for (const huge of ['1e400', '12345678901234567890', '-1e400', '1' + '0'.repeat(400)]) {
      add(`${field} = ${huge.slice(0, 24)}`, withMarker.replace(marker, huge), { status: 400 })
    }
    add(`${field} nested 10,000 deep`, withMarker.replace(marker, deep), { status: 400 })
    add(`${field} with a __proto__ key`, withMarker.replace(marker, '{"__proto__": {"x": 1}}'), {
      status: 400,
    })
  }
  // Control characters and NUL in text fields.
  for (const field of endpoint.text ?? []) {
    for (const s of CONTROL_STRINGS) {
      add(`${field} = ${JSON.stringify(s)}`, JSON.stringify({ ...valid, [field]: s }), {
        status: 400,
      })
    }
  }
  for (const body of endpoint.badBodies?.(f) ?? []) {
    add(`bad body ${JSON.stringify(body).slice(0, 60)}`, JSON.stringify(body), { status: 400 })
  }
  return out
}

interface Answer {
  status: number
  contentType: string
  text: string
}

async function send(app: TestAppHandle, method: string, request: HostileRequest): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }
  if (request.contentType !== null && request.body !== undefined) {
    headers['content-type'] = request.contentType ?? JSON_TYPE
  }
  // fetch would add text/plain for a string body without a content type; send raw bytes instead.
  const body =
    request.body === undefined
      ? undefined
      : request.contentType === null
        ? new TextEncoder().encode(request.body)
        : request.body
  const res = await fetch(app.url + request.path, {
    method,
    headers,
    body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  })
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    text: await res.text(),
  }
}

/** Everything a client can read about the ledger and its management state. */
async function snapshot(app: TestAppHandle, f: Fixture): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  for (const path of [
    '/api/v1/accounts?limit=1000',
    '/api/v1/organizations?limit=1000',
    '/api/v1/transactions?limit=1000',
    '/api/v1/labels',
    '/api/v1/extensions',
    '/api/v1/relationships',
    `/api/v1/transactions/${f.tx1}/relationships`,
    `/api/v1/transactions/${f.tx1}/history`,
    `/api/v1/transactions/${f.tx2}/history`,
    '/api/v1/events?limit=1000',
    '/api/v1/security/api-keys',
    '/api/v1/auth',
  ]) {
    out[path] = await expectStatus(app, 'GET', path, 200, undefined, { token: TOKEN })
  }
  return out
}

async function fixture(app: TestAppHandle): Promise<Fixture> {
  const call = (method: string, path: string, body: unknown, status: number) =>
    expectStatus(app, method, path, status, body, { token: TOKEN })
  const account = (
    await call('POST', '/api/v1/accounts', { name: 'Checking', currency: 'usd' }, 201)
  ).id
  const tx = (amount: string) =>
    call('POST', '/api/v1/transactions', { account_id: account, amount, date: '2024-02-01' }, 201)
  const tx1 = (await tx('-30.00')).id
  const tx2 = (await tx('30.00')).id
  await call('PUT', `/api/v1/transactions/${tx1}/labels`, { labels: { category: 'food' } }, 200)
  await call(
    'PUT',
    `/api/v1/transactions/${tx1}/extensions`,
    { extensions: { 'tax.deductible': true } },
    200,
  )
  await call(
    'POST',
    `/api/v1/transactions/${tx1}/relationships`,
    { kind: 'refund_of', target: tx2 },
    201,
  )
  await call('POST', '/api/v1/security/api-keys', { name: 'existing', scope: 'read_write' }, 201)
  return { account, tx1, tx2 }
}

test('every write endpoint answers hostile input with a 4xx problem and changes nothing', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const f = await fixture(app)
  const before = await snapshot(app, f)

  for (const endpoint of ENDPOINTS) {
    await t.test(endpoint.name, async () => {
      const failures: string[] = []
      for (const request of hostileRequests(endpoint, f)) {
        const where = `${endpoint.name} [${request.label}]`
        let answer: Answer
        try {
          answer = await send(app, endpoint.method, request)
        } catch (error) {
          failures.push(`${where}: no answer (${(error as Error).message})`)
          continue
        }
        const expected = request.status === undefined ? '4xx' : String(request.status)
        const statusOk =
          request.status === undefined
            ? answer.status >= 400 && answer.status < 500
            : answer.status === request.status
        if (!statusOk) {
          failures.push(
            `${where}: ${answer.status} (expected ${expected}) ${answer.text.slice(0, 200)}`,
          )
          continue
        }
        if (!answer.contentType.startsWith('application/problem+json')) {
          failures.push(`${where}: content-type ${answer.contentType}`)
          continue
        }
        const body = JSON.parse(answer.text) as Record<string, unknown>
        if (
          body.type !== 'about:blank' ||
          body.status !== answer.status ||
          typeof body.title !== 'string' ||
          typeof body.detail !== 'string'
        ) {
          failures.push(`${where}: not a problem body: ${answer.text.slice(0, 200)}`)
        }
      }
      assert.deepEqual(failures, [])
      assert.deepEqual(await snapshot(app, f), before, `${endpoint.name} changed the ledger`)
    })
  }
  // The server is still healthy afterwards.
  const health = await app.request('GET', '/healthz')
  assert.equal(health.status, 200)
  assert.ok(
    !app.logs.some((line) => /"level":50/.test(line) && /request failed/.test(line)),
    'no 500 logged',
  )
})

test('the well-formed requests of the same endpoints succeed (the cases above are only hostile)', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const f = await fixture(app)
  // Each valid request, in an order that keeps the fixture's ids alive until used.
  const expected: Record<string, number> = {
    'POST /accounts': 201,
    'PUT /accounts/{id}': 200,
    'POST /transactions': 201,
    'PUT /transactions/{id}': 200,
    'PUT /transactions/{id}/labels': 200,
    'DELETE /labels/{key}': 200,
    'PUT /transactions/{id}/extensions': 200,
    'DELETE /transactions/{id}/relationships': 200,
    'POST /transactions/{id}/relationships': 201,
    'POST /security/token': 409,
    'DELETE /security/token': 409,
    'POST /security/api-keys': 201,
    'DELETE /transactions/{id}': 204,
    'DELETE /accounts/{id}': 204,
  }
  assert.deepEqual(Object.keys(expected).sort(), ENDPOINTS.map((e) => e.name).sort())
  for (const [name, status] of Object.entries(expected)) {
    const endpoint = ENDPOINTS.find((e) => e.name === name)!
    const body = endpoint.body?.(f)
    const answer = await send(app, endpoint.method, {
      label: 'valid',
      path: endpoint.path(f),
      ...(body === undefined ? { contentType: null } : { body: JSON.stringify(body) }),
    })
    assert.equal(answer.status, status, `${name}: ${answer.text}`)
  }
})

test('repeated and garbled query parameters on list endpoints are 400, never 5xx', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  await fixture(app)
  const paths = [
    '/api/v1/transactions?limit=1&limit=2',
    '/api/v1/accounts?limit=1&limit=2',
    '/api/v1/events?limit=1&limit=2',
    '/api/v1/events?after=1&after=2',
    '/api/v1/transactions?offset=99999999999999999999',
    '/api/v1/transactions?limit=1e400',
    '/api/v1/accounts?offset=-1',
    '/api/v1/transactions?label_key=%00',
    '/api/v1/accounts?org_id=a%00b',
    '/api/v1/events?type=%00',
    '/api/v1/transactions/%ff%fe',
    '/api/v1/transactions/a%00b',
    `/api/v1/transactions/${'x'.repeat(2000)}`,
    '/api/v1/%E0%A4%A',
  ]
  for (const path of paths) {
    const res = await fetch(app.url + path, {
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    })
    const text = await res.text()
    assert.ok(res.status >= 400 && res.status < 500, `${path}: ${res.status} ${text}`)
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, path)
  }
})

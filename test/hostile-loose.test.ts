// Loose input (issue 17): values the service used to read generously — webhook
// URLs the URL parser repairs, numbers in hex or exponent form, repeated query
// keys, fractional unix dates, a garbled Last-Event-ID — are refused with a
// 400 problem that names the field, and nothing is written.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { mkdtempSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../src/db/connect.js'
import { ENGINE, startTestApp, type TestAppHandle } from './helpers/app.js'
import { expectProblem, expectStatus, type Json } from './helpers/http.js'
import { csvBatch, eventsAfter, headSequence, ingest } from './helpers/ledger.js'

const TOKEN = 'hostile-loose-dashboard-token-0123456789'
const auth = { token: TOKEN }

async function start(t: TestContext): Promise<TestAppHandle> {
  return startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
}

/** A Cash account holding one manual transaction described as `description`. */
async function accountWithTransaction(
  app: TestAppHandle,
  description: string,
): Promise<{ account: Json; tx: Json }> {
  const account = await expectStatus(
    app,
    'POST',
    '/api/v1/accounts',
    201,
    { name: 'Cash', currency: 'USD' },
    auth,
  )
  const tx = await expectStatus(
    app,
    'POST',
    '/api/v1/transactions',
    201,
    { account_id: account.id, amount: '-1.00', date: '2024-05-01', description },
    auth,
  )
  return { account, tx }
}

function fieldsOf(problem: Json): string[] {
  return ((problem.errors ?? []) as { field: string }[]).map((e) => e.field)
}

test('webhook URLs with line breaks, spaces, control characters or no host are 400', async (t) => {
  const app = await start(t)
  const bad = [
    'http://hooks.example.test/a\r\nX-Injected: 1',
    'http://hooks.example.test/a\nb',
    'http://hooks.example.test/a\tb',
    'http://hooks.example.test/a b',
    'http://hooks .example.test/',
    'http:///nohost',
    'http:nohost/path',
    'http:\\\\hooks.example.test/',
    'https://',
    'http://?x=1',
  ]
  for (const url of bad) {
    const body = await expectProblem(
      app,
      'POST',
      '/api/v1/webhooks',
      400,
      { url, event_types: ['*'] },
      auth,
    )
    assert.deepEqual(fieldsOf(body), ['url'], JSON.stringify(url))
  }
  const created = await expectStatus(
    app,
    'POST',
    '/api/v1/webhooks',
    201,
    { url: 'https://hooks.example.test/ok?a=1', event_types: ['*'] },
    auth,
  )
  for (const url of bad) {
    const body = await expectProblem(
      app,
      'PUT',
      `/api/v1/webhooks/${created.id}`,
      400,
      { url },
      auth,
    )
    assert.deepEqual(fieldsOf(body), ['url'], JSON.stringify(url))
  }
  const list = await expectStatus(app, 'GET', '/api/v1/webhooks', 200, undefined, auth)
  assert.deepEqual(
    list.webhooks.map((w: Json) => w.url),
    ['https://hooks.example.test/ok?a=1'],
  )
})

test('limit, offset, after and newest accept plain decimal digits only', async (t) => {
  const app = await start(t)
  const lists = [
    ['/api/v1/transactions', ['limit', 'offset']],
    ['/api/v1/accounts', ['limit', 'offset']],
    ['/api/v1/sync/history', ['limit']],
    ['/api/v1/events', ['limit', 'after', 'newest']],
  ] as const
  const malformed = ['0x10', '0b11', '0o7', '1e1', '%20', '', '1.5', '+1', '1_000', 'Infinity']
  for (const [path, keys] of lists) {
    for (const key of keys) {
      for (const value of malformed) {
        const url = `${path}?${key}=${value}`
        const body = await expectProblem(app, 'GET', url, 400, undefined, auth)
        assert.deepEqual(fieldsOf(body), [key], url)
        assert.match(body.detail, new RegExp(`^invalid querystring: ${key} must be integer$`), url)
      }
      await expectStatus(app, 'GET', `${path}?${key}=5`, 200, undefined, auth)
    }
  }
  // Negative stays a 400 (CONTRACT 3), large values are still clamped.
  await expectProblem(app, 'GET', '/api/v1/transactions?limit=-1', 400, undefined, auth)
  const page = await expectStatus(
    app,
    'GET',
    '/api/v1/transactions?limit=0010',
    200,
    undefined,
    auth,
  )
  assert.equal(page.limit, 10)
  const clamped = await expectStatus(
    app,
    'GET',
    '/api/v1/accounts?limit=5000',
    200,
    undefined,
    auth,
  )
  assert.equal(clamped.limit, 1000)
  const stream = await expectProblem(
    app,
    'GET',
    '/api/v1/events/stream?after=1e1',
    400,
    undefined,
    auth,
  )
  assert.deepEqual(fieldsOf(stream), ['after'])
})

test('a repeated query key is a 400 that says so', async (t) => {
  const app = await start(t)
  const cases = [
    ['/api/v1/transactions?since=2024-01-01&since=2024-02-01', 'since'],
    ['/api/v1/transactions?limit=1&limit=2', 'limit'],
    ['/api/v1/events?after=1&after=2', 'after'],
    ['/api/v1/transactions/search?q=a&q=b', 'q'],
  ] as const
  for (const [url, key] of cases) {
    const body = await expectProblem(app, 'GET', url, 400, undefined, auth)
    assert.deepEqual(fieldsOf(body), [key], url)
    assert.match(body.detail, new RegExp(`${key} is given more than once`), url)
  }
})

test('a fractional or out-of-range unix date names the accepted forms', async (t) => {
  const app = await start(t)
  const account = await expectStatus(
    app,
    'POST',
    '/api/v1/accounts',
    201,
    { name: 'Cash', currency: 'usd' },
    auth,
  )
  for (const date of [1700000000.5, 1e300, -0.5]) {
    const body = await expectProblem(
      app,
      'POST',
      '/api/v1/transactions',
      400,
      { account_id: account.id, amount: '-1.00', date },
      auth,
    )
    assert.deepEqual(fieldsOf(body), ['date'], String(date))
    assert.match(body.detail, /YYYY-MM-DD, an RFC 3339 timestamp, or unix seconds/, String(date))
  }
  for (const date of [true, null, ['2024-01-01'], { d: 1 }]) {
    const body = await expectProblem(
      app,
      'POST',
      '/api/v1/transactions',
      400,
      { account_id: account.id, amount: '-1.00', date },
      auth,
    )
    assert.deepEqual(fieldsOf(body), ['date'], JSON.stringify(date))
  }
  const tx = await expectStatus(
    app,
    'POST',
    '/api/v1/transactions',
    201,
    { account_id: account.id, amount: '-1.00', date: 1700000000 },
    auth,
  )
  await expectProblem(app, 'PUT', `/api/v1/transactions/${tx.id}`, 400, { date: 1.25 }, auth)
  const list = await expectStatus(app, 'GET', '/api/v1/transactions', 200, undefined, auth)
  assert.equal(list.total, 1)
})

test('a malformed Last-Event-ID is a 400, as a malformed ?after is', async (t) => {
  const app = await start(t)
  for (const id of ['zzz', '0x10', '1e1', '-1', '1.5', '99999999999999999999']) {
    const body = await expectProblem(app, 'GET', '/api/v1/events/stream', 400, undefined, {
      ...auth,
      headers: { 'last-event-id': id },
    })
    assert.deepEqual(fieldsOf(body), ['Last-Event-ID'], id)
    assert.match(body.detail, /Last-Event-ID.*must be integer/, id)
  }
  const after = await expectProblem(
    app,
    'GET',
    '/api/v1/events/stream?after=abc',
    400,
    undefined,
    auth,
  )
  assert.deepEqual(fieldsOf(after), ['after'])
})

async function rawPost(
  app: TestAppHandle,
  path: string,
  body: Uint8Array,
  headers: Record<string, string>,
): Promise<{ status: number; type: string; body: Json }> {
  const res = await fetch(app.url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body,
  })
  const text = await res.text()
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: JSON.parse(text) }
}

test('an encoded body is 415 and invalid UTF-8 is 400; nothing is written', async (t) => {
  const app = await start(t)
  const plain = new TextEncoder().encode(JSON.stringify({ name: 'Cash', currency: 'usd' }))
  for (const encoding of ['gzip', 'deflate', 'br', 'identity, gzip']) {
    const res = await rawPost(app, '/api/v1/accounts', plain, { 'content-encoding': encoding })
    assert.equal(res.status, 415, encoding)
    assert.match(res.type, /^application\/problem\+json/)
    assert.match(res.body.detail, /Content-Encoding .* is not supported/)
  }
  const name = (bytes: number[]) =>
    new Uint8Array([
      ...new TextEncoder().encode('{"name":"'),
      ...bytes,
      ...new TextEncoder().encode('","currency":"usd"}'),
    ])
  for (const bytes of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0x41, 0x80, 0x42]]) {
    const res = await rawPost(app, '/api/v1/accounts', name(bytes), {})
    assert.equal(res.status, 400, JSON.stringify(bytes))
    assert.match(res.type, /^application\/problem\+json/)
    assert.equal(res.body.detail, 'the request body is not valid UTF-8')
  }
  const accounts = await expectStatus(app, 'GET', '/api/v1/accounts', 200, undefined, auth)
  assert.equal(accounts.total, 0)
  // identity is the one encoding there is; valid multi-byte UTF-8 is kept as sent.
  const ok = await rawPost(app, '/api/v1/accounts', name([0xc3, 0xa9]), {
    'content-encoding': 'identity',
  })
  assert.equal(ok.status, 201)
  assert.equal(ok.body.name, 'é')
})

test('a URL over 16 KiB is 414 and headers over 64 KiB are 431, both problem details', async (t) => {
  const app = await start(t)
  for (const path of [
    `/api/v1/transactions?q=${'a'.repeat(20 * 1024)}`,
    `/api/v1/${'x'.repeat(20 * 1024)}`,
    `/api/v1/accounts?limit=1&${'k=v&'.repeat(5000)}`,
  ]) {
    const body = await expectProblem(app, 'GET', path, 414, undefined, auth)
    assert.equal(body.detail, 'the URL is longer than 16 KiB')
  }
  // Without a token too: the limit is checked before authentication.
  await expectProblem(app, 'GET', `/api/v1/accounts?q=${'a'.repeat(20 * 1024)}`, 414)
  const huge = await fetch(`${app.url}/api/v1/accounts?q=${'a'.repeat(70 * 1024)}`)
  assert.equal(huge.status, 431)
  assert.match(huge.headers.get('content-type') ?? '', /^application\/problem\+json/)
  assert.equal(((await huge.json()) as Json).status, 431)
  const headers = await fetch(`${app.url}/api/v1/accounts`, {
    headers: { 'x-filler': 'f'.repeat(70 * 1024) },
  })
  assert.equal(headers.status, 431)
  assert.match(headers.headers.get('content-type') ?? '', /^application\/problem\+json/)
  // Just under the limit is an ordinary request.
  const near = `/api/v1/accounts?limit=1&pad=${'p'.repeat(16 * 1024 - 64)}`
  await expectStatus(app, 'GET', near, 200, undefined, auth)
})

test(
  'the SQLite database and its -wal/-shm are created 0600 in a 0700 directory',
  { skip: ENGINE !== 'sqlite' },
  async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'coffer-modes-'))
    const dbPath = join(root, 'new', 'data', 'coffer.db')
    const app = await startTestApp(t, {
      env: { SERVICE_DASHBOARD_TOKEN: TOKEN, SERVICE_DATABASE_PATH: dbPath },
    })
    await expectStatus(
      app,
      'POST',
      '/api/v1/webhooks',
      201,
      { url: 'https://hooks.example.test/x', event_types: ['*'] },
      auth,
    )
    const mode = (path: string) => statSync(path).mode & 0o777
    assert.equal(mode(join(root, 'new')), 0o700)
    assert.equal(mode(join(root, 'new', 'data')), 0o700)
    for (const path of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) {
      assert.equal(mode(path).toString(8), '600', path)
    }
    await app.stop()
    // A file an older version created 0644 is tightened when opened.
    const old = join(root, 'old.db')
    writeFileSync(old, '', { mode: 0o644 })
    assert.equal(mode(old), 0o644)
    const db = openDatabase({ driver: 'sqlite', path: old, dsn: null })
    try {
      assert.equal(mode(old).toString(8), '600')
    } finally {
      await db.close()
    }
  },
)

test('a lone UTF-16 surrogate anywhere in a body is a 400 naming its path; nothing is written', async (t) => {
  const app = await start(t)
  const { account, tx } = await accountWithTransaction(app, 'ok')
  const head = await headSequence(app, auth)
  const cases: Array<[string, string, object, string]> = [
    [
      'PUT',
      `/api/v1/transactions/${tx.id}/extensions`,
      { extensions: { 'acme.v': '\ud800' } },
      'extensions.acme.v',
    ],
    [
      'PUT',
      `/api/v1/transactions/${tx.id}/extensions`,
      { extensions: { 'acme.v': ['a', { b: 'x\udfff' }] } },
      'extensions.acme.v[1].b',
    ],
    [
      'PUT',
      `/api/v1/transactions/${tx.id}/extensions`,
      { extensions: { 'acme.\ud800': 1 } },
      'extensions.acme.\ufffd',
    ],
    [
      'POST',
      '/api/v1/transactions',
      { account_id: account.id, amount: '1', date: '2024-05-01', description: 'a\ud83d' },
      'description',
    ],
    ['POST', '/api/v1/accounts', { name: '\udc00Cash', currency: 'USD' }, 'name'],
    [
      'PUT',
      `/api/v1/transactions/${tx.id}/labels`,
      { labels: { category: 'f\ud800od' } },
      'labels.category',
    ],
    ['POST', '/api/v1/rules', { name: 'r\ud800', query: 'coffee', labels: { a: 'b' } }, 'name'],
    ['POST', '/api/v1/security/api-keys', { name: 'k\ud800', scope: 'read' }, 'name'],
    [
      'POST',
      '/api/v1/webhooks',
      { url: 'https://hooks.example.test/\ud800', event_types: ['*'] },
      'url',
    ],
  ]
  for (const [method, path, body, where] of cases) {
    const problem = await expectProblem(app, method, path, 400, body, auth)
    assert.match(
      problem.detail,
      /^(.+) holds a lone UTF-16 surrogate \(U\+D[89A-F][0-9A-F]{2}\); send well-formed Unicode$/,
    )
    assert.equal(problem.detail.split(' holds ')[0], where, `${method} ${path}`)
  }
  assert.equal(await headSequence(app, auth), head, 'a refused body wrote an event')
  // A well-formed pair is one character and is kept as sent.
  const emoji = await expectStatus(
    app,
    'PUT',
    `/api/v1/transactions/${tx.id}/extensions`,
    200,
    { extensions: { 'acme.v': 'coffee \ud83d\ude00' } },
    auth,
  )
  assert.equal(emoji.extensions['acme.v'], 'coffee 😀')
})

test('extension and label keys take letters of any script; label keys lower-case the same everywhere', async (t) => {
  const app = await start(t)
  const { tx } = await accountWithTransaction(app, 'çay')
  const extensions = { 'custom.ünï.κλειδί': 1, 'custom.日本語': 'x', 'custom.cafe\u0301': true }
  const set = await expectStatus(
    app,
    'PUT',
    `/api/v1/transactions/${tx.id}/extensions`,
    200,
    { extensions },
    auth,
  )
  assert.deepEqual(set.extensions, extensions)
  const labeled = await expectStatus(
    app,
    'PUT',
    `/api/v1/transactions/${tx.id}/labels`,
    200,
    { labels: { İstanbul: 'yes', ÜNÏ: 'a', Κλειδί: 'b' } },
    auth,
  )
  assert.deepEqual(labeled.labels, { 'i\u0307stanbul': 'yes', ünï: 'a', κλειδί: 'b' })
  const found = await expectStatus(
    app,
    'GET',
    `/api/v1/transactions/search?q=${encodeURIComponent('ext:custom.ünï.κλειδί=1 label:İSTANBUL=yes')}`,
    200,
    undefined,
    auth,
  )
  assert.deepEqual(
    found.transactions.map((row: Json) => row.id),
    [tx.id],
  )
  // Still refused: empty segments, spaces, controls, symbols, over-long keys.
  for (const key of [
    'custom..x',
    '.custom',
    'custom.',
    'custom.a b',
    'custom.a\u0007',
    'custom.€',
    'x'.repeat(101),
  ]) {
    const problem = await expectProblem(
      app,
      'PUT',
      `/api/v1/transactions/${tx.id}/extensions`,
      400,
      { extensions: { [key]: 1 } },
      auth,
    )
    assert.deepEqual(fieldsOf(problem), [`extensions.${key}`], JSON.stringify(key))
  }
  for (const key of ['_x', 'a b', 'a:b', 'a=b', '\u0301a']) {
    const problem = await expectProblem(
      app,
      'PUT',
      `/api/v1/transactions/${tx.id}/labels`,
      400,
      { labels: { [key]: 'v' } },
      auth,
    )
    assert.deepEqual(fieldsOf(problem), [`labels.${key}`], JSON.stringify(key))
  }
})

test('a lone surrogate from a source is stored, answered and logged as U+FFFD alike', async (t) => {
  const app = await start(t)
  const head = await headSequence(app, auth)
  await ingest(
    app,
    csvBatch([
      {
        id: 'csv:1',
        account_id: 'csv:checking',
        amount: '-2.00',
        date: '2024-05-01',
        description: 'caf\ud800 latte',
        memo: 'ok \ud83d\ude00',
      },
    ]),
  )
  const row = await expectStatus(app, 'GET', '/api/v1/transactions/csv:1', 200, undefined, auth)
  assert.equal(row.description, 'caf\ufffd latte')
  assert.equal(row.memo, 'ok 😀')
  const events = await eventsAfter(app, head, { ...auth, filter: '&type=transaction.created' })
  assert.equal(events.length, 1)
  assert.equal(events[0]!.data.description, row.description)
})

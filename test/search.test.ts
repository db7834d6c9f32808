// GET /api/v1/transactions/search and the search_transactions MCP tool over a
// real database (CONTRACT 7): every field and operator, the list filters and
// paging, and bad queries of every kind answering 400.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { startTestApp, type RequestOptions, type TestAppHandle } from './helpers/app.js'
import { createAccount, createTransaction, csvBatch, ingest, StepClock } from './helpers/ledger.js'
import { expectStatus } from './helpers/http.js'

const TOKEN = 'search-test-dashboard-token-0123456789'

interface Ledger {
  app: TestAppHandle
  /** Short names → transaction ids. */
  ids: Record<string, string>
}

// Five transactions, each with something the others lack.
async function setup(t: TestContext): Promise<Ledger> {
  const clock = new StepClock() // May 2024
  const started = await startTestApp(t, {
    env: { SERVICE_DASHBOARD_TOKEN: TOKEN },
    clock,
  })
  // Every request carries the dashboard token (needed for /mcp).
  const app: TestAppHandle = Object.assign(Object.create(started) as TestAppHandle, {
    request: (method: string, path: string, options: RequestOptions = {}) =>
      started.request(method, path, { token: TOKEN, ...options }),
  })
  const acct = await createAccount(app, { name: 'Everyday Wallet', currency: 'USD' })
  const ids: Record<string, string> = {}
  const manual = async (name: string, body: object) => {
    ids[name] = (await createTransaction(app, { account_id: acct.id, ...body })).id
  }
  await manual('coffee', {
    amount: '-4.50',
    date: '2024-02-29T08:30:00Z',
    description: 'Coffee at Blue Bottle',
    payee: 'Blue Bottle',
    memo: 'Morning',
  })
  await manual('rent', {
    amount: '-1,200.00'.replace(',', ''),
    date: '2024-03-01',
    description: 'Rent March',
    pending: true,
  })
  await manual('salary', { amount: '2500.10', date: '2023-12-31T23:59:59Z', description: 'Salary' })
  await manual('refund', { amount: '0.10', date: '2024-02-01', description: 'Café refund' })
  clock.advance(40 * 86_400) // the synced row arrives in June
  await ingest(
    app,
    csvBatch([
      {
        id: 'csv:grocery1',
        account_id: 'csv:checking',
        amount: '-82.13',
        date: '2024-01-15',
        description: 'GROCERY OUTLET',
        payee: null,
        memo: null,
        pending: false,
      },
    ]),
  )
  ids.grocery = 'csv:grocery1'
  const put = (id: string, path: string, body: object) =>
    expectStatus(app, 'PUT', `/api/v1/transactions/${encodeURIComponent(id)}/${path}`, 200, body)
  await put(ids.coffee!, 'labels', { labels: { category: 'Food', trip: 'Paris' } })
  await put(ids.grocery, 'labels', { labels: { category: 'food' } })
  await put(ids.rent!, 'labels', { labels: { category: 'housing' } })
  await put(ids.coffee!, 'extensions', {
    extensions: { 'tax.deductible': true, 'tax.rate': 10, 'custom.app.ref': 'INV-77' },
  })
  await put(ids.rent!, 'extensions', { extensions: { 'tax.deductible': false } })
  await expectStatus(app, 'POST', `/api/v1/transactions/${ids.refund}/relationships`, 201, {
    kind: 'refund_of',
    target: ids.coffee,
  })
  return { app, ids }
}

async function search(ledger: Ledger, q: string, params = ''): Promise<string[]> {
  const path = `/api/v1/transactions/search?q=${encodeURIComponent(q)}${params}`
  const body = await expectStatus(ledger.app, 'GET', path, 200)
  assert.equal(body.query, q)
  assert.equal(body.total, body.transactions.length, `${q}: one page holds all`)
  const byId = new Map(Object.entries(ledger.ids).map(([name, id]) => [id, name]))
  return body.transactions.map((t: { id: string }) => byId.get(t.id))
}

/** Names in newest-first order, as the endpoint answers. */
const ORDER = ['rent', 'coffee', 'refund', 'grocery', 'salary']
function newestFirst(names: string[]): string[] {
  return [...names].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b))
}

async function expectMatches(ledger: Ledger, cases: Record<string, string[]>): Promise<void> {
  for (const [q, names] of Object.entries(cases)) {
    assert.deepEqual(await search(ledger, q), newestFirst(names), q)
  }
}

test('every field and operator of the search language over HTTP', async (t) => {
  const ledger = await setup(t)
  await expectMatches(ledger, {
    '': ORDER,
    '   ': ORDER,
    // Free text: description, payee, memo, account name, id, labels, extensions.
    coffee: ['coffee'],
    BOTTLE: ['coffee'],
    morning: ['coffee'],
    wallet: ['coffee', 'rent', 'salary', 'refund'],
    checking: ['grocery'],
    grocery1: ['grocery'],
    paris: ['coffee'],
    '"category:food"': ['coffee', 'grocery'],
    'inv-77': ['coffee'],
    deductible: ['coffee', 'rent'],
    café: ['refund'],
    CAFÉ: ['refund'],
    '"blue bottle"': ['coffee'],
    'description:rent': ['rent'],
    'PAYEE:blue': ['coffee'],
    'memo:morn': ['coffee'],
    'account:wallet': ['coffee', 'rent', 'salary', 'refund'],
    'id:grocery': ['grocery'],
    'account_id:csv:checking': ['grocery'],
    'source:csv': ['grocery'],
    'source:manual': ['coffee', 'rent', 'salary', 'refund'],
    // Amounts as exact decimals.
    'amount:-4.5': ['coffee'],
    'amount:=0.1': ['refund'],
    'amount:!=0.1': ['coffee', 'rent', 'salary', 'grocery'],
    'amount:<0': ['coffee', 'rent', 'grocery'],
    'amount:<=-82.13': ['rent', 'grocery'],
    'amount:>0.1': ['salary'],
    'amount:>=0.10': ['refund', 'salary'],
    'amount:-100..0': ['coffee', 'grocery'],
    'amount:-1,200..': ['coffee', 'rent', 'grocery', 'refund', 'salary'],
    'amount:..-4.50': ['coffee', 'rent', 'grocery'],
    // Dates as UTC periods.
    'date:2024': ['coffee', 'rent', 'refund', 'grocery'],
    'date:2024-02': ['coffee', 'refund'],
    'date:2024-02-29': ['coffee'],
    'date:!=2024-02': ['rent', 'grocery', 'salary'],
    'date:<2024': ['salary'],
    'date:<=2024-01': ['grocery', 'salary'],
    'date:>2024-02': ['rent'],
    'date:>=2024-02': ['coffee', 'rent', 'refund'],
    'date:2023-12..2024-01': ['grocery', 'salary'],
    'date:2024-02..': ['coffee', 'rent', 'refund'],
    'date:..2023': ['salary'],
    'synced:2024-06': ['grocery'],
    'synced:2024-05': ['coffee', 'rent', 'salary', 'refund'],
    'synced:!=2024-05': ['grocery'],
    'synced:>2024-05-31': ['grocery'],
    'pending:true': ['rent'],
    'pending:no': ['coffee', 'salary', 'refund', 'grocery'],
    // Labels and the shorthand.
    'label:trip': ['coffee'],
    'label:category=FOOD': ['coffee', 'grocery'],
    'label:category!=food': ['rent', 'salary', 'refund'],
    'label:category~ous': ['rent'],
    'category:food': ['coffee', 'grocery'],
    // Extensions as text.
    'ext:tax.deductible': ['coffee', 'rent'],
    'ext:tax.deductible=true': ['coffee'],
    'ext:tax.deductible!=true': ['rent', 'salary', 'refund', 'grocery'],
    'ext:tax.rate=10': ['coffee'],
    'ext:custom.app.ref~inv': ['coffee'],
    // Relationships.
    'rel:refund_of': ['refund'],
    [`rel:refund_of=${ledger.ids.coffee}`]: ['refund'],
    'rel:refund_of=nothing': [],
    [`related:${ledger.ids.coffee}`]: ['refund'],
    [`related:${ledger.ids.refund}`]: ['coffee'],
    // Boolean structure.
    'category:food date:2024-02': ['coffee'],
    'category:food AND -coffee': ['grocery'],
    'pending:true OR amount:>1000': ['rent', 'salary'],
    'NOT (category:food OR pending:true)': ['salary', 'refund'],
    'NOT NOT coffee': ['coffee'],
    '-coffee -salary -rent': ['refund', 'grocery'],
    '(coffee | rent) & -"blue"': ['rent'],
  })
})

test('the list filters and paging apply, newest first', async (t) => {
  const ledger = await setup(t)
  const path = (q: string, params: string) =>
    `/api/v1/transactions/search?q=${encodeURIComponent(q)}${params}`
  const page = await expectStatus(ledger.app, 'GET', path('amount:<10', '&limit=2&offset=1'), 200)
  assert.equal(page.total, 4)
  assert.deepEqual(
    page.transactions.map((t: { id: string }) => t.id),
    [ledger.ids.coffee, ledger.ids.refund],
  )
  // A free-text query takes the streaming path; paging is the same.
  const streamed = await expectStatus(ledger.app, 'GET', path('-zzz', '&limit=2&offset=3'), 200)
  assert.equal(streamed.total, 5)
  assert.deepEqual(
    streamed.transactions.map((t: { id: string }) => t.id),
    [ledger.ids.grocery, ledger.ids.salary],
  )
  assert.deepEqual(await search(ledger, 'wallet', '&since=2024-02-01&until=2024-02-29'), [
    'coffee',
    'refund',
  ])
  assert.deepEqual(await search(ledger, '', '&label_key=category&label_value=food'), ['grocery'])
  assert.deepEqual(await search(ledger, '-coffee', '&label_key=CATEGORY'), ['rent', 'grocery'])
  await expectStatus(ledger.app, 'GET', path('', '&limit=-1'), 400)
  await expectStatus(ledger.app, 'GET', path('', '&since=yesterday'), 400)
})

test('bad queries of every kind answer 400 problem details naming the offset', async (t) => {
  const ledger = await setup(t)
  const bad: Array<[string, RegExp]> = [
    ['(coffee', /never closed at offset 0/],
    ['coffee)', /without '\(' at offset 6/],
    ['"coffee', /unterminated quote at offset 0/],
    ['amount:12,3x', /bad amount "12,3x" at offset 7/],
    ['amount:' + '9'.repeat(100), /bad amount/],
    ['date:2024-02-30', /bad date "2024-02-30" \(use .*\) at offset 5/],
    ['pending:perhaps', /bad pending value/],
    ['payee:', /empty value for field "payee" at offset 6/],
    ['label:k~', /empty value/],
    ['coffee OR', /end of the query/],
    ['('.repeat(10_240), /nests deeper than 100 levels at offset 100/],
    ['NOT '.repeat(500) + 'x', /nests deeper/],
    ['coffee\u0001', /control character U\+0001 at offset 6/],
    ['coffee\u007f', /control character U\+007f at offset 6/],
  ]
  for (const [q, detail] of bad) {
    const res = await ledger.app.request(
      'GET',
      `/api/v1/transactions/search?q=${encodeURIComponent(q)}`,
    )
    assert.equal(res.status, 400, `${q.slice(0, 40)}: ${res.text}`)
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/)
    assert.match(res.body.detail, detail, q.slice(0, 40))
    assert.equal(res.body.errors[0].field, 'q')
  }
})

test('search_transactions over MCP answers what REST answers', async (t) => {
  const ledger = await setup(t)
  const client = new Client({ name: 'coffer-search-test', version: '1' })
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', ledger.app.url), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
  })
  await client.connect(transport)
  t.after(() => client.close())
  const args = { q: 'category:food OR pending:true', limit: 2, offset: 1 }
  const result = (await client.callTool({
    name: 'search_transactions',
    arguments: args,
  })) as CallToolResult
  assert.notEqual(result.isError, true)
  const rest = await expectStatus(
    ledger.app,
    'GET',
    `/api/v1/transactions/search?q=${encodeURIComponent(args.q)}&limit=2&offset=1`,
    200,
  )
  assert.deepEqual(result.structuredContent, rest)
  assert.equal(rest.total, 3)
  const failed = (await client.callTool({
    name: 'search_transactions',
    arguments: { q: 'amount:>>1' },
  })) as CallToolResult
  assert.equal(failed.isError, true)
  assert.equal((failed.structuredContent as { status: number }).status, 400)
})

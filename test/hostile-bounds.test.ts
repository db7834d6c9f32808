// Bounds on the shape of client input (issue 17, "Deep JSON" and "Long
// queries"; docs/decisions.md "Bounded input"): JSON nested deeper than 64
// levels and queries of more than 100 terms are refused with a 400 naming the
// limit at every door (REST, MCP over HTTP, the MCP stdio guard), on either
// engine, and leave the ledger as it was; an OR wider than one union of id sets
// (32) is narrowed in groups and answers as the matcher does.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import pino from 'pino'
import { refusalOf } from '../src/mcp/stdin-guard.js'
import { startTestApp, type RequestOptions, type TestAppHandle } from './helpers/app.js'
import { expectProblem, expectStatus } from './helpers/http.js'
import { createAccount, createTransaction, headSequence, problem } from './helpers/ledger.js'
import { connectMcp, toolFails, toolOk, type Json } from './helpers/mcp.js'

const TOKEN = 'hostile-bounds-dashboard-token-0123456789'
const DEPTH_DETAIL = 'JSON is nested deeper than 64 levels'

/** A JSON value nested `depth` levels: arrays around a string. */
function nested(depth: number): string {
  return '['.repeat(depth) + '"x"' + ']'.repeat(depth)
}

/** The same as objects: {"a":{"a":…1…}}. */
function nestedObjects(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
}

/** `count` distinct free-text terms joined by `op`; the last one is `last`. */
function terms(count: number, op: string, last = 'zzq0'): string {
  return Array.from({ length: count }, (_, i) => (i === count - 1 ? last : `zzq${i + 1}`)).join(op)
}

/** The offset of the 101st term of a query made by terms(). */
function offsetOf101st(query: string, op: string): number {
  return query.split(op).slice(0, 100).join(op).length + op.length
}

async function setup(t: TestContext) {
  const started = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const app: TestAppHandle = Object.assign(Object.create(started) as TestAppHandle, {
    request: (method: string, path: string, options: RequestOptions = {}) =>
      started.request(method, path, { ...options, token: options.token ?? TOKEN }),
  })
  const acct = await createAccount(app, { name: 'Cash', currency: 'USD' })
  const latte = await createTransaction(app, {
    account_id: acct.id,
    amount: '-4.50',
    date: '2024-01-15',
    payee: 'Latte Bar',
  })
  const rent = await createTransaction(app, {
    account_id: acct.id,
    amount: '-900.00',
    date: '2024-01-01',
    payee: 'Landlord',
  })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${latte.id}/extensions`, 200, {
    extensions: { 'acme.kept': { a: [1] } },
  })
  return { app, latte: latte.id as string, rent: rent.id as string }
}

/** Everything a refused request could have changed. */
async function ledgerState(app: TestAppHandle, id: string) {
  return {
    extensions: (await expectStatus(app, 'GET', `/api/v1/transactions/${id}`, 200)).extensions,
    rules: await expectStatus(app, 'GET', '/api/v1/rules', 200),
    head: await headSequence(app),
  }
}

test('JSON nested deeper than 64 levels is a 400 naming the limit at every REST door; 64 is kept', async (t) => {
  const { app, latte } = await setup(t)
  const before = await ledgerState(app, latte)
  const refused = problem(400, DEPTH_DETAIL)
  const path = `/api/v1/transactions/${latte}/extensions`
  for (const value of [nested(10_000), nested(1_000), nested(63), nestedObjects(10_000)]) {
    const ext = `{"extensions":{"acme.deep":${value}}}`
    const rule = `{"name":"Deep","query":"latte","extensions":{"acme.deep":${value}}}`
    const preview = `{"query":"latte","extensions":{"acme.deep":${value}}}`
    for (const [method, url, rawBody] of [
      ['PUT', path, ext],
      ['POST', '/api/v1/rules', rule],
      ['POST', '/api/v1/rules/preview', preview],
    ] as const) {
      const body = await expectProblem(app, method, url, 400, undefined, { rawBody })
      assert.deepEqual(body, refused, `${method} ${url} at ${value.length} characters`)
    }
  }
  // Brackets inside strings are text, not nesting.
  const brackets = { 'acme.text': '['.repeat(3000) + '{'.repeat(3000) }
  assert.equal((await ledgerState(app, latte)).head, before.head)
  assert.deepEqual(await ledgerState(app, latte), before)
  await expectStatus(app, 'PUT', path, 200, { extensions: brackets })

  // The whole body may nest 64 levels: the value 62 inside {"extensions":{…}}.
  const deepest = JSON.parse(nested(62)) as unknown
  const stored = await expectStatus(app, 'PUT', path, 200, { extensions: { 'acme.deep': deepest } })
  assert.deepEqual(stored, { id: latte, extensions: { 'acme.deep': deepest } })
  const read = await expectStatus(app, 'GET', `/api/v1/transactions/${latte}`, 200)
  assert.deepEqual(read.extensions, { 'acme.deep': deepest })
})

test('MCP: a message nested deeper than 64 levels is refused over HTTP and stdio, nothing written', async (t) => {
  const { app, latte } = await setup(t)
  const before = await ledgerState(app, latte)
  // The SDK's client cannot even send 10,000 levels (its own stack overflows): raw JSON-RPC.
  const call = (value: string) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name: 'set_transaction_extensions',
        arguments: { id: latte, extensions: { x: 1 } },
      },
    }).replace('"x":1', `"acme.deep":${value}`)
  const headers = { accept: 'application/json, text/event-stream' }
  for (const value of [nested(10_000), nested(61)]) {
    assert.deepEqual(
      await expectProblem(app, 'POST', '/mcp', 400, undefined, { rawBody: call(value), headers }),
      problem(400, DEPTH_DETAIL),
    )
  }
  const client = await connectMcp(t, app, TOKEN)
  await assert.rejects(
    toolOk(client, 'set_transaction_extensions', {
      id: latte,
      extensions: { 'acme.deep': JSON.parse(nested(100)) as unknown },
    }),
    (error: Error) => {
      assert.ok(error.message.endsWith(JSON.stringify(problem(400, DEPTH_DETAIL))), error.message)
      return true
    },
  )
  assert.deepEqual(await ledgerState(app, latte), before)
  // 60 levels inside the message's 4 is 64: accepted.
  const deepest = JSON.parse(nested(60)) as unknown
  assert.deepEqual(
    await toolOk(client, 'set_transaction_extensions', {
      id: latte,
      extensions: { 'acme.deep': deepest },
    }),
    { id: latte, extensions: { 'acme.deep': deepest } },
  )

  // Over stdio the guard answers the call itself with the REST problem.
  const log = pino({ level: 'silent' })
  const line = call(nested(10_000))
  const refusal = refusalOf(line, log)
  assert.deepEqual(refusal?.reply, {
    jsonrpc: '2.0',
    id: 7,
    result: {
      content: [{ type: 'text', text: JSON.stringify(problem(400, DEPTH_DETAIL)) }],
      structuredContent: problem(400, DEPTH_DETAIL),
      isError: true,
    },
  })
  assert.equal(refusalOf(call(nested(60)), log), null)
})

test('a query of more than 100 terms, or nested more than 100 deep, is a 400 naming the limit', async (t) => {
  const { app, latte } = await setup(t)
  const before = await ledgerState(app, latte)
  const search = (q: string) => `/api/v1/transactions/search?q=${encodeURIComponent(q)}`
  for (const [count, op] of [
    [101, '|'],
    [167, ' OR '],
    [300, '|'],
    [300, ' '],
  ] as const) {
    const q = terms(count, op)
    const message = `a query has at most 100 terms at offset ${offsetOf101st(q, op)}`
    assert.deepEqual(
      await expectProblem(app, 'GET', search(q), 400),
      problem(400, `q: ${message}`, [{ field: 'q', message }]),
      `${count} terms joined by ${op}`,
    )
  }
  // URLs over 16 KiB are refused before any parsing, so 1,000 levels over REST, 10,000 over MCP.
  const deepQueries = (levels: number) =>
    [
      ['('.repeat(levels) + 'x' + ')'.repeat(levels), 100],
      ['NOT '.repeat(levels) + 'x', 400],
      ['-'.repeat(levels) + 'x', 100],
    ] as const
  const depthProblem = (offset: number) => {
    const message = `query nests deeper than 100 levels at offset ${offset}`
    return problem(400, `q: ${message}`, [{ field: 'q', message }])
  }
  for (const [q, offset] of deepQueries(1000)) {
    assert.deepEqual(await expectProblem(app, 'GET', search(q), 400), depthProblem(offset))
  }
  // 100 terms is fine, on either engine, and finds what it should.
  const hundred = await expectStatus(app, 'GET', search(terms(100, '|', 'latte')), 200)
  assert.deepEqual(
    hundred.transactions.map((tx: Json) => tx.id),
    [latte],
  )

  // MCP: the same 400, as a tool error.
  const client = await connectMcp(t, app, TOKEN)
  const q = terms(3000, '|')
  const message = `a query has at most 100 terms at offset ${offsetOf101st(q, '|')}`
  assert.deepEqual(
    await toolFails(client, 'search_transactions', { q }),
    problem(400, `q: ${message}`, [{ field: 'q', message }]),
  )
  for (const [deep, offset] of deepQueries(10_000)) {
    assert.deepEqual(
      await toolFails(client, 'search_transactions', { q: deep }),
      depthProblem(offset),
    )
  }
  assert.deepEqual(await ledgerState(app, latte), before)
})

test('an OR wider than one union of id sets answers as the matcher does, negated too', async (t) => {
  const { app, latte, rent } = await setup(t)
  const search = async (q: string) =>
    (
      await expectStatus(app, 'GET', `/api/v1/transactions/search?q=${encodeURIComponent(q)}`, 200)
    ).transactions.map((tx: Json) => tx.id) as string[]
  for (const count of [31, 33, 64, 99]) {
    assert.deepEqual(await search(terms(count, '|', 'latte')), [latte], `${count} free-text terms`)
    assert.deepEqual(await search(`${terms(count, ' OR ', 'landlord')} OR latte`), [latte, rent])
    // Negated: the count is every row less the OR's.
    assert.deepEqual(await search(`NOT (${terms(count, '|', 'latte')})`), [rent])
    assert.deepEqual(await search(`-(${terms(count, '|', 'amount:-4.50')})`), [rent])
  }
})

test('a rule query over 100 terms is refused at create and preview; rules keep running', async (t) => {
  const { app, latte } = await setup(t)
  await expectStatus(app, 'POST', '/api/v1/rules', 201, {
    name: 'Coffee',
    query: 'latte',
    labels: { category: 'coffee' },
  })
  const before = await ledgerState(app, latte)
  const query = Array.from({ length: 300 }, () => 'latte').join('|')
  assert.ok(query.length < 4096)
  const message = 'a query has at most 100 terms at offset 600'
  const refused = problem(400, `query: ${message}`, [{ field: 'query', message }])
  assert.deepEqual(
    await expectProblem(app, 'POST', '/api/v1/rules', 400, {
      name: 'Lattes',
      query,
      labels: { drink: 'latte' },
    }),
    refused,
  )
  assert.deepEqual(
    await expectProblem(app, 'POST', '/api/v1/rules/preview', 400, {
      query,
      labels: { drink: 'latte' },
    }),
    refused,
  )
  const [rule] = before.rules.rules as Json[]
  assert.deepEqual(
    await expectProblem(app, 'PUT', `/api/v1/rules/${rule.id}`, 400, {
      name: 'Coffee',
      query,
      labels: { category: 'coffee' },
    }),
    refused,
  )
  assert.deepEqual(await ledgerState(app, latte), before)

  // The rule that exists still runs; a 100-term rule (the widest allowed) runs too.
  assert.deepEqual(await expectStatus(app, 'POST', '/api/v1/rules/run', 200), {
    matched: 1,
    updated: 1,
  })
  const wide = await expectStatus(app, 'POST', '/api/v1/rules', 201, {
    name: 'Wide',
    query: terms(100, '|', 'latte'),
    labels: { wide: 'yes' },
  })
  assert.deepEqual(await expectStatus(app, 'POST', `/api/v1/rules/${wide.id}/run`, 200), {
    matched: 1,
    updated: 1,
  })
  assert.deepEqual(await expectStatus(app, 'POST', `/api/v1/rules/${wide.id}/unapply`, 200), {
    matched: 1,
    removed: 1,
  })
  assert.deepEqual(
    (
      await expectStatus(app, 'POST', '/api/v1/rules/preview', 200, {
        query: terms(100, ' OR ', 'latte'),
        labels: { wide: 'yes' },
      })
    ).matched,
    1,
  )
})

test('a rule stored before the bound on terms keeps running everywhere, without SQL narrowing', async (t) => {
  const { app, latte, rent } = await setup(t)
  const rule = await expectStatus(app, 'POST', '/api/v1/rules', 201, {
    name: 'Lattes',
    query: 'latte',
    labels: { drink: 'latte' },
  })
  // As if created by an earlier version: 300 terms (an OR, then an AND), under 4,096 characters.
  const wide = Array.from({ length: 300 }, () => 'latte').join('|')
  await app.ctx.db.kysely
    .updateTable('rules')
    .set({ query: wide })
    .where('id', '=', rule.id)
    .execute()
  const path = `/api/v1/rules/${rule.id}`
  assert.deepEqual(await expectStatus(app, 'POST', '/api/v1/rules/run', 200), {
    matched: 1,
    updated: 1,
  })
  assert.deepEqual(await expectStatus(app, 'POST', `${path}/unapply`, 200), {
    matched: 1,
    removed: 1,
  })
  assert.deepEqual(await expectStatus(app, 'POST', `${path}/run`, 200), { matched: 1, updated: 1 })
  const and = Array.from({ length: 300 }, () => 'latte').join(' ')
  await app.ctx.db.kysely
    .updateTable('rules')
    .set({ query: and })
    .where('id', '=', rule.id)
    .execute()
  assert.deepEqual(await expectStatus(app, 'POST', `${path}/unapply`, 200), {
    matched: 1,
    removed: 1,
  })
  // New transactions still get the rule, and others are left alone.
  const tx = await createTransaction(app, {
    account_id: (await expectStatus(app, 'GET', `/api/v1/transactions/${rent}`, 200)).account_id,
    amount: '-5.00',
    date: '2024-02-01',
    payee: 'Another Latte',
  })
  assert.deepEqual(tx.labels, { drink: 'latte' })
  assert.deepEqual(await expectStatus(app, 'POST', '/api/v1/rules/run', 200), {
    matched: 2,
    updated: 1,
  })
  assert.deepEqual((await expectStatus(app, 'GET', `/api/v1/transactions/${latte}`, 200)).labels, {
    drink: 'latte',
  })
})

test('the widest and deepest queries allowed run on this engine with the right answer', async (t) => {
  const { app, latte, rent } = await setup(t)
  await expectStatus(app, 'PUT', `/api/v1/transactions/${latte}/labels`, 200, {
    labels: { drink: 'latte' },
  })
  const search = async (q: string) =>
    (
      await expectStatus(app, 'GET', `/api/v1/transactions/search?q=${encodeURIComponent(q)}`, 200)
    ).transactions.map((tx: Json) => tx.id) as string[]
  const list = (n: number, term: (i: number) => string, op: string) =>
    Array.from({ length: n }, (_, i) => term(i)).join(op)
  const cases: Array<[string, string[]]> = [
    [list(100, () => 'latte', ' '), [latte]],
    [list(100, (i) => `label:k${i}`, ' OR '), []],
    [list(99, (i) => `label:k${i}=v`, ' OR ') + ' OR label:drink=latte', [latte]],
    [list(99, (i) => `-label:k${i}`, ' ') + ' label:drink', [latte]],
    [`${list(50, (i) => `zzq${i}`, '|')} ${list(50, (i) => `yyq${i}`, '|')}`, []],
    [
      `(${list(31, (i) => `zzq${i}`, '|')}|latte) (${list(31, (i) => `yyq${i}`, '|')}|bar)`,
      [latte],
    ],
    ['NOT '.repeat(100) + 'label:drink', [latte]],
    ['NOT '.repeat(99) + 'label:drink', [rent]],
    ['('.repeat(100) + 'latte' + ')'.repeat(100), [latte]],
    [list(100, (i) => `related:id${i}`, ' OR '), []],
    [list(100, (i) => `amount:${i}..${i + 1}`, ' OR '), []],
  ]
  for (const [q, expected] of cases) {
    assert.deepEqual(await search(q), expected, q.slice(0, 80))
  }
})

// What the schema-driven fuzz pass (test/fuzz/, issue 17) found, each pinned by
// the request that reproduced it.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { invalidParams } from '../src/mcp/server.js'
import { startTestApp } from './helpers/app.js'
import { expectStatus } from './helpers/http.js'
import { headSequence } from './helpers/ledger.js'

const TOKEN = 'fuzz-findings-dashboard-token-0123456789'

// Found by mcp-fuzz (seed 17): the SDK checks a request's params before any
// handler and answered a mismatch as -32603 "internal error", quoting its
// validator's issue list. It is the client's mistake: -32602 naming the field.
test('MCP requests with malformed params are -32602 invalid params, not internal errors', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  await expectStatus(
    app,
    'POST',
    '/api/v1/accounts',
    201,
    { name: 'Checking', currency: 'USD' },
    { token: TOKEN },
  )
  const head = await headSequence(app, { token: TOKEN })
  const cases = [
    [
      { name: 'create_account', arguments: [] },
      'tools/call',
      /^invalid params of tools\/call: params\.arguments: /,
    ],
    [{ name: 'create_account', arguments: "' OR '1'='1" }, 'tools/call', /params\.arguments/],
    [{ name: null, arguments: { id: 'x' } }, 'tools/call', /params\.name/],
    [undefined, 'tools/call', /params/],
    [{}, 'initialize', /^invalid params of initialize: params\.protocolVersion: /],
  ] as const
  for (const [params, method, message] of cases) {
    const res = await app.request('POST', '/mcp', {
      token: TOKEN,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 7, method, ...(params === undefined ? {} : { params }) },
    })
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.id, 7)
    assert.equal(res.body.error?.code, -32602, res.text)
    assert.match(res.body.error.message, message)
  }
  // A well-formed call still reaches the tool.
  const ok = await app.request('POST', '/mcp', {
    token: TOKEN,
    headers: { accept: 'application/json, text/event-stream' },
    body: {
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'list_accounts', arguments: {} },
    },
  })
  assert.equal(ok.body.result.structuredContent.total, 1, ok.text)
  assert.equal(await headSequence(app, { token: TOKEN }), head)
})

test('the stdio transport refuses the same requests (invalidParams)', () => {
  const reply = invalidParams({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'list_accounts', arguments: [] as unknown as Record<string, unknown> },
  })
  assert.equal((reply as { error: { code: number } }).error.code, -32602)
  assert.equal(invalidParams({ jsonrpc: '2.0', id: 4, method: 'tools/list' }), null)
  assert.equal(invalidParams({ jsonrpc: '2.0', method: 'notifications/initialized' }), null)
  assert.equal(invalidParams({ jsonrpc: '2.0', id: 5, method: 'no/such/method' }), null)
})

// The rule tools over MCP (CONTRACT 3c, 8), driven by the SDK's own client over
// Streamable HTTP: each tool's result equals the REST response for the same
// request, and errors carry the REST problem details.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp, type TestApp } from './helpers/app.js'
import { expectStatus } from './helpers/http.js'
import { connectMcp, toolFails as fails, toolOk as ok, type Json } from './helpers/mcp.js'

const TOKEN = 'rules-mcp-dashboard-token-0123456789'

const RULE_TOOLS = [
  'list_rules',
  'get_rule',
  'create_rule',
  'update_rule',
  'delete_rule',
  'run_rules',
  'unapply_rule',
  'preview_rule',
]

/** REST beside MCP, with the dashboard token; every answer's status is stated. */
function rest(app: TestApp, method: string, path: string, status: number, body?: unknown) {
  return expectStatus(app, method, path, status, body, { token: TOKEN })
}

test('rule tools: listed with strict schemas, results equal REST', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const client = await connectMcp(t, app, TOKEN)
  const { tools } = await client.listTools()
  for (const name of RULE_TOOLS) {
    const tool = tools.find((x) => x.name === name)
    assert.ok(tool, name)
    assert.equal(tool.inputSchema.additionalProperties, false, name)
  }

  const acct = await rest(app, 'POST', '/api/v1/accounts', 201, { name: 'Cash', currency: 'USD' })
  const tx = await rest(app, 'POST', '/api/v1/transactions', 201, {
    account_id: acct.id,
    amount: '-4.50',
    date: '2024-01-15',
    payee: 'Starbucks',
  })
  await rest(app, 'POST', '/api/v1/transactions', 201, {
    account_id: acct.id,
    amount: '-40.00',
    date: '2024-01-16',
    payee: 'Grocer',
  })

  const preview = await ok(client, 'preview_rule', {
    query: 'payee:starbucks',
    labels: { category: 'coffee' },
  })
  assert.deepEqual(preview, { matched: 1, would_update: 1, transactions: [tx] })

  const rule = await ok(client, 'create_rule', {
    name: 'Coffee',
    query: 'payee:starbucks',
    labels: { category: 'coffee' },
  })
  assert.deepEqual(await rest(app, 'GET', `/api/v1/rules/${rule.id}`, 200), rule)
  assert.deepEqual(await ok(client, 'get_rule', { id: rule.id }), rule)
  assert.deepEqual(await ok(client, 'list_rules'), await rest(app, 'GET', '/api/v1/rules', 200))
  assert.deepEqual(await ok(client, 'list_rules', { limit: 1, offset: 1 }), {
    rules: [],
    total: 1,
    limit: 1,
    offset: 1,
  })

  assert.deepEqual(await ok(client, 'run_rules', { id: rule.id }), { matched: 1, updated: 1 })
  assert.deepEqual(await ok(client, 'run_rules'), { matched: 1, updated: 0 })
  assert.deepEqual((await rest(app, 'GET', `/api/v1/transactions/${tx.id}`, 200)).labels, {
    category: 'coffee',
  })

  const updated = await ok(client, 'update_rule', {
    id: rule.id,
    name: 'Coffee',
    query: 'payee:starbucks',
    extensions: { 'merchant.name': 'Starbucks' },
    enabled: false,
  })
  assert.deepEqual(await rest(app, 'GET', `/api/v1/rules/${rule.id}`, 200), updated)
  assert.deepEqual(await ok(client, 'run_rules'), { matched: 0, updated: 0 })

  // Unapply removes the rule's current keys only: the label came from its old form.
  assert.deepEqual(await ok(client, 'unapply_rule', { id: rule.id }), { matched: 1, removed: 0 })
  assert.deepEqual(await ok(client, 'run_rules', { id: rule.id }), { matched: 1, updated: 1 })
  assert.deepEqual(await ok(client, 'unapply_rule', { id: rule.id }), { matched: 1, removed: 1 })

  assert.deepEqual(await ok(client, 'delete_rule', { id: rule.id }), { deleted: true, id: rule.id })
  assert.equal((await app.request('GET', `/api/v1/rules/${rule.id}`, { token: TOKEN })).status, 404)
})

test('rule tools: errors are the REST problem details', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const client = await connectMcp(t, app, TOKEN)
  const body = { name: 'R', query: 'payee:(', labels: { a: 'b' } }
  const viaRest = await app.request('POST', '/api/v1/rules', { token: TOKEN, body })
  assert.equal(viaRest.status, 400)
  assert.deepEqual(await fails(client, 'create_rule', body), viaRest.body)
  assert.deepEqual(
    (await fails(client, 'create_rule', { name: 'R', query: 'x' })).errors?.map(
      (e: Json) => e.field,
    ),
    ['labels'],
  )
  for (const name of ['get_rule', 'delete_rule', 'run_rules', 'unapply_rule']) {
    const problem = await fails(client, name, { id: 'rule_missing' })
    assert.deepEqual(
      problem,
      {
        type: 'about:blank',
        title: 'Not Found',
        status: 404,
        detail: 'rule rule_missing not found',
      },
      name,
    )
  }
  for (const name of RULE_TOOLS) {
    const problem = await fails(client, name, { id: 'x', bogus: 1 })
    assert.equal(problem.status, 400, name)
    assert.ok(
      problem.errors?.some((e: Json) => e.field === 'bogus'),
      name,
    )
  }
})

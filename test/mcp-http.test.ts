// MCP over Streamable HTTP at /mcp (SPEC 4.7, 5; CONTRACT 3c), driven by the SDK's
// own client: every tool with valid and invalid arguments, results equal to the
// REST responses for the same objects, and the admin-tier gate.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { test, type TestContext } from 'node:test'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { startTestApp, type TestApp } from './helpers/app.js'
import { connectMcp, toolFails as fails, toolOk as ok, type Json } from './helpers/mcp.js'
import { PLUGIN_MCP_TOOL_NAMES } from './helpers/plugins.js'

const connect = (t: TestContext, app: TestApp, token = TOKEN): Promise<Client> =>
  connectMcp(t, app, token)

const TOKEN = 'mcp-test-dashboard-token-0123456789'

const TOOL_NAMES = [
  'list_sources',
  'sync_source',
  'trigger_sync',
  'list_accounts',
  'get_account',
  'create_account',
  'update_account',
  'delete_account',
  'list_transactions',
  'search_transactions',
  'summarize_transactions',
  'get_transaction',
  'create_transaction',
  'update_transaction',
  'delete_transaction',
  'get_transaction_history',
  'get_transaction_provenance',
  'get_transaction_relationships',
  'list_labels',
  'set_transaction_labels',
  'set_transaction_extensions',
  'list_extensions',
  'list_events',
  'list_rules',
  'get_rule',
  'create_rule',
  'update_rule',
  'delete_rule',
  'run_rules',
  'unapply_rule',
  'preview_rule',
  'list_webhooks',
  'create_webhook',
  'update_webhook',
  'delete_webhook',
  'test_webhook',
  'list_api_keys',
  'create_api_key',
  'revoke_api_key',
  'list_settings',
  'set_setting',
  'reset_setting',
  ...PLUGIN_MCP_TOOL_NAMES,
]

async function rest(app: TestApp, method: string, path: string, body?: unknown) {
  const res = await app.request(method, path, { token: TOKEN, body })
  return res
}

async function get(app: TestApp, path: string): Promise<Json> {
  const res = await rest(app, 'GET', path)
  assert.equal(res.status, 200, `GET ${path}: ${res.text}`)
  return res.body
}

async function receiver(t: TestContext): Promise<{ url: string; hits: () => number }> {
  let hits = 0
  const server: Server = createServer((req, res) => {
    hits++
    req.resume()
    req.on('end', () => res.writeHead(204).end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const address = server.address() as { port: number }
  return { url: `http://127.0.0.1:${address.port}/hook`, hits: () => hits }
}

test('initialize and list tools: every tool with an object input schema', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const client = await connect(t, app)
  assert.equal(client.getServerVersion()?.name, 'coffer')
  const { tools } = await client.listTools()
  assert.deepEqual(tools.map((tool) => tool.name).sort(), [...TOOL_NAMES].sort())
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, 'object', tool.name)
    assert.equal(tool.inputSchema.additionalProperties, false, tool.name)
    assert.ok((tool.description ?? '').length > 20, tool.name)
  }
  const update = tools.find((tool) => tool.name === 'update_transaction')!
  assert.deepEqual(update.inputSchema.required, ['id'])
  assert.ok(update.inputSchema.properties?.amount)
})

test('every tool refuses an unknown field with the REST problem shape', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const client = await connect(t, app)
  for (const name of TOOL_NAMES) {
    const problem = await fails(client, name, { id: 'x', type: 'csv', bogus: 1 })
    assert.equal(problem.status, 400, name)
    assert.ok(
      problem.errors?.some((e) => e.field === 'bogus'),
      `${name}: ${JSON.stringify(problem)}`,
    )
  }
  // Wrong JSON types are not coerced (strict, as REST bodies).
  const wrong = await fails(client, 'create_account', { name: 5, currency: 'USD' })
  assert.equal(wrong.status, 400)
  assert.deepEqual(
    wrong.errors?.map((e) => e.field),
    ['name'],
  )
  const missing = await fails(client, 'get_transaction', {})
  assert.deepEqual(missing.errors, [{ field: 'id', message: 'is required' }])
  const query = await fails(client, 'list_transactions', { limit: '5' })
  assert.equal(query.status, 400)
})

test('ledger tools: results equal the REST responses; events and history match REST', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const client = await connect(t, app)

  // The same operations through both doors.
  const account = await ok(client, 'create_account', {
    name: 'Cash',
    currency: 'USD',
    balance: '10.50',
  })
  assert.deepEqual(account, await get(app, `/api/v1/accounts/${account.id}`))
  const restAccount = (
    await rest(app, 'POST', '/api/v1/accounts', { name: 'Wallet', currency: 'USD' })
  ).body
  const updated = await ok(client, 'update_account', { id: account.id, name: 'Cash box' })
  assert.equal(updated.name, 'Cash box')
  assert.deepEqual(updated, await get(app, `/api/v1/accounts/${account.id}`))
  assert.deepEqual(await ok(client, 'get_account', { id: account.id }), updated)
  assert.deepEqual(await ok(client, 'list_accounts', {}), await get(app, '/api/v1/accounts'))
  assert.deepEqual(
    await ok(client, 'list_accounts', { limit: 1, offset: 1 }),
    await get(app, '/api/v1/accounts?limit=1&offset=1'),
  )

  const steps = async (via: 'mcp' | 'rest', accountId: string): Promise<string> => {
    const created =
      via === 'mcp'
        ? await ok(client, 'create_transaction', {
            account_id: accountId,
            amount: '-12.34',
            date: '2024-01-15',
            description: 'Coffee',
          })
        : (
            await rest(app, 'POST', '/api/v1/transactions', {
              account_id: accountId,
              amount: '-12.34',
              date: '2024-01-15',
              description: 'Coffee',
            })
          ).body
    const id = created.id as string
    if (via === 'mcp') {
      assert.deepEqual(created, await get(app, `/api/v1/transactions/${id}`))
      const edited = await ok(client, 'update_transaction', { id, amount: '-13.00', memo: null })
      assert.deepEqual(edited, await get(app, `/api/v1/transactions/${id}`))
      const labels = await ok(client, 'set_transaction_labels', { id, labels: { cat: 'food' } })
      assert.deepEqual(labels, { id, labels: { cat: 'food' } })
      const ext = await ok(client, 'set_transaction_extensions', {
        id,
        extensions: { 'acme.receipt': { n: 3, paid: true } },
      })
      assert.deepEqual(ext, { id, extensions: { 'acme.receipt': { n: 3, paid: true } } })
    } else {
      await rest(app, 'PUT', `/api/v1/transactions/${id}`, { amount: '-13.00', memo: null })
      await rest(app, 'PUT', `/api/v1/transactions/${id}/labels`, { labels: { cat: 'food' } })
      await rest(app, 'PUT', `/api/v1/transactions/${id}/extensions`, {
        extensions: { 'acme.receipt': { n: 3, paid: true } },
      })
    }
    return id
  }
  const viaMcp = await steps('mcp', account.id)
  const viaRest = await steps('rest', restAccount.id)

  for (const [name, path] of [
    ['get_transaction', ''],
    ['get_transaction_history', '/history'],
    ['get_transaction_provenance', '/provenance'],
    ['get_transaction_relationships', '/relationships'],
  ] as const) {
    assert.deepEqual(
      await ok(client, name, { id: viaMcp }),
      await get(app, `/api/v1/transactions/${viaMcp}${path}`),
      name,
    )
  }
  assert.deepEqual(await ok(client, 'list_labels'), await get(app, '/api/v1/labels'))
  assert.deepEqual(await ok(client, 'list_extensions'), await get(app, '/api/v1/extensions'))
  assert.deepEqual(
    await ok(client, 'list_transactions', { label_key: 'cat', since: '2024-01-01', limit: 5 }),
    await get(app, '/api/v1/transactions?label_key=cat&since=2024-01-01&limit=5'),
  )

  // History and events of the MCP-made transaction have the same shape as the REST-made one.
  const shape = (history: { versions: Array<{ version: number; kind: string; diff: object }> }) =>
    history.versions.map((v) => ({ version: v.version, kind: v.kind, diff: Object.keys(v.diff) }))
  assert.deepEqual(
    shape(await ok(client, 'get_transaction_history', { id: viaMcp })),
    shape((await get(app, `/api/v1/transactions/${viaRest}/history`)) as never),
  )
  const typesOf = async (entityId: string) =>
    (await ok(client, 'list_events', { entity_id: entityId, limit: 100 })).events.map(
      (e: { type: string }) => e.type,
    )
  const mcpTypes = await typesOf(viaMcp)
  assert.ok(mcpTypes.includes('transaction.created'), mcpTypes.join())
  assert.deepEqual(mcpTypes, await typesOf(viaRest))
  assert.deepEqual(
    await ok(client, 'list_events', { after: 0, limit: 3, type: 'transaction.created' }),
    await get(app, '/api/v1/events?after=0&limit=3&type=transaction.created'),
  )
  assert.deepEqual(
    await ok(client, 'list_events', { newest: 2 }),
    await get(app, '/api/v1/events?newest=2'),
  )

  // Service errors carry the REST problem details, status for status.
  const missing = await fails(client, 'get_transaction', { id: 'nope' })
  const restMissing = await rest(app, 'GET', '/api/v1/transactions/nope')
  assert.equal(restMissing.status, 404)
  assert.deepEqual(missing, restMissing.body)
  const badAmount = await fails(client, 'create_transaction', {
    account_id: account.id,
    amount: '1.2.3',
    date: '2024-01-15',
  })
  const restBadAmount = await rest(app, 'POST', '/api/v1/transactions', {
    account_id: account.id,
    amount: '1.2.3',
    date: '2024-01-15',
  })
  assert.equal(restBadAmount.status, 400)
  assert.deepEqual(badAmount, restBadAmount.body)

  // Deletes answer {deleted, id}; the objects are gone for REST too.
  assert.deepEqual(await ok(client, 'delete_transaction', { id: viaMcp }), {
    deleted: true,
    id: viaMcp,
  })
  assert.equal((await rest(app, 'GET', `/api/v1/transactions/${viaMcp}`)).status, 404)
  assert.equal((await fails(client, 'delete_transaction', { id: viaMcp })).status, 404)
  assert.deepEqual(await ok(client, 'delete_account', { id: account.id }), {
    deleted: true,
    id: account.id,
  })
  assert.equal((await rest(app, 'GET', `/api/v1/accounts/${account.id}`)).status, 404)
  const deletedTypes = (
    await ok(client, 'list_events', { entity_id: account.id, limit: 100 })
  ).events.map((e: { type: string }) => e.type)
  assert.ok(deletedTypes.includes('account.deleted'), deletedTypes.join())
})

test('webhook, API key and source tools equal their REST responses', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const client = await connect(t, app)
  const hook = await receiver(t)

  const created = await ok(client, 'create_webhook', { url: hook.url, event_types: [] })
  assert.equal(typeof created.secret, 'string')
  assert.deepEqual(await ok(client, 'list_webhooks'), await get(app, '/api/v1/webhooks'))
  const updated = await ok(client, 'update_webhook', { id: created.id, enabled: false })
  assert.equal(updated.enabled, false)
  assert.deepEqual(updated, await get(app, `/api/v1/webhooks/${created.id}`))
  const tested = await ok(client, 'test_webhook', { id: created.id })
  assert.equal(tested.delivered, true)
  assert.equal(tested.status, 204)
  assert.equal(hook.hits(), 1)
  assert.equal(
    (await fails(client, 'create_webhook', { url: 'ftp://x', event_types: [] })).status,
    400,
  )
  assert.deepEqual(await ok(client, 'delete_webhook', { id: created.id }), {
    deleted: true,
    id: created.id,
  })
  assert.equal((await rest(app, 'GET', `/api/v1/webhooks/${created.id}`)).status, 404)

  const key = await ok(client, 'create_api_key', { name: 'reader', scope: 'read' })
  assert.match(key.key, /^\S{20,}$/)
  assert.deepEqual(await ok(client, 'list_api_keys'), await get(app, '/api/v1/security/api-keys'))
  assert.equal((await fails(client, 'create_api_key', { name: 'x', scope: 'admin' })).status, 400)
  assert.deepEqual(await ok(client, 'revoke_api_key', { id: key.id }), {
    deleted: true,
    id: key.id,
  })
  assert.equal((await fails(client, 'revoke_api_key', { id: key.id })).status, 404)

  assert.deepEqual(await ok(client, 'list_sources'), await get(app, '/api/v1/sources'))
  const unknown = await fails(client, 'sync_source', { type: 'nope' })
  const restUnknown = await rest(app, 'POST', '/api/v1/sources/nope/sync')
  assert.equal(unknown.status, 404)
  assert.deepEqual(unknown, restUnknown.body)
  // csv has no folder configured here: 409, as REST.
  const unconfigured = await fails(client, 'sync_source', { type: 'csv' })
  assert.equal(unconfigured.status, 409)
  assert.deepEqual(unconfigured, (await rest(app, 'POST', '/api/v1/sources/csv/sync')).body)
  const run = await ok(client, 'trigger_sync')
  assert.equal(typeof run.run_id, 'string')
  // The run is the engine's own: REST sees it (poll: it completes asynchronously).
  const deadline = Date.now() + 10_000
  let latest: Json = null
  while (Date.now() < deadline) {
    latest = (await get(app, '/api/v1/sync')).latest
    if (latest?.id === run.run_id && latest.status !== 'running') break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.equal(latest?.id, run.run_id)
  // No source is configured: the run completes with nothing to do.
  assert.equal(latest.status, 'success', JSON.stringify(latest))
  assert.equal(latest.trigger, 'manual')
  assert.notEqual(latest.completed_at, null)
})

test('/mcp is admin tier: API keys 403, no token 401, wrong verbs 405, no dashboard token 503', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const key = (
    await rest(app, 'POST', '/api/v1/security/api-keys', { name: 'rw', scope: 'read_write' })
  ).body.key as string
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    },
  }
  const headers = { accept: 'application/json, text/event-stream' }
  const withKey = await app.request('POST', '/mcp', { token: key, body: init, headers })
  assert.equal(withKey.status, 403, withKey.text)
  assert.equal(withKey.body.status, 403)
  await assert.rejects(connect(t, app, key))
  assert.equal((await app.request('POST', '/mcp', { body: init, headers })).status, 401)
  const good = await app.request('POST', '/mcp', { token: TOKEN, body: init, headers })
  assert.equal(good.status, 200, good.text)
  assert.equal(good.body.result.serverInfo.name, 'coffer')
  for (const method of ['GET', 'DELETE']) {
    const res = await app.request(method, '/mcp', { token: TOKEN, headers })
    assert.equal(res.status, 405, method)
    assert.equal(res.headers.get('allow'), 'POST')
  }
  // JSON that is no JSON-RPC message is an invalid request (-32600), as over stdio.
  const invalid: Array<[unknown, string | number | null, RegExp]> = [
    [{ ...init, jsonrpc: '1.0' }, 1, /"jsonrpc" must be "2.0"/],
    [{ jsonrpc: '2.0', id: 7 }, 7, /no "method", "result" or "error"/],
    [{ ...init, params: 'x' }, 1, /a field has the wrong type/],
    ['str', null, /"jsonrpc" must be "2.0"/],
    [[], null, /an empty batch/],
  ]
  for (const [body, id, message] of invalid) {
    const res = await app.request('POST', '/mcp', { token: TOKEN, body, headers })
    assert.equal(res.status, 400, JSON.stringify(body))
    assert.equal(res.body.id, id, JSON.stringify(body))
    assert.equal(res.body.error.code, -32600, JSON.stringify(body))
    assert.match(res.body.error.message, message)
  }

  const open = await startTestApp(t)
  const none = await open.request('POST', '/mcp', { body: init, headers })
  assert.equal(none.status, 503, none.text)
  assert.equal(none.body.status, 503)

  const off = await startTestApp(t, {
    env: { SERVICE_DASHBOARD_TOKEN: TOKEN, SERVICE_MCP_ENABLED: 'false' },
  })
  assert.equal(
    (await off.request('POST', '/mcp', { token: TOKEN, body: init, headers })).status,
    404,
  )
})

test('search_transactions with a needle past the LIKE pattern limit of SQLite answers', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const client = await connect(t, app)
  const account = await ok(client, 'create_account', { name: 'Wallet', currency: 'USD' })
  await ok(client, 'create_transaction', {
    account_id: account.id,
    amount: '-1.00',
    date: '2024-03-01',
    description: 'Coffee',
  })
  // Longer than any text a row can hold: no match, and no 5xx on the way.
  for (const q of ['x'.repeat(60_000), `coffee OR ${'%_'.repeat(30_000)}`]) {
    const found = await ok(client, 'search_transactions', { q })
    assert.equal(found.total, q.startsWith('coffee') ? 1 : 0)
  }
})

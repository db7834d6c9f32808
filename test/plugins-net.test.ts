// Plugin network egress through coffer.fetch (CONTRACT 9) against local targets,
// the per-plugin egress log, and the plugin MCP tools: real plugin folders, the
// real service, on SQLite and PostgreSQL.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test, type TestContext } from 'node:test'
import { startTestApp, type TestApp } from './helpers/app.js'
import { connectMcp, toolFails, toolOk } from './helpers/mcp.js'
import {
  newAccount,
  newTransaction,
  PLUGIN_MCP_TOOL_NAMES,
  waitFor,
  waitForPlugin,
  writePlugin,
} from './helpers/plugins.js'

const TOKEN = 'plugins-net-token-0123456789abcdefgh'
const auth = { token: TOKEN }

/** A local target: /hello answers JSON, /redirect sends the client to `location`. */
async function target(t: TestContext, location = 'http://169.254.169.254/latest/meta-data') {
  const hits: string[] = []
  const server = createServer((req, res) => {
    hits.push(req.url ?? '')
    if (req.url?.startsWith('/redirect')) {
      res.writeHead(302, { location }).end()
      return
    }
    res.writeHead(200, { 'content-type': 'application/json', 'x-target': 'yes' })
    res.end(JSON.stringify({ hello: 'plugin', method: req.method }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { port: (server.address() as AddressInfo).port, hits }
}

const account = (app: TestApp) => newAccount(app, TOKEN)
const transaction = (app: TestApp, accountId: string) =>
  newTransaction(app, TOKEN, { account_id: accountId, amount: '-1.00', description: 'x' })

function fetcher(url: string) {
  return `export async function onTransactionCreate(event) {
  const res = await coffer.fetch({ url: ${JSON.stringify(url)}, method: 'GET', headers: { accept: 'application/json' } })
  await coffer.setExtension(event.entity_id, 'net.result', { status: res.status, body: JSON.parse(res.body), truncated: res.truncated })
}`
}

test('egress: loopback refused until granted, then allowed over http; every attempt logged', async (t) => {
  const { port, hits } = await target(t)
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  writePlugin(app, 'caller', {
    hooks: ['onTransactionCreate'],
    capabilities: ['net:fetch', 'extensions:write'],
    extra: '[net]\nallow = ["127.0.0.1"]\n',
    code: fetcher(`http://127.0.0.1:${port}/hello?secret=s3cr3t`),
  })
  const acct = await account(app)
  await app.request('POST', '/api/v1/plugins/caller/enable', auth)
  await transaction(app, acct)
  const refused = await waitForPlugin(app, 'caller', (p) => p.last_status === 'error', TOKEN)
  assert.match(String(refused.last_error), /denied/)
  assert.equal(hits.length, 0)

  const granted = await app.request('POST', '/api/v1/plugins/caller/enable', {
    ...auth,
    body: { net_grants: ['127.0.0.1'] },
  })
  assert.deepEqual(granted.body.net_grants, ['127.0.0.1'])
  const id = await transaction(app, acct)
  await waitForPlugin(app, 'caller', (p) => p.last_status === 'ok', TOKEN)
  // The hook's writes land with its batch, just after its outcome is recorded.
  const result = await waitFor('the fetched result', async () => {
    const tx = await app.request('GET', `/api/v1/transactions/${id}`, auth)
    return tx.body.extensions['net.result'] as unknown
  })
  assert.deepEqual(result, {
    status: 200,
    body: { hello: 'plugin', method: 'GET' },
    truncated: false,
  })
  assert.deepEqual(hits, ['/hello?secret=s3cr3t'])

  const egress = await app.request('GET', '/api/v1/plugins/caller/egress', auth)
  assert.equal(egress.status, 200)
  const attempts = egress.body.attempts as Array<Record<string, unknown>>
  assert.deepEqual(
    attempts.map((a) => a.outcome),
    ['ok', 'denied'],
  )
  assert.equal(attempts[0]!.status, 200)
  assert.ok(
    attempts.every((a) => !String(a.url).includes('s3cr3t')),
    'the query is logged',
  )
  assert.ok(!app.logs.some((line) => line.includes('s3cr3t')), 'the query is in the log')
  const metrics = await app.request('GET', '/metrics', auth)
  assert.match(metrics.text, /service_plugin_egress_total\{plugin="caller",outcome="denied"\} 1/)
  // Admin only.
  const key = await app.request('POST', '/api/v1/security/api-keys', {
    ...auth,
    body: { name: 'rw', scope: 'read_write' },
  })
  assert.equal(
    (await app.request('GET', '/api/v1/plugins/caller/egress', { token: key.body.key })).status,
    403,
  )
})

test('egress: hosts outside the allow-list and redirects to private addresses are refused', async (t) => {
  const { port, hits } = await target(t)
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  writePlugin(app, 'outside', {
    hooks: ['onTransactionCreate'],
    capabilities: ['net:fetch', 'extensions:write'],
    code: fetcher('https://example.com/'),
  })
  writePlugin(app, 'redirected', {
    hooks: ['onTransactionCreate'],
    capabilities: ['net:fetch', 'extensions:write'],
    extra: '[net]\nallow = ["127.0.0.1"]\n',
    code: fetcher(`http://127.0.0.1:${port}/redirect`),
  })
  const acct = await account(app)
  await app.request('POST', '/api/v1/plugins/outside/enable', auth)
  await app.request('POST', '/api/v1/plugins/redirected/enable', {
    ...auth,
    body: { net_grants: ['127.0.0.1'] },
  })
  await transaction(app, acct)
  const outside = await waitForPlugin(app, 'outside', (p) => p.last_status === 'error', TOKEN)
  assert.match(String(outside.last_error), /example\.com/)
  const redirected = await waitForPlugin(app, 'redirected', (p) => p.last_status === 'error', TOKEN)
  assert.match(String(redirected.last_error), /169\.254\.169\.254|denied/)
  assert.deepEqual(hits, ['/redirect'])
})

test('MCP over HTTP: the plugin tools answer as REST does', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  writePlugin(app, 'stats', {
    hooks: ['onPageRender'],
    capabilities: ['ui:page'],
    code: `export function onPageRender({ params }) { return { title: 'Hi ' + (params.who ?? 'you'), blocks: [{ type: 'text', text: 'hello' }] } }`,
  })
  const client = await connectMcp(t, app, TOKEN)
  const names = (await client.listTools()).tools.map((tool) => tool.name)
  for (const name of PLUGIN_MCP_TOOL_NAMES) assert.ok(names.includes(name), `${name} is offered`)

  const listed = await toolOk(client, 'list_plugins')
  assert.deepEqual(listed, (await app.request('GET', '/api/v1/plugins', auth)).body)
  const enabled = await toolOk(client, 'enable_plugin', { id: 'stats', net_grants: [] })
  assert.equal(enabled.state, 'loaded')
  assert.deepEqual(await toolOk(client, 'get_plugin', { id: 'stats' }), enabled)
  const page = await toolOk(client, 'render_plugin_page', { name: 'stats', params: { who: 'mcp' } })
  assert.deepEqual(page, {
    name: 'stats',
    page: { title: 'Hi mcp', blocks: [{ type: 'text', text: 'hello' }] },
  })
  assert.equal((await toolOk(client, 'reload_plugin', { id: 'stats' })).state, 'loaded')
  assert.equal((await toolOk(client, 'disable_plugin', { id: 'stats' })).state, 'disabled')
  assert.deepEqual(await toolOk(client, 'browse_plugin_registry'), {
    available: false,
    plugins: [],
  })
  const missing = await toolFails(client, 'get_plugin', { id: 'nope' })
  assert.equal(missing.status, 404)
  assert.deepEqual(await toolOk(client, 'uninstall_plugin', { id: 'stats' }), {
    deleted: true,
    id: 'stats',
  })
})

// Plugins (CONTRACT 9) through the real doors: real plugin folders in plugins.dir,
// the real sandbox, the event log feeding hooks, on SQLite and PostgreSQL.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { startTestApp, type TestApp } from './helpers/app.js'
import { csvBatch, csvRows, headSequence, ingest } from './helpers/ledger.js'
import {
  newAccount,
  newTransaction,
  waitFor,
  waitForPlugin,
  writePlugin,
} from './helpers/plugins.js'
import { assertLogFoldsToLedger } from './helpers/log-fold.js'

const TOKEN = 'plugins-test-dashboard-token-0123456789'
const auth = { token: TOKEN }

async function start(t: Parameters<typeof startTestApp>[0], env: Record<string, string> = {}) {
  return startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN, ...env } })
}

const account = (app: TestApp) => newAccount(app, TOKEN)
const transaction = (app: TestApp, accountId: string, description: string) =>
  newTransaction(app, TOKEN, { account_id: accountId, description })

async function labelsOf(app: TestApp, id: string): Promise<Record<string, string>> {
  const res = await app.request('GET', `/api/v1/transactions/${id}`, auth)
  return res.body.labels as Record<string, string>
}

const LABELLER = `
export async function onTransactionCreate(event) {
  const tx = event.data
  const merchant = (tx.description || '').toLowerCase().includes('coffee') ? 'coffee' : 'other'
  await coffer.applyLabels(event.entity_id, { category: merchant })
}
`

const writeLabeller = (app: TestApp) =>
  writePlugin(app, 'labeller', {
    hooks: ['onTransactionCreate'],
    capabilities: ['labels:write'],
    code: LABELLER,
  })

test('discovery: a new plugin starts disabled; a bad manifest names its key', async (t) => {
  const app = await start(t)
  writeLabeller(app)
  writePlugin(app, 'broken', { hooks: ['onTransactionExplode'], code: 'export {}' })
  writePlugin(app, 'misnamed', { hooks: ['onTransactionCreate'], code: LABELLER })
  writePlugin(app, 'importer', {
    hooks: ['onTransactionCreate'],
    code: `import pad from 'left-pad'\nexport function onTransactionCreate() { pad() }`,
  })
  writeFileSync(
    join(app.ctx.config.plugins.dir, 'misnamed', 'plugin.toml'),
    'name = "other"\nversion = "1.0.0"\nhooks = ["onTransactionCreate"]\n',
  )

  const res = await app.request('GET', '/api/v1/plugins', auth)
  assert.equal(res.status, 200)
  assert.equal(res.body.enabled, true)
  const byName = Object.fromEntries(
    (res.body.plugins as Array<Record<string, unknown>>).map((p) => [p.name, p]),
  )
  assert.deepEqual(Object.keys(byName).sort(), ['broken', 'importer', 'labeller', 'misnamed'])
  const labeller = byName.labeller!
  assert.equal(labeller.id, 'labeller')
  assert.equal(labeller.state, 'disabled')
  assert.equal(labeller.enabled, false)
  assert.equal(labeller.version, '1.0.0')
  assert.equal(labeller.runtime, 'js')
  assert.deepEqual(labeller.hooks, ['onTransactionCreate'])
  assert.deepEqual(labeller.capabilities, ['labels:write'])
  assert.deepEqual(labeller.net_grants, [])
  assert.equal(labeller.last_status, null)
  assert.equal(byName.broken!.state, 'error')
  assert.match(String(byName.broken!.last_error), /hooks: unknown hook "onTransactionExplode"/)
  assert.match(String(byName.misnamed!.last_error), /name: "other" differs from its folder/)
  // Code that imports beyond its folder is refused at load, and the plugin still shows what it is.
  assert.equal(byName.importer!.state, 'error')
  assert.equal(byName.importer!.version, '1.0.0')
  assert.match(
    String(byName.importer!.last_error),
    /import "left-pad": a plugin may import only files of its own folder/,
  )

  // Enabling a plugin whose manifest fails leaves it in error, saying why.
  const enabled = await app.request('POST', '/api/v1/plugins/broken/enable', auth)
  assert.equal(enabled.status, 200)
  assert.equal(enabled.body.state, 'error')
  assert.equal((await app.request('GET', '/api/v1/plugins/nope', auth)).status, 404)
  assert.equal((await app.request('POST', '/api/v1/plugins/nope/enable', auth)).status, 404)
})

test('hooks label new transactions through the mutation path; history and provenance name the plugin', async (t) => {
  const app = await start(t)
  writeLabeller(app)
  const acct = await account(app)
  // Created before the plugin is first enabled: not handed to it (its cursor starts at the head).
  const before = await transaction(app, acct, 'Coffee before')
  const enabled = await app.request('POST', '/api/v1/plugins/labeller/enable', auth)
  assert.equal(enabled.status, 200, enabled.text)
  assert.equal(enabled.body.state, 'loaded')
  assert.equal(enabled.body.enabled, true)

  const coffee = await transaction(app, acct, 'Blue Bottle Coffee')
  const other = await transaction(app, acct, 'Hardware store')
  await waitFor('labels', async () => ((await labelsOf(app, other)).category ? true : undefined))
  assert.deepEqual(await labelsOf(app, coffee), { category: 'coffee' })
  assert.deepEqual(await labelsOf(app, other), { category: 'other' })
  assert.deepEqual(await labelsOf(app, before), {})

  const history = await app.request('GET', `/api/v1/transactions/${coffee}/history`, auth)
  const labeled = (history.body.versions as Array<Record<string, unknown>>).find(
    (v) => v.kind === 'labeled',
  )
  assert.equal(labeled?.actor, 'plugin:labeller')
  const provenance = await app.request('GET', `/api/v1/transactions/${coffee}/provenance`, auth)
  const summaries = (provenance.body.transformations as Array<{ summary: string }>).map(
    (x) => x.summary,
  )
  assert.ok(
    summaries.includes('+label category:coffee (by plugin labeller)'),
    JSON.stringify(summaries),
  )
  const events = await app.request('GET', '/api/v1/events?type=label.applied', auth)
  assert.ok(
    (events.body.events as Array<{ entity_id: string }>).some((e) => e.entity_id === coffee),
  )
  const plugin = await waitForPlugin(app, 'labeller', (p) => p.last_status === 'ok', TOKEN)
  assert.equal(plugin.last_error, null)
  assert.ok(plugin.last_success_at)
  await assertLogFoldsToLedger(app, auth)
})

test('disabled plugins miss nothing: enabling again catches up from the cursor', async (t) => {
  const app = await start(t)
  writeLabeller(app)
  const acct = await account(app)
  assert.equal((await app.request('POST', '/api/v1/plugins/labeller/enable', auth)).status, 200)
  const first = await transaction(app, acct, 'Coffee one')
  await waitFor('first label', async () => ((await labelsOf(app, first)).category ? 1 : undefined))
  const disabled = await app.request('POST', '/api/v1/plugins/labeller/disable', auth)
  assert.equal(disabled.body.state, 'disabled')
  const whileOff = await transaction(app, acct, 'Coffee while off')
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.deepEqual(await labelsOf(app, whileOff), {})
  assert.equal((await app.request('POST', '/api/v1/plugins/labeller/enable', auth)).status, 200)
  await waitFor('catch-up label', async () =>
    (await labelsOf(app, whileOff)).category === 'coffee' ? 1 : undefined,
  )
})

test('a call without its capability throws in the plugin and is recorded; the cursor moves on', async (t) => {
  const app = await start(t)
  writePlugin(app, 'sneaky', {
    hooks: ['onTransactionCreate'],
    capabilities: ['transactions:read'],
    code: `export async function onTransactionCreate(event) {
      const tx = await coffer.getTransaction(event.entity_id)
      if (!tx || tx.id !== event.entity_id) throw new Error('could not read its transaction')
      await coffer.applyLabels(event.entity_id, { stolen: 'yes' })
    }`,
  })
  const acct = await account(app)
  await app.request('POST', '/api/v1/plugins/sneaky/enable', auth)
  const id = await transaction(app, acct, 'Anything')
  const plugin = await waitForPlugin(app, 'sneaky', (p) => p.last_status === 'error', TOKEN)
  assert.match(String(plugin.last_error), /labels:write/)
  assert.deepEqual(await labelsOf(app, id), {})
  assert.equal(plugin.state, 'loaded')
})

test('a TypeScript entrypoint is transpiled; config defaults, setConfig and reload', async (t) => {
  const app = await start(t)
  const dir = writePlugin(app, 'typed', {
    hooks: ['onTransactionCreate'],
    capabilities: ['extensions:write'],
    entrypoint: 'main.ts',
    extra: '[config]\nprefix = "seen"\ncount = 0\n',
    code: `interface Envelope { entity_id: string }
export async function onTransactionCreate(event: Envelope): Promise<void> {
  const count: number = (coffer.config.count as number) + 1
  await coffer.setConfig({ count })
  await coffer.setExtension(event.entity_id, 'typed.note', { prefix: coffer.config.prefix, count: coffer.config.count })
}
declare const coffer: any
`,
  })
  const acct = await account(app)
  assert.equal(
    (await app.request('POST', '/api/v1/plugins/typed/enable', auth)).body.state,
    'loaded',
  )
  const a = await transaction(app, acct, 'one')
  const b = await transaction(app, acct, 'two')
  const extOf = async (id: string) =>
    (await app.request('GET', `/api/v1/transactions/${id}`, auth)).body.extensions as Record<
      string,
      unknown
    >
  await waitFor('extension', async () => ((await extOf(b))['typed.note'] ? 1 : undefined))
  assert.deepEqual((await extOf(a))['typed.note'], { prefix: 'seen', count: 1 })
  assert.deepEqual((await extOf(b))['typed.note'], { prefix: 'seen', count: 2 })

  // Edit, reload: the new code runs; stored config survives the reload.
  writeFileSync(
    join(dir, 'main.ts'),
    `export async function onTransactionCreate(event: { entity_id: string }) {
  await coffer.setExtension(event.entity_id, 'typed.note', 'v2 after ' + coffer.config.count)
}
declare const coffer: any
`,
  )
  const reloaded = await app.request('POST', '/api/v1/plugins/typed/reload', auth)
  assert.equal(reloaded.status, 200)
  assert.equal(reloaded.body.state, 'loaded')
  const c = await transaction(app, acct, 'three')
  await waitFor('v2 extension', async () => ((await extOf(c))['typed.note'] ? 1 : undefined))
  assert.equal((await extOf(c))['typed.note'], 'v2 after 2')
})

test('uninstall runs onUninstall, removes the folder and the row; tiers', async (t) => {
  const app = await start(t)
  const dir = writePlugin(app, 'leaver', {
    hooks: ['onTransactionCreate', 'onUninstall'],
    code: `export function onTransactionCreate() {}
export function onUninstall() { coffer.log('info', 'leaver says goodbye') }`,
  })
  // Admin tier: an API key cannot enable; read tier lists.
  const key = await app.request('POST', '/api/v1/security/api-keys', {
    ...auth,
    body: { name: 'rw', scope: 'read_write' },
  })
  const apiKey = key.body.key as string
  assert.equal((await app.request('GET', '/api/v1/plugins', { token: apiKey })).status, 200)
  assert.equal(
    (await app.request('POST', '/api/v1/plugins/leaver/enable', { token: apiKey })).status,
    403,
  )
  assert.equal((await app.request('POST', '/api/v1/plugins/leaver/enable', auth)).status, 200)
  const removed = await app.request('DELETE', '/api/v1/plugins/leaver', auth)
  assert.equal(removed.status, 204)
  assert.ok(!existsSync(dir), 'the folder is still there')
  assert.equal((await app.request('GET', '/api/v1/plugins/leaver', auth)).status, 404)
  assert.ok(app.logs.some((line) => line.includes('leaver says goodbye')))
  assert.equal((await app.request('DELETE', '/api/v1/plugins/leaver', auth)).status, 404)
})

test('plugins.enabled = false: nothing runs, the list says so', async (t) => {
  const app = await start(t, { SERVICE_PLUGINS_ENABLED: 'false' })
  writePlugin(app, 'labeller', { hooks: ['onTransactionCreate'], code: LABELLER })
  const res = await app.request('GET', '/api/v1/plugins', auth)
  assert.deepEqual(res.body, { enabled: false, plugins: [] })
  assert.equal((await app.request('POST', '/api/v1/plugins/labeller/enable', auth)).status, 404)
})

test('a plugins.dir that cannot be read (under a file) leaves the ledger serving; the plugin routes say why', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-plugins-dir-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'a-file'), 'not a folder')
  const pluginsDir = join(dir, 'a-file', 'plugins')
  const app = await start(t, { SERVICE_PLUGINS_DIR: pluginsDir })
  const res = await app.request('GET', '/api/v1/plugins', auth)
  assert.equal(res.status, 503, JSON.stringify(res.body))
  assert.equal(
    res.body.detail,
    `plugins.dir ${pluginsDir} cannot be read: it or a folder above it is a file (ENOTDIR); set plugins.dir to a folder (docs/plugins.md)`,
  )
  assert.equal((await app.request('GET', '/api/v1/plugins/labeller', auth)).status, 503)
  const accountId = await account(app)
  assert.equal(typeof (await transaction(app, accountId, 'still writes')), 'string')
})

test('a hook reads back its own writes; a batch of events lands with every write', async (t) => {
  const app = await start(t)
  writePlugin(app, 'reader', {
    hooks: ['onTransactionCreate'],
    capabilities: ['transactions:read', 'labels:write', 'extensions:write'],
    code: `export async function onTransactionCreate(event) {
      await coffer.applyLabels(event.entity_id, { step: 'one' })
      const tx = await coffer.getTransaction(event.entity_id)
      await coffer.setExtension(event.entity_id, 'reader.saw', tx.labels.step || 'nothing')
      await coffer.removeLabels(event.entity_id, ['step'])
      await coffer.applyLabels(event.entity_id, { done: 'yes' })
    }`,
  })
  const acct = await account(app)
  await app.request('POST', '/api/v1/plugins/reader/enable', auth)
  const ids = []
  for (let i = 0; i < 5; i++) ids.push(await transaction(app, acct, `row ${i}`))
  for (const id of ids) {
    await waitFor('the batch', async () => ((await labelsOf(app, id)).done ? 1 : undefined))
    const tx = await app.request('GET', `/api/v1/transactions/${id}`, auth)
    assert.deepEqual(tx.body.labels, { done: 'yes' })
    assert.equal(tx.body.extensions['reader.saw'], 'one')
  }
})

test('deletes reach onTransactionDelete: a manual row, and each row of a deleted account', async (t) => {
  const app = await start(t)
  writePlugin(app, 'mourner', {
    hooks: ['onTransactionDelete'],
    code: `export function onTransactionDelete(event) {
      coffer.log('info', 'deleted ' + event.entity_id, { type: event.type })
    }`,
  })
  await app.request('POST', '/api/v1/plugins/mourner/enable', auth)
  const acct = await account(app)
  const lone = await transaction(app, acct, 'deleted by hand')
  const other = await account(app)
  const cascaded = [
    await transaction(app, other, 'goes with its account'),
    await transaction(app, other, 'this one too'),
  ]
  assert.equal((await app.request('DELETE', `/api/v1/transactions/${lone}`, auth)).status, 204)
  assert.equal((await app.request('DELETE', `/api/v1/accounts/${other}`, auth)).status, 204)
  for (const id of [lone, ...cascaded])
    await waitFor(`the delete hook of ${id}`, async () =>
      app.logs.some((line) => line.includes(`deleted ${id}`)) ? true : undefined,
    )
  await assertLogFoldsToLedger(app, auth)
})

/** The value of `service_plugin_lag_events` for `plugin` in a scrape, or undefined when absent. */
async function lagOf(app: TestApp, plugin: string): Promise<number | undefined> {
  const metrics = await app.request('GET', '/metrics', auth)
  const line = new RegExp(`^service_plugin_lag_events\\{plugin="${plugin}"\\} (\\d+)$`, 'm')
  const match = line.exec(metrics.text)
  return match ? Number(match[1]) : undefined
}

test('GET /metrics shows how far each running plugin is behind; a backlog is logged as it starts and ends', async (t) => {
  const app = await start(t, {
    SERVICE_PLUGINS_HOOK_TIMEOUT: '2s',
    SERVICE_PLUGINS_QUEUE_SIZE: '4',
  })
  writePlugin(app, 'waiting', {
    hooks: ['onTransactionCreate'],
    // Only the first row's hook never settles: one timeout, then the rest.
    code: `export async function onTransactionCreate(event) {
  if (event.data.description === 'row 0') await new Promise(() => {})
}`,
  })
  writeLabeller(app)
  for (const name of ['waiting', 'labeller'])
    assert.equal((await app.request('POST', `/api/v1/plugins/${name}/enable`, auth)).status, 200)
  assert.equal(await lagOf(app, 'waiting'), 0)

  await ingest(app, csvBatch(csvRows(Array.from({ length: 24 }, (_, i) => `csv:lag-${i}`))))
  const head = await headSequence(app, auth)
  // The waiting plugin's first hook holds its batch for the 2 s timeout: its events wait.
  const behind = await lagOf(app, 'waiting')
  assert.ok(behind !== undefined && behind > 0, `lag while a hook waits: ${behind}`)
  for (const name of ['waiting', 'labeller']) await app.plugins.manager.whenHandled(name, head)
  // Each also reads past the labels the labeller wrote after `head`, then is up to date.
  for (const name of ['waiting', 'labeller'])
    await waitFor(`${name} up to date`, async () =>
      (await lagOf(app, name)) === 0 ? 1 : undefined,
    )

  // 26 events through a queue of 4: full batches, a backlog worked through and logged.
  await waitFor('the backlog logged', async () =>
    app.logs.some((line) => line.includes('caught up with a backlog') && line.includes('labeller'))
      ? 1
      : undefined,
  )
  assert.ok(app.logs.some((line) => line.includes('working through a backlog of events')))

  // A disabled plugin runs no hooks here: it leaves the gauge.
  await app.request('POST', '/api/v1/plugins/labeller/disable', auth)
  assert.equal(await lagOf(app, 'labeller'), undefined)
})

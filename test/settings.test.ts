// Editable settings (CONTRACT 10, SPEC 4.2, 4.4, 7): the list with values and
// origins (default < file < env < stored), validation with the config file's
// rules, secrets never echoed, live keys applied at once, other keys waiting for
// a restart, the admin tier, and the same shapes over MCP. The restart itself
// (POST /system/restart on a spawned coffer serve) is test/restart.test.ts.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import {
  createSchema,
  dropSchema,
  dsnWithSchema,
  POSTGRES_DSN,
  startTestApp,
  type TestAppHandle,
} from './helpers/app.js'
import { expectProblem, expectStatus } from './helpers/http.js'
import { headSequence, problem } from './helpers/ledger.js'
import { connectMcp, toolFails, toolOk, type Json } from './helpers/mcp.js'
import { startReceiver } from './fakes/receiver.js'
import { cofferArgs } from './helpers/program.js'

const TOKEN = 'settings-dashboard-token-0123456789'
const SECRET = 'explorer-key-never-shown-4f9c2a'

interface Box {
  dir: string
  schema: string | null
  apps: TestAppHandle[]
}

/** A directory and a database for one or more services in turn, removed after the test. */
async function sandbox(t: TestContext, toml?: string): Promise<Box> {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-settings-'))
  const schema = POSTGRES_DSN ? await createSchema() : null
  if (toml !== undefined) writeFileSync(join(dir, 'coffer.toml'), toml)
  const box: Box = { dir, schema, apps: [] }
  t.after(async () => {
    for (const app of box.apps) await app.stop()
    if (schema) await dropSchema(schema)
    rmSync(dir, { recursive: true, force: true })
  })
  return box
}

/** A service on the box's database, with its config file when there is one, and the token. */
async function start(box: Box, env: Record<string, string> = {}): Promise<TestAppHandle> {
  const file = join(box.dir, 'coffer.toml')
  const app = await startTestApp(null, {
    env: { SERVICE_DASHBOARD_TOKEN: TOKEN, ...env },
    ...(existsSync(file) ? { configFile: file } : {}),
    reuse: { dir: box.dir, schema: box.schema },
  })
  box.apps.push(app)
  return app
}

/** The config file of the tests that show file origins. */
const TOML =
  '[sync]\nlookback_days = 30\n\n[webhooks]\ntimeout = "20s"\n\n[events]\nretention_days = 3\n'

function call(app: TestAppHandle, method: string, path: string, status: number, body?: unknown) {
  return expectStatus(app, method, path, status, body, { token: TOKEN })
}

function fails(app: TestAppHandle, method: string, path: string, status: number, body?: unknown) {
  return expectProblem(app, method, path, status, body, { token: TOKEN })
}

function entry(list: Json, key: string): Json {
  const found = (list.settings as Json[]).find((s) => s.key === key)
  assert.ok(found, `${key} is listed`)
  return found
}

test('settings list values and origins: default < file < env < stored, and DELETE falls back', async (t) => {
  const app = await start(await sandbox(t, TOML), { SERVICE_WEBHOOKS_MAX_ATTEMPTS: '3' })
  const list = await call(app, 'GET', '/api/v1/settings', 200)
  assert.equal(list.restart_required, false)
  assert.deepEqual(entry(list, 'events.enabled'), {
    key: 'events.enabled',
    title: 'Record events',
    kind: 'bool',
    value: true,
    default: true,
    origin: 'default',
    secret: false,
    restart_required: false,
  })
  assert.deepEqual(entry(list, 'sync.lookback_days'), {
    key: 'sync.lookback_days',
    title: 'Sync history window in days (0 means all)',
    kind: 'int',
    value: 30,
    default: 90,
    origin: 'file',
    secret: false,
    restart_required: false,
  })
  assert.deepEqual(entry(list, 'webhooks.max_attempts'), {
    key: 'webhooks.max_attempts',
    title: 'Webhook delivery attempts',
    kind: 'int',
    value: 3,
    default: 5,
    origin: 'env',
    secret: false,
    restart_required: false,
  })
  assert.deepEqual(entry(list, 'log.level'), {
    key: 'log.level',
    title: 'Log level',
    kind: 'enum',
    enum: ['trace', 'debug', 'info', 'warn', 'error'],
    value: 'info',
    default: 'info',
    origin: 'env',
    secret: false,
    restart_required: false,
  })
  assert.equal(entry(list, 'webhooks.timeout').kind, 'duration')
  assert.equal(entry(list, 'webhooks.timeout').value, '20s')
  assert.equal(entry(list, 'webhooks.timeout').origin, 'file')

  // Stored wins over the file and over the environment; both keys are live.
  const lookback = await call(app, 'PUT', '/api/v1/settings/sync.lookback_days', 200, {
    value: 0,
  })
  assert.deepEqual(lookback, {
    setting: { ...entry(list, 'sync.lookback_days'), value: 0, origin: 'stored' },
    restart_required: false,
  })
  const attempts = await call(app, 'PUT', '/api/v1/settings/webhooks.max_attempts', 200, {
    value: 8,
  })
  assert.equal(attempts.setting.origin, 'stored')
  assert.equal(attempts.setting.value, 8)
  const config = await call(app, 'GET', '/api/v1/config', 200)
  assert.equal(config.sync.lookback_days, 0)
  assert.equal(config.webhooks.max_attempts, 8)

  // DELETE of a live key: the file's or the environment's value applies at once.
  const back = await call(app, 'DELETE', '/api/v1/settings/sync.lookback_days', 200)
  assert.deepEqual(back.setting, entry(list, 'sync.lookback_days'))
  assert.equal(
    (await call(app, 'DELETE', '/api/v1/settings/webhooks.max_attempts', 200)).setting.origin,
    'env',
  )
  const after = await call(app, 'GET', '/api/v1/config', 200)
  assert.equal(after.sync.lookback_days, 30)
  assert.equal(after.webhooks.max_attempts, 3)
  // DELETE of a key with nothing stored is the same answer.
  assert.deepEqual(await call(app, 'DELETE', '/api/v1/settings/sync.lookback_days', 200), back)
})

test('a live key takes effect at once: webhooks.max_attempts bounds the next delivery', async (t) => {
  const app = await start(await sandbox(t), { SERVICE_WEBHOOKS_MAX_ATTEMPTS: '5' })
  const receiver = await startReceiver(t, () => 500)
  await call(app, 'POST', '/api/v1/webhooks', 201, {
    url: receiver.url,
    event_types: ['account.created'],
  })
  const applied: string[][] = []
  app.ctx.signals.on('settings.applied', (keys) => applied.push(keys))
  // One attempt, no retry: the stored value, not the environment's 5.
  await call(app, 'PUT', '/api/v1/settings/webhooks.max_attempts', 200, { value: 1 })
  // The parts that hold a live value (the sync schedule) hear of it.
  assert.deepEqual(applied, [['webhooks.max_attempts']])
  await call(app, 'PUT', '/api/v1/settings/sync.interval', 200, { value: '2h' })
  assert.deepEqual(applied.at(-1), ['sync.interval'])
  await call(app, 'POST', '/api/v1/accounts', 201, { name: 'Cash', currency: 'USD' })
  await app.webhooks.whenSettled(await headSequence(app, { token: TOKEN }))
  assert.equal(receiver.deliveries.length, 1)

  // log.level is live too: debug lines appear once it is stored.
  await call(app, 'PUT', '/api/v1/settings/log.level', 200, { value: 'error' })
  const before = app.logs.length
  await call(app, 'GET', '/api/v1/accounts', 200)
  const quiet = app.logs.slice(before).filter((line) => /"level":30/.test(line))
  assert.deepEqual(quiet, [], 'no info line once log.level is error')
  await call(app, 'DELETE', '/api/v1/settings/log.level', 200)
  const mark = app.logs.length
  await call(app, 'GET', '/api/v1/accounts', 200)
  assert.ok(
    app.logs.slice(mark).some((line) => /"level":30/.test(line)),
    'info lines again after the stored level is removed',
  )
})

test('a non-live key waits for a restart, and applies when the service starts again', async (t) => {
  const box = await sandbox(t, TOML)
  const first = await start(box)
  const changed = await call(first, 'PUT', '/api/v1/settings/events.retention_days', 200, {
    value: 30,
  })
  assert.deepEqual(changed, {
    setting: {
      key: 'events.retention_days',
      title: 'Event retention in days (0 keeps all; at most 36500)',
      kind: 'int',
      value: 30,
      default: 0,
      origin: 'stored',
      secret: false,
      restart_required: true,
    },
    restart_required: true,
  })
  // Not applied yet: the running configuration keeps the file's value.
  assert.equal((await call(first, 'GET', '/api/v1/config', 200)).events.retention_days, 3)
  const list = await call(first, 'GET', '/api/v1/settings', 200)
  assert.equal(list.restart_required, true)
  assert.deepEqual(
    (list.settings as Json[]).filter((s) => s.restart_required).map((s) => s.key),
    ['events.retention_days'],
  )
  // Storing the running value again needs no restart.
  await call(first, 'PUT', '/api/v1/settings/events.retention_days', 200, { value: 3 })
  assert.equal((await call(first, 'GET', '/api/v1/settings', 200)).restart_required, false)
  await call(first, 'PUT', '/api/v1/settings/events.retention_days', 200, { value: 30 })
  await first.stop()

  // The same database and file, started again: the stored value applies.
  const second = await start(box)
  assert.equal((await call(second, 'GET', '/api/v1/config', 200)).events.retention_days, 30)
  const again = await call(second, 'GET', '/api/v1/settings', 200)
  assert.equal(again.restart_required, false)
  assert.equal(entry(again, 'events.retention_days').origin, 'stored')
  // DELETE of a non-live key: the file's value applies at the next restart.
  const removed = await call(second, 'DELETE', '/api/v1/settings/events.retention_days', 200)
  assert.equal(removed.setting.value, 3)
  assert.equal(removed.setting.origin, 'file')
  assert.equal(removed.restart_required, true)
  assert.equal((await call(second, 'GET', '/api/v1/config', 200)).events.retention_days, 30)
})

test('unknown keys and keys that are not settings are 404 and not listed', async (t) => {
  const app = await start(await sandbox(t))
  const list = await call(app, 'GET', '/api/v1/settings', 200)
  const keys = (list.settings as Json[]).map((s) => s.key)
  const notSettings = [
    'server.addr',
    'server.allow_unauthenticated',
    'database.driver',
    'database.dsn',
    'data.dir',
    'dashboard.token',
    'csv.folders',
    'ethereum.address',
    'ethereum.addresses',
  ]
  for (const key of notSettings) assert.ok(!keys.includes(key), `${key} is not listed`)
  for (const key of ['webhooks.max_attempts', 'ethereum.api_key', 'update.url', 'log.format']) {
    assert.ok(keys.includes(key), `${key} is listed`)
  }
  for (const key of [...notSettings, 'nope.nothing', 'webhooks']) {
    const path = `/api/v1/settings/${encodeURIComponent(key)}`
    assert.deepEqual(
      await fails(app, 'PUT', path, 404, { value: 'x' }),
      problem(404, `unknown setting ${JSON.stringify(key)}`),
    )
    assert.deepEqual(
      await fails(app, 'DELETE', path, 404),
      problem(404, `unknown setting ${JSON.stringify(key)}`),
    )
  }
})

test('a bad value is 400 naming the problem, and nothing is stored', async (t) => {
  const app = await start(await sandbox(t))
  const before = await call(app, 'GET', '/api/v1/settings', 200)
  const cases: Array<[string, unknown, string]> = [
    ['webhooks.max_attempts', '5', 'webhooks.max_attempts: expected an integer, got string'],
    ['webhooks.max_attempts', 0, 'webhooks.max_attempts: must be at least 1, got 0'],
    ['webhooks.max_attempts', 2.5, 'webhooks.max_attempts: expected an integer, got float'],
    // Past what runs on them: a timer beyond setTimeout's 24.8 days fires at once, and
    // AbortSignal.timeout throws; the sandbox's heap is 32-bit.
    ['webhooks.timeout', '100000h', 'webhooks.timeout: must be at most 10m, got "100000h"'],
    ['plugins.hook_timeout', '720h', 'plugins.hook_timeout: must be at most 10m, got "720h"'],
    ['plugins.memory_mib', 4096, 'plugins.memory_mib: must be at most 2048, got 4096'],
    ['events.retention_days', 1e9, 'events.retention_days: must be at most 36500, got 1000000000'],
    // A sync every nanosecond stormed the log and the bank feeds; a lockout of years
    // could not be lifted but by a restart.
    ['sync.interval', '1ns', 'sync.interval: must be at least 60000ms, got "1ns"'],
    ['auth.failure_window', '25h', 'auth.failure_window: must be at most 1440m, got "25h"'],
    [
      'update.url',
      'https://u:S3cret@feed.example/f.json',
      'update.url: must not carry a user name or password (user:password@host): fetch cannot send them',
    ],
    ['events.enabled', 'yes', 'events.enabled: expected a boolean, got string'],
    ['log.level', 'loud', 'log.level: expected one of trace, debug, info, warn, error, got "loud"'],
    ['ethereum.api_key', 42, 'ethereum.api_key: expected a string, got integer'],
  ]
  for (const [key, value, detail] of cases) {
    assert.deepEqual(
      await fails(app, 'PUT', `/api/v1/settings/${key}`, 400, { value }),
      problem(400, detail, [{ field: 'value', message: detail }]),
      `${key} = ${JSON.stringify(value)}`,
    )
  }
  const duration = await fails(app, 'PUT', '/api/v1/settings/sync.interval', 400, {
    value: 'soon',
  })
  assert.match(duration.detail, /^sync\.interval: /)
  assert.deepEqual(
    duration.errors.map((e: Json) => e.field),
    ['value'],
  )
  // The body itself: value required, nothing else allowed.
  await fails(app, 'PUT', '/api/v1/settings/log.level', 400, {})
  await fails(app, 'PUT', '/api/v1/settings/log.level', 400, { value: 'debug', extra: 1 })
  // Nothing changed.
  assert.deepEqual(await call(app, 'GET', '/api/v1/settings', 200), before)
})

test('a secret setting is never echoed: responses, logs, GET /config and the settings table', async (t) => {
  const box = await sandbox(t)
  const app = await start(box)
  // A management action: no event (SPEC 6.1.5).
  const head = await headSequence(app, { token: TOKEN })
  {
    const stored = await call(app, 'PUT', '/api/v1/settings/ethereum.api_key', 200, {
      value: SECRET,
    })
    assert.deepEqual(stored, {
      setting: {
        key: 'ethereum.api_key',
        title: 'Block explorer API key',
        kind: 'string',
        value: null,
        default: null,
        origin: 'stored',
        secret: true,
        set: true,
        restart_required: true,
      },
      restart_required: true,
    })
  }
  assert.equal(await headSequence(app, { token: TOKEN }), head)
  const list = await app.request('GET', '/api/v1/settings', { token: TOKEN })
  assert.ok(!list.text.includes(SECRET))
  assert.equal(entry(list.body, 'ethereum.api_key').set, true)
  assert.equal(entry(list.body, 'aggregator.access_url').set, false)
  assert.equal(entry(list.body, 'aggregator.access_url').value, null)
  const rows = await app.ctx.db.kysely.selectFrom('settings').selectAll().execute()
  assert.ok(!JSON.stringify(rows).includes(SECRET), 'the settings table holds no secret')
  assert.ok(!app.logs.some((line) => line.includes(SECRET)), 'no log line holds the secret')
  await app.stop()

  // After a restart the secret applies and GET /config still redacts it.
  const again = await start(box)
  const config = await again.request('GET', '/api/v1/config', { token: TOKEN })
  assert.equal(config.body.ethereum.api_key, '[redacted]')
  assert.ok(!config.text.includes(SECRET))
  const entryAfter = entry(await call(again, 'GET', '/api/v1/settings', 200), 'ethereum.api_key')
  assert.equal(entryAfter.restart_required, false)
  const removed = await call(again, 'DELETE', '/api/v1/settings/ethereum.api_key', 200)
  assert.equal(removed.setting.set, false)
  assert.equal(removed.setting.origin, 'default')
  assert.ok(!again.logs.some((line) => line.includes(SECRET)))
})

test(
  'a secret the store cannot write (data.dir is a file) is a 503 naming the file, and nothing is stored',
  { skip: POSTGRES_DSN !== null && 'PostgreSQL keeps secrets in a table' },
  async (t) => {
    const box = await sandbox(t)
    const dataDir = join(box.dir, 'data')
    const app = await start(box, { SERVICE_DATA_DIR: dataDir })
    // The folder becomes a file while the service runs (a mistaken mount, say).
    rmSync(dataDir, { recursive: true, force: true })
    writeFileSync(dataDir, 'not a folder')
    const refused = await fails(app, 'PUT', '/api/v1/settings/ethereum.api_key', 503, {
      value: SECRET,
    })
    assert.equal(
      refused.detail,
      `the secret store ${join(dataDir, 'secrets.json')} cannot be read (ENOTDIR); data.dir must be a folder this service can write`,
    )
    // Reading is refused alike until the folder is back; nothing was stored.
    await fails(app, 'GET', '/api/v1/settings', 503)
    rmSync(dataDir)
    const listed = await call(app, 'GET', '/api/v1/settings', 200)
    assert.equal(entry(listed, 'ethereum.api_key').set, false)
  },
)

test('settings and restart are admin tier: 503 without a token, 403 for API keys, 401 without a bearer', async (t) => {
  const routes: Array<[string, string, unknown]> = [
    ['GET', '/api/v1/settings', undefined],
    ['PUT', '/api/v1/settings/log.level', { value: 'debug' }],
    ['DELETE', '/api/v1/settings/log.level', undefined],
    ['POST', '/api/v1/system/restart', undefined],
  ]
  const open = await startTestApp(t)
  for (const [method, path, body] of routes) {
    await expectProblem(open, method, path, 503, body)
  }
  const app = await start(await sandbox(t))
  for (const scope of ['read', 'read_write']) {
    const key = await call(app, 'POST', '/api/v1/security/api-keys', 201, { name: scope, scope })
    for (const [method, path, body] of routes) {
      await expectProblem(app, method, path, 403, body, { token: key.key })
    }
  }
  for (const [method, path, body] of routes) await expectProblem(app, method, path, 401, body)
  assert.equal(
    (await call(app, 'GET', '/api/v1/settings', 200)).settings.find(
      (s: Json) => s.key === 'log.level',
    ).origin,
    'env',
    'nothing was stored by the refused requests',
  )
  // An app started in-process (no coffer serve around it) cannot restart itself.
  assert.deepEqual(await fails(app, 'POST', '/api/v1/system/restart', 503), {
    type: 'about:blank',
    title: 'Service Unavailable',
    status: 503,
    detail: 'this service cannot restart itself: it was not started by coffer serve',
  })
})

test('MCP over HTTP: list_settings, set_setting and reset_setting answer as REST does', async (t) => {
  const app = await start(await sandbox(t))
  const client = await connectMcp(t, app, TOKEN)
  const names = (await client.listTools()).tools.map((tool) => tool.name)
  for (const name of ['list_settings', 'set_setting', 'reset_setting']) {
    assert.ok(names.includes(name), `${name} is offered`)
  }
  assert.deepEqual(
    await toolOk(client, 'list_settings'),
    await call(app, 'GET', '/api/v1/settings', 200),
  )
  const set = await toolOk(client, 'set_setting', { key: 'sync.interval', value: '12h' })
  assert.equal(set.setting.value, '12h')
  assert.equal(set.setting.origin, 'stored')
  assert.equal(set.setting.restart_required, false)
  assert.equal((await call(app, 'GET', '/api/v1/config', 200)).sync.interval, '12h')
  const secret = await toolOk(client, 'set_setting', {
    key: 'csv.drive_client_secret',
    value: SECRET,
  })
  assert.equal(secret.setting.value, null)
  assert.equal(secret.setting.set, true)
  const reset = await toolOk(client, 'reset_setting', { key: 'sync.interval' })
  assert.deepEqual(reset, await call(app, 'DELETE', '/api/v1/settings/sync.interval', 200))
  assert.equal(reset.setting.origin, 'env')

  const unknown = await toolFails(client, 'set_setting', { key: 'server.addr', value: 'x' })
  assert.equal(unknown.status, 404)
  const bad = await toolFails(client, 'set_setting', { key: 'webhooks.max_attempts', value: 'x' })
  assert.equal(bad.status, 400)
  assert.deepEqual(bad.errors, [
    { field: 'value', message: 'webhooks.max_attempts: expected an integer, got string' },
  ])
  assert.ok(!app.logs.some((line) => line.includes(SECRET)))
})

test('stored settings apply to the other commands too: coffer sync logs in the stored format', async (t) => {
  const box = await sandbox(t)
  const app = await start(box)
  const stored = await call(app, 'PUT', '/api/v1/settings/log.format', 200, { value: 'json' })
  assert.equal(stored.setting.restart_required, false, 'log.format is live')
  await app.stop()

  const base: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SERVICE_')) base[name] = value
  }
  const run = spawnSync(process.execPath, cofferArgs(['sync']), {
    cwd: box.dir,
    env: {
      ...base,
      SERVICE_DATA_DIR: join(box.dir, 'data'),
      SERVICE_DATABASE_PATH: join(box.dir, 'coffer.db'),
      SERVICE_SYNC_INTERVAL: '0',
      // The environment says text; the stored setting wins.
      SERVICE_LOG_FORMAT: 'text',
      SERVICE_LOG_LEVEL: 'debug',
      ...(box.schema
        ? { SERVICE_DATABASE_DRIVER: 'postgres', SERVICE_DATABASE_DSN: dsnWithSchema(box.schema) }
        : {}),
    },
    encoding: 'utf8',
    // Generous: tsx compiles the CLI on a possibly busy machine.
    timeout: 180_000,
  })
  assert.equal(run.status, 0, run.stderr)
  const lines = run.stderr.split('\n').filter((line) => line.startsWith('{'))
  assert.ok(lines.length > 0, `JSON log lines on stderr:\n${run.stderr}`)
  for (const line of lines) JSON.parse(line)
})

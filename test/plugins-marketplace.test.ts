// The plugin marketplace (CONTRACT 9) against a local index on 127.0.0.1: a good
// install, an update that keeps the enabled state, a bad checksum and unsafe
// paths refused with nothing written, an index that cannot be read.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { startTestApp } from './helpers/app.js'
import { startMarket } from './fakes/plugin-market.js'

const TOKEN = 'plugins-market-token-0123456789abcdef'
const auth = { token: TOKEN }

const manifest = (name: string, version: string) =>
  `name = "${name}"\nversion = "${version}"\nhooks = ["onPageRender"]\ncapabilities = ["ui:page"]\nentrypoint = "main.js"\n`
const code = (text: string) =>
  `import { title } from './lib/title.js'\nexport function onPageRender() { return { title: title, blocks: [{ type: 'text', text: ${JSON.stringify(text)} }] } }`

test('install, update keeping the enabled state, and refusals that write nothing', async (t) => {
  const market = await startMarket(t)
  const app = await startTestApp(t, {
    env: { SERVICE_DASHBOARD_TOKEN: TOKEN, SERVICE_PLUGINS_REGISTRY_URL: market.indexUrl },
  })
  const dir = app.ctx.config.plugins.dir
  market.publish({
    name: 'hello',
    version: '1.0.0',
    capabilities: ['ui:page'],
    files: [
      { path: 'plugin.toml', content: manifest('hello', '1.0.0') },
      {
        path: 'main.js',
        content: 'export function onPageRender() { return { title: "v1", blocks: [] } }',
      },
    ],
  })
  market.publish({
    name: 'tampered',
    version: '1.0.0',
    files: [
      { path: 'plugin.toml', content: manifest('tampered', '1.0.0') },
      { path: 'main.js', content: 'export function onPageRender() {}', served: 'evil()' },
    ],
  })
  market.publish({
    name: 'escaper',
    version: '1.0.0',
    files: [
      { path: 'plugin.toml', content: manifest('escaper', '1.0.0') },
      { path: '../evil.js', content: 'evil()' },
    ],
  })

  const listed = await app.request('GET', '/api/v1/plugins/registry', auth)
  assert.equal(listed.status, 200, listed.text)
  assert.equal(listed.body.available, true)
  const hello = (listed.body.plugins as Array<Record<string, unknown>>).find(
    (p) => p.name === 'hello',
  )
  assert.deepEqual(hello, {
    name: 'hello',
    version: '1.0.0',
    description: 'hello from the market',
    author: 'market',
    capabilities: ['ui:page'],
    installed: false,
    installed_version: null,
    update_available: false,
  })

  const installed = await app.request('POST', '/api/v1/plugins/registry/hello/install', auth)
  assert.equal(installed.status, 201, installed.text)
  assert.equal(installed.body.state, 'disabled')
  assert.equal(installed.body.version, '1.0.0')
  assert.equal((await app.request('POST', '/api/v1/plugins/hello/enable', auth)).status, 200)
  const v1 = await app.request('GET', '/api/v1/plugins/pages/hello', auth)
  assert.equal(v1.body.page.title, 'v1')

  // A new version, with a nested file: shown as an update, installed in place, still enabled.
  market.publish({
    name: 'hello',
    version: '1.1.0',
    capabilities: ['ui:page'],
    files: [
      { path: 'plugin.toml', content: manifest('hello', '1.1.0') },
      { path: 'main.js', content: code('second') },
      { path: 'lib/title.js', content: 'export const title = "v2"' },
    ],
  })
  const again = await app.request('GET', '/api/v1/plugins/registry', auth)
  const update = (again.body.plugins as Array<Record<string, unknown>>).find(
    (p) => p.name === 'hello',
  )
  assert.equal(update?.installed_version, '1.0.0')
  assert.equal(update?.update_available, true)
  const updated = await app.request('POST', '/api/v1/plugins/registry/hello/install', auth)
  assert.equal(updated.status, 200, updated.text)
  assert.equal(updated.body.version, '1.1.0')
  assert.equal(updated.body.enabled, true)
  assert.equal(
    readFileSync(join(dir, 'hello', 'lib', 'title.js'), 'utf8'),
    'export const title = "v2"',
  )

  // A bad checksum and a `../` path: 422, nothing written, nothing left behind.
  const tampered = await app.request('POST', '/api/v1/plugins/registry/tampered/install', auth)
  assert.equal(tampered.status, 422)
  assert.match(tampered.body.detail, /file "main\.js" .*SHA-256|file "main\.js" is \d+ bytes/)
  const escaper = await app.request('POST', '/api/v1/plugins/registry/escaper/install', auth)
  assert.equal(escaper.status, 422)
  assert.match(escaper.body.detail, /unsafe file path "\.\.\/evil\.js"/)
  assert.deepEqual(readdirSync(dir).sort(), ['hello'])
  assert.ok(!existsSync(join(dir, '..', 'evil.js')))
  assert.equal(
    (await app.request('POST', '/api/v1/plugins/registry/nope/install', auth)).status,
    404,
  )

  // Admin only.
  const key = await app.request('POST', '/api/v1/security/api-keys', {
    ...auth,
    body: { name: 'rw', scope: 'read_write' },
  })
  assert.equal(
    (await app.request('GET', '/api/v1/plugins/registry', { token: key.body.key })).status,
    403,
  )
})

test('an index that cannot be read is a 502; none configured is available: false', async (t) => {
  const app = await startTestApp(t, {
    env: {
      SERVICE_DASHBOARD_TOKEN: TOKEN,
      SERVICE_PLUGINS_REGISTRY_URL: 'http://127.0.0.1:9/index.json',
    },
  })
  const res = await app.request('GET', '/api/v1/plugins/registry', auth)
  assert.equal(res.status, 502)
  assert.match(res.body.detail, /plugin index/)
  const none = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  assert.deepEqual((await none.request('GET', '/api/v1/plugins/registry', auth)).body, {
    available: false,
    plugins: [],
  })
})

test('a crash between the renames of an install is put right at the next start', async (t) => {
  const first = await startTestApp(null, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const dir = first.ctx.config.plugins.dir
  await first.stop()
  t.after(() => rmSync(first.dir, { recursive: true, force: true }))
  // The old folder set aside, the new one never renamed into place; a staging leftover.
  mkdirSync(join(dir, '.old-hello-0badcafe'), { recursive: true })
  writeFileSync(join(dir, '.old-hello-0badcafe', 'plugin.toml'), manifest('hello', '1.0.0'))
  writeFileSync(
    join(dir, '.old-hello-0badcafe', 'main.js'),
    'export function onPageRender() { return { title: "x", blocks: [] } }',
  )
  mkdirSync(join(dir, '.staging-hello-0badcafe'))
  const second = await startTestApp(t, {
    env: { SERVICE_DASHBOARD_TOKEN: TOKEN },
    reuse: { dir: first.dir, schema: first.schema },
  })
  const res = await second.request('GET', '/api/v1/plugins/hello', auth)
  assert.equal(res.status, 200)
  assert.equal(res.body.version, '1.0.0')
  assert.deepEqual(readdirSync(dir), ['hello'])
})

// The plugin marketplace (CONTRACT 9) against a local index on 127.0.0.1: a good
// install, an update that keeps the enabled state, a bad checksum and unsafe
// paths refused with nothing written, an index that cannot be read, downloads
// that break off or stall, paths the disk cannot hold, installs at once.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { startTestApp } from './helpers/app.js'
import { fetchRegistryIndex, installFromRegistry } from '../src/plugins/marketplace.js'
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

const helloFiles = (name: string, version = '1.0.0') => [
  { path: 'plugin.toml', content: manifest(name, version) },
  {
    path: 'main.js',
    content: 'export function onPageRender() { return { title: "v1", blocks: [] } }',
  },
]

test('a download that breaks off or stalls is a 502 that says so; nothing is written', async (t) => {
  const market = await startMarket(t)
  const app = await startTestApp(t, {
    env: { SERVICE_DASHBOARD_TOKEN: TOKEN, SERVICE_PLUGINS_REGISTRY_URL: market.indexUrl },
  })
  const dir = app.ctx.config.plugins.dir
  const [manifestFile, mainFile] = helloFiles('cut')
  market.publish({
    name: 'cut',
    version: '1.0.0',
    files: [manifestFile!, { ...mainFile!, fault: 'breaks-off' }],
  })
  const cut = await app.request('POST', '/api/v1/plugins/registry/cut/install', auth)
  assert.equal(cut.status, 502, cut.text)
  assert.match(cut.body.detail, /plugin "cut": file "main\.js": the download broke off/)
  assert.ok(!existsSync(join(dir, 'cut')))
  assert.deepEqual(existsSync(dir) ? readdirSync(dir) : [], [])

  // The timeout covers the body: a file (or an index) that dribbles in is cut at it.
  const [slowManifest, slowMain] = helloFiles('slow')
  market.publish({
    name: 'slow',
    version: '1.0.0',
    files: [slowManifest!, { ...slowMain!, fault: 'dribbles' }],
  })
  const entry = (await fetchRegistryIndex(market.indexUrl)).find((e) => e.name === 'slow')!
  await assert.rejects(
    installFromRegistry({ pluginsDir: dir, entry, timeoutMs: 300 }),
    (error: Error & { status?: number }) =>
      error.status === 502 && /file "main\.js": the download timed out/.test(error.message),
  )
  assert.ok(!existsSync(join(dir, 'slow')))
  market.indexFault = 'dribbles'
  await assert.rejects(
    fetchRegistryIndex(market.indexUrl, { timeoutMs: 300 }),
    (error: Error & { status?: number }) =>
      error.status === 502 && error.message === 'the plugin index: the download timed out',
  )
  market.indexFault = 'breaks-off'
  const index = await app.request('GET', '/api/v1/plugins/registry', auth)
  assert.equal(index.status, 502)
  assert.equal(index.body.detail, 'the plugin index: the download broke off')
})

test('file paths the disk cannot hold are 422: a file that is also a folder, a long name', async (t) => {
  const market = await startMarket(t)
  const app = await startTestApp(t, {
    env: { SERVICE_DASHBOARD_TOKEN: TOKEN, SERVICE_PLUGINS_REGISTRY_URL: market.indexUrl },
  })
  market.publish({
    name: 'clash',
    version: '1.0.0',
    files: [
      ...helloFiles('clash'),
      { path: 'lib', content: 'a' },
      { path: 'lib/x.js', content: 'b' },
    ],
  })
  const clash = await app.request('POST', '/api/v1/plugins/registry/clash/install', auth)
  assert.equal(clash.status, 422, clash.text)
  assert.match(clash.body.detail, /"lib" is both a file and a folder/)

  // 200 characters, 400 bytes: a name is limited in bytes (255 on common file systems).
  const long = 'é'.repeat(200)
  market.publish({
    name: 'longname',
    version: '1.0.0',
    files: [...helloFiles('longname'), { path: `lib/${long}.js`, content: 'c' }],
  })
  const named = await app.request('POST', '/api/v1/plugins/registry/longname/install', auth)
  assert.equal(named.status, 422, named.text)
  assert.match(named.body.detail, /a name in "lib\/é+\.js" is longer than 255 bytes/)
  const dir = app.ctx.config.plugins.dir
  assert.deepEqual(existsSync(dir) ? readdirSync(dir) : [], [])
})

test('installs of one plugin at once run one after the other: one install, then updates', async (t) => {
  const market = await startMarket(t)
  const app = await startTestApp(t, {
    env: { SERVICE_DASHBOARD_TOKEN: TOKEN, SERVICE_PLUGINS_REGISTRY_URL: market.indexUrl },
  })
  market.publish({ name: 'good', version: '1.0.0', files: helloFiles('good') })
  const answers = await Promise.all(
    Array.from({ length: 6 }, () =>
      app.request('POST', '/api/v1/plugins/registry/good/install', auth),
    ),
  )
  assert.deepEqual(
    answers.map((a) => a.status).sort(),
    [200, 200, 200, 200, 200, 201],
    answers.map((a) => a.text).join('\n'),
  )
  assert.deepEqual(readdirSync(app.ctx.config.plugins.dir), ['good'])
})

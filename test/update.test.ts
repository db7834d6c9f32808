// Self-update (CONTRACT 10, issue 14 item 3), through the real doors: GET and
// POST /api/v1/update against a release feed on 127.0.0.1. The apply tests run
// a real `coffer serve` from an install laid out in a temp directory (this
// checkout's source at a version of the test's choosing), on a fixed port, on
// the engine under test: a good release is swapped in and the service comes
// back at the new version with its data on the same port; a release that never
// becomes ready is rolled back; a wrong checksum or size, or a failed
// download, swaps nothing.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer as createHttpServer, type ServerResponse } from 'node:http'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { processSandbox, requester, startTestApp, type TestApp } from './helpers/app.js'
import { expectProblem, expectStatus } from './helpers/http.js'
import {
  buildRelease,
  installsDir,
  layOutInstall,
  startFeed,
  type ReleaseShape,
} from './fakes/release-feed.js'
import { cofferArgs } from './helpers/program.js'

const TOKEN = 'update-test-dashboard-token-0123456789'
const admin = { token: TOKEN }

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  while (Date.now() < deadline) {
    try {
      const value = await probe()
      if (value !== undefined) return value
    } catch (error) {
      last = error
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(
    `timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`,
  )
}

interface Installed {
  root: string
  url: string
  request: TestApp['request']
  output(): string
  version(): string
}

/** `coffer serve` from an install at `version` in a temp directory, on a fixed port. */
async function serveInstall(
  t: TestContext,
  version: string,
  feedUrl: string,
  /** Paths relative to the install (the service runs from it when any is given). */
  env: Record<string, string> = {},
): Promise<Installed> {
  const sandbox = await processSandbox(t, 'update')
  const root = mkdtempSync(join(installsDir(), 'install-'))
  t.after(() => rmSync(root, { recursive: true, force: true }))
  layOutInstall(root, version)
  const port = await freePort()
  const child = spawn(process.execPath, cofferArgs(['serve'], root), {
    cwd: Object.keys(env).length > 0 ? root : sandbox.dir,
    env: {
      PATH: process.env.PATH,
      ...sandbox.env,
      SERVICE_SERVER_ADDR: `127.0.0.1:${port}`,
      SERVICE_DASHBOARD_TOKEN: TOKEN,
      SERVICE_UPDATE_CHECK: 'true',
      SERVICE_UPDATE_ALLOW_APPLY: 'true',
      SERVICE_UPDATE_URL: feedUrl,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  t.after(async () => {
    if (child.exitCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    try {
      process.kill(-child.pid!, 'SIGTERM') // the supervisor and its child
    } catch {
      return
    }
    const killer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // gone
      }
    }, 15_000)
    await exited
    clearTimeout(killer)
  })
  const url = `http://127.0.0.1:${port}`
  const installed: Installed = {
    root,
    url,
    request: requester(url),
    output: () => output,
    version: () =>
      (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version,
  }
  await eventually('the service to listen', async () =>
    output.includes('listening on') ? true : undefined,
  )
  return installed
}

/** GET /update's `current`, once the service answers it. */
function currentVersion(app: Installed, wanted: string) {
  return eventually(`version ${wanted} to answer`, async () => {
    const res = await app.request('GET', '/api/v1/update', admin)
    return res.status === 200 && res.body.current === wanted ? res.body : undefined
  })
}

test('GET /update says {enabled: false} without update.check; reading it never fetches', async (t) => {
  const feed = await startFeed(t)
  feed.publish({ version: '99.0.0', release: null })
  const app = await startTestApp(t, {
    env: { SERVICE_UPDATE_URL: feed.url },
    firstUpdateCheckMs: 0,
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/update', 200), { enabled: false })
  const on = await startTestApp(t, {
    env: { SERVICE_UPDATE_URL: feed.url, SERVICE_UPDATE_CHECK: 'true' },
  })
  const before = await expectStatus(on, 'GET', '/api/v1/update', 200)
  assert.equal(before.latest, null, 'nothing was read yet: the first check is 15 s after start')
  assert.equal(before.checked_at, null)
  assert.equal(before.update_available, false)
  assert.equal(feed.downloads(), 0)
})

test('the feed is checked after start: latest, notes and whether it can be applied', async (t) => {
  const feed = await startFeed(t)
  const release = await buildRelease('99.1.0')
  feed.publish({ version: '99.1.0', release })
  const app = await startTestApp(t, {
    env: {
      SERVICE_UPDATE_URL: feed.url,
      SERVICE_UPDATE_CHECK: 'true',
      SERVICE_DASHBOARD_TOKEN: TOKEN,
    },
    firstUpdateCheckMs: 0,
  })
  const status = await eventually('the first check', async () => {
    const body = await expectStatus(app, 'GET', '/api/v1/update', 200, undefined, admin)
    return body.checked_at ? body : undefined
  })
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  assert.equal(status.current, pkg.version)
  assert.equal(status.latest, '99.1.0')
  assert.equal(status.update_available, true)
  assert.equal(status.notes_url, 'https://example.invalid/releases/99.1.0')
  assert.equal(status.can_apply, false, 'update.allow_apply is off')
  assert.equal(status.last_error, null)
  assert.equal(feed.downloads(), 0, 'a check reads the feed, never the asset')
  // Applying is off: 403, nothing downloaded. A read key may read the status, not apply.
  const refused = await expectProblem(app, 'POST', '/api/v1/update', 403, undefined, admin)
  assert.match(refused.detail, /update\.allow_apply/)
  assert.equal(feed.downloads(), 0)
  const key = await expectStatus(
    app,
    'POST',
    '/api/v1/security/api-keys',
    201,
    { name: 'r', scope: 'read' },
    admin,
  )
  await expectStatus(app, 'GET', '/api/v1/update', 200, undefined, { token: key.key })
  await expectProblem(app, 'POST', '/api/v1/update', 403, undefined, { token: key.key })
})

test('a feed that cannot be read is reported in the status, not thrown', async (t) => {
  const feed = await startFeed(t) // publishes nothing: 404
  const app = await startTestApp(t, {
    env: { SERVICE_UPDATE_URL: feed.url, SERVICE_UPDATE_CHECK: 'true' },
    firstUpdateCheckMs: 0,
  })
  const status = await eventually('the first check', async () => {
    const body = await expectStatus(app, 'GET', '/api/v1/update', 200)
    return body.checked_at ? body : undefined
  })
  assert.equal(status.latest, null)
  assert.match(status.last_error, /HTTP 404/)
  assert.ok(app.logs.some((line) => line.includes('the release feed check failed')))
})

test('a hostile feed: past 1 MiB without a length, an asset address with a password or not http, a size past 2 GiB', async (t) => {
  let answer: (res: ServerResponse) => void = (res) => res.end()
  const server = createHttpServer((_req, res) => answer(res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const feedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.json`
  const app = await startTestApp(t, {
    env: {
      SERVICE_DASHBOARD_TOKEN: TOKEN,
      SERVICE_UPDATE_URL: feedUrl,
      SERVICE_UPDATE_CHECK: 'true',
      SERVICE_UPDATE_ALLOW_APPLY: 'true',
    },
    onRestart: () => {}, // never reached: every feed here is refused first
  })
  const feedWith = (assetFields: object, feedFields: object = {}) => ({
    version: '99.0.0',
    published_at: null,
    notes_url: null,
    assets: [
      {
        platform: `${process.platform}-${process.arch}`,
        url: 'https://releases.example/coffer.tgz',
        sha256: 'ab'.repeat(32),
        size: 1000,
        ...assetFields,
      },
    ],
    ...feedFields,
  })
  const asset = (fields: object) => (res: ServerResponse) =>
    res.end(JSON.stringify(feedWith(fields)))
  const refused = async (answerWith: typeof answer, named: RegExp) => {
    answer = answerWith
    const problem = await expectProblem(app, 'POST', '/api/v1/update', 502, undefined, admin)
    assert.match(problem.detail, named)
    assert.doesNotMatch(JSON.stringify(problem), /S3cret/)
    return problem
  }
  // Chunked, no Content-Length: read no further than the bound.
  await refused((res) => {
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    let sent = 0
    const more = () => {
      while (sent < 64 && res.write(chunk)) sent++
      if (sent < 64) res.once('drain', more)
      else res.end('{}')
    }
    more()
  }, /the release feed is larger than 1048576 bytes/)
  await refused(
    asset({ url: 'https://user:S3cretPass@releases.example/coffer.tgz' }),
    /\/assets\/0\/url carries a user name or password/,
  )
  await refused(asset({ url: 'file:///etc/passwd' }), /\/assets\/0\/url is not an http\(s\) URL/)
  await refused(asset({ size: 2 ** 40 }), /\/assets\/0\/size/)
  // A notes address that is no web address is not shown as a link.
  answer = (res) =>
    res.end(JSON.stringify(feedWith({}, { version: '0.0.1', notes_url: 'javascript:alert(1)' })))
  await expectStatus(app, 'POST', '/api/v1/update', 200, undefined, admin)
  assert.equal(
    (await expectStatus(app, 'GET', '/api/v1/update', 200, undefined, admin)).notes_url,
    null,
  )
  const status = await expectStatus(app, 'GET', '/api/v1/update', 200, undefined, admin)
  assert.doesNotMatch(JSON.stringify(status), /S3cret/)
  assert.ok(!app.logs.some((line) => line.includes('S3cret')), 'no log line holds the password')
})

test('a release with a wrong checksum or size, or a failed download, swaps nothing', async (t) => {
  const feed = await startFeed(t)
  const release = await buildRelease('0.9.0')
  feed.publish({ version: '0.9.0', release })
  const app = await serveInstall(t, '0.8.0', feed.url)
  await expectStatus(app, 'POST', '/api/v1/accounts', 201, { name: 'Cash', currency: 'USD' }, admin)

  feed.publish({ version: '0.9.0', release, sha256: 'ab'.repeat(32) })
  const checksum = await expectProblem(app, 'POST', '/api/v1/update', 422, undefined, admin)
  assert.match(checksum.detail, /SHA-256/)

  feed.publish({ version: '0.9.0', release, size: release.tarball.length - 1 })
  const size = await expectProblem(app, 'POST', '/api/v1/update', 422, undefined, admin)
  assert.match(size.detail, /larger than/)

  feed.publish({ version: '0.9.0', release, assetStatus: 500 })
  const download = await expectProblem(app, 'POST', '/api/v1/update', 502, undefined, admin)
  assert.match(download.detail, /HTTP 500/)
  assert.equal(feed.downloads(), 3)

  // Nothing swapped, nothing left behind, the same process still serving.
  assert.equal(app.version(), '0.8.0')
  assert.equal(existsSync(join(app.root, '.coffer-update')), false)
  const status = await expectStatus(app, 'GET', '/api/v1/update', 200, undefined, admin)
  assert.equal(status.current, '0.8.0')
  assert.equal(status.latest, '0.9.0')
  assert.equal(status.can_apply, true)
  const accounts = await expectStatus(app, 'GET', '/api/v1/accounts', 200, undefined, admin)
  assert.equal(accounts.total, 1)
  assert.doesNotMatch(app.output(), /restart: this process now supervises/)
})

test('a release that holds more than the program (a data folder, what its files do not name) swaps nothing', async (t) => {
  const feed = await startFeed(t)
  // The service's data lives inside the install, as when it runs from there.
  const app = await serveInstall(t, '0.8.0', feed.url, { SERVICE_DATA_DIR: 'state' })
  await expectStatus(app, 'POST', '/api/v1/accounts', 201, { name: 'Cash', currency: 'USD' }, admin)
  const refused = async (shape: ReleaseShape, named: RegExp) => {
    feed.publish({ version: '0.9.0', release: await buildRelease('0.9.0', shape) })
    const problem = await expectProblem(app, 'POST', '/api/v1/update', 422, undefined, admin)
    assert.match(problem.detail, named)
    assert.match(problem.detail, /never what the install keeps/)
  }
  // A data folder: the swap would have moved the ledger into the backup that a
  // healthy update deletes.
  await refused({ extra: { 'data/README': 'x' }, moreFiles: ['data/'] }, /"data"/)
  await refused({ extra: { 'coffer.toml': '' }, moreFiles: ['coffer.toml'] }, /"coffer\.toml"/)
  // This install's own data.dir, even where the release's files name it.
  await refused({ extra: { 'state/x': '' }, moreFiles: ['state/'] }, /"state"/)
  // An entry that its package.json `files` does not name is not the program's.
  await refused({ extra: { 'notes.txt': 'x' } }, /"notes\.txt"/)

  assert.equal(app.version(), '0.8.0')
  assert.equal(existsSync(join(app.root, '.coffer-update')), false)
  const accounts = await expectStatus(app, 'GET', '/api/v1/accounts', 200, undefined, admin)
  assert.equal(accounts.total, 1)
})

test('a good release is swapped in and the service comes back at it, with its data, on its port', async (t) => {
  const feed = await startFeed(t)
  feed.publish({ version: '0.9.0', release: await buildRelease('0.9.0') })
  const app = await serveInstall(t, '0.8.0', feed.url)
  const account = await expectStatus(
    app,
    'POST',
    '/api/v1/accounts',
    201,
    { name: 'Cash', currency: 'USD' },
    admin,
  )

  const applied = await expectStatus(app, 'POST', '/api/v1/update', 200, undefined, admin).catch(
    (error: unknown) => {
      throw new Error(`${String(error)}\n${app.output()}`)
    },
  )
  assert.deepEqual(applied, { updated: true, version: '0.9.0', restarting: true })
  const status = await currentVersion(app, '0.9.0')
  assert.equal(status.update_available, false)
  assert.equal(app.version(), '0.9.0', 'the install holds the new release')
  await eventually('the backup to go once the new version is ready', async () =>
    existsSync(join(app.root, '.coffer-update')) ? undefined : true,
  )
  // Same data, same port (the requester still points at it).
  await expectStatus(app, 'GET', `/api/v1/accounts/${account.id}`, 200, undefined, admin)
  assert.match(app.output(), /update: the new version is healthy/)
  // Applying again: the feed has nothing newer.
  assert.deepEqual(await expectStatus(app, 'POST', '/api/v1/update', 200, undefined, admin), {
    updated: false,
    version: '0.9.0',
    restarting: false,
  })
})

test('a release that does not become ready is rolled back to the running version', async (t) => {
  const feed = await startFeed(t)
  feed.publish({ version: '0.9.0', release: await buildRelease('0.9.0', { breakCli: true }) })
  const app = await serveInstall(t, '0.8.0', feed.url)
  await expectStatus(app, 'POST', '/api/v1/accounts', 201, { name: 'Cash', currency: 'USD' }, admin)

  const applied = await expectStatus(app, 'POST', '/api/v1/update', 200, undefined, admin)
  assert.equal(applied.restarting, true)
  await eventually('the rollback', async () =>
    /did not become ready; putting 0\.8\.0 back/.test(app.output()) ? true : undefined,
  )
  await currentVersion(app, '0.8.0')
  assert.equal(app.version(), '0.8.0')
  assert.equal(existsSync(join(app.root, '.coffer-update')), false)
  const accounts = await expectStatus(app, 'GET', '/api/v1/accounts', 200, undefined, admin)
  assert.equal(accounts.total, 1)
})

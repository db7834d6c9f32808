// POST /system/restart (CONTRACT 10) on a real `coffer serve`: answered 202
// {restarting: true}, the service drains (open event streams end) and runs
// again under the same PID (src/supervisor/), on the same fixed port, with its data and with the
// setting that waited for the restart applied. The program runs from source
// (tsx), as `npm test` runs everything, on the engine under test.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type AddressInfo } from 'node:net'
import { test, type TestContext } from 'node:test'
import { ENGINE, processSandbox, requester } from './helpers/app.js'
import { cofferArgs } from './helpers/program.js'

const TOKEN = 'restart-dashboard-token-0123456789'
/** How long the test waits for a start (a loaded CI machine, tsx compiling). */
const START_WAIT_MS = 30_000

/** A port that was free a moment ago: the service is given it as a fixed address. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

interface Served {
  child: ChildProcess
  output(): string
  exited: Promise<number | null>
}

function serve(t: TestContext, dir: string, env: Record<string, string>): Served {
  const base: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SERVICE_')) base[name] = value
  }
  const child = spawn(process.execPath, cofferArgs(['serve']), {
    cwd: dir,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  return { child, output: () => output, exited }
}

/** Waits until the service has logged "listening on" `count` times; answers the last address. */
async function listening(served: Served, count: number): Promise<string> {
  const deadline = Date.now() + START_WAIT_MS
  for (;;) {
    const urls = [...served.output().matchAll(/listening on (http:\/\/[^\s"]+)/g)].map((m) => m[1]!)
    if (urls.length >= count) return urls[count - 1]!
    if (served.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`coffer serve did not start (${count}):\n${served.output()}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

test(`POST /system/restart drains and starts again on the same port with the pending setting (${ENGINE})`, async (t) => {
  const { dir, env: box } = await processSandbox(t, 'restart')
  const port = await freePort()
  const served = serve(t, dir, {
    ...box,
    SERVICE_SERVER_ADDR: `127.0.0.1:${port}`,
    SERVICE_DASHBOARD_TOKEN: TOKEN,
  })
  const url = await listening(served, 1)
  assert.equal(url, `http://127.0.0.1:${port}`)
  const request = requester(url)
  const pid = served.child.pid

  const account = await request('POST', '/api/v1/accounts', {
    token: TOKEN,
    body: { name: 'Kept across restarts', currency: 'USD' },
  })
  assert.equal(account.status, 201, account.text)

  // A non-live setting waits for the restart.
  const pending = await request('PUT', '/api/v1/settings/events.retention_days', {
    token: TOKEN,
    body: { value: 7 },
  })
  assert.equal(pending.status, 200, pending.text)
  assert.equal(pending.body.restart_required, true)
  assert.equal(pending.body.setting.restart_required, true)
  const before = await request('GET', '/api/v1/config', { token: TOKEN })
  assert.equal(before.body.events.retention_days, 0)

  // An open event stream, which the drain must close.
  const stream = await fetch(`${url}/api/v1/events/stream`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  })
  assert.equal(stream.status, 200)
  const streamEnded = (async () => {
    const reader = stream.body!.getReader()
    try {
      for (;;) if ((await reader.read()).done) return 'ended'
    } catch {
      return 'ended'
    }
  })()

  const asked = Date.now()
  const restart = await request('POST', '/api/v1/system/restart', { token: TOKEN })
  assert.equal(restart.status, 202, restart.text)
  assert.deepEqual(restart.body, { restarting: true })

  assert.equal(await streamEnded, 'ended')
  assert.equal(await listening(served, 2), url, 'the same address after the restart')
  // A figure for the report, not an assertion (no timed assertions in tests).
  t.diagnostic(`listening again ${Date.now() - asked} ms after the restart was asked`)
  assert.equal(served.child.exitCode, null, 'the process kept running')
  assert.equal(served.child.pid, pid)
  assert.match(served.output(), /restart: draining/)

  // The pending setting applies; nothing waits any more; the data is there.
  const settings = await request('GET', '/api/v1/settings', { token: TOKEN })
  assert.equal(settings.status, 200, settings.text)
  assert.equal(settings.body.restart_required, false)
  const retention = settings.body.settings.find(
    (s: { key: string }) => s.key === 'events.retention_days',
  )
  assert.deepEqual(
    { value: retention.value, origin: retention.origin, pending: retention.restart_required },
    { value: 7, origin: 'stored', pending: false },
  )
  const after = await request('GET', '/api/v1/config', { token: TOKEN })
  assert.equal(after.body.events.retention_days, 7)
  const kept = await request('GET', `/api/v1/accounts/${encodeURIComponent(account.body.id)}`, {
    token: TOKEN,
  })
  assert.equal(kept.status, 200, kept.text)
  assert.equal(kept.body.name, 'Kept across restarts')

  // It restarts again, and still stops cleanly on SIGTERM.
  const second = await request('POST', '/api/v1/system/restart', { token: TOKEN })
  assert.equal(second.status, 202, second.text)
  assert.equal(await listening(served, 3), url)
  served.child.kill('SIGTERM')
  assert.equal(await served.exited, 0, served.output())
  assert.match(served.output(), /shutdown complete/)
  assert.doesNotMatch(served.output(), / (ERROR|WARN) /, 'no error or warning in the log')
})

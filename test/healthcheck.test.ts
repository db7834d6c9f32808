// `coffer healthcheck` (docs/operations.md "Health check") against a real
// `coffer serve`, and where the program finds its configuration: --config, else
// COFFER_CONFIG, else ./coffer.toml.
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import { test } from 'node:test'
import { processSandbox } from './helpers/app.js'
import { runCli, serveCli } from './helpers/cli.js'

/** A port that was free a moment ago: `coffer serve` needs a fixed one for healthcheck to find. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

test('healthcheck exits 0 while the service is ready and 1 with a one-line reason once it stopped', async (t) => {
  const box = await processSandbox(t, 'healthcheck')
  const port = await freePort()
  const env = { ...box.env, SERVICE_SERVER_ADDR: `127.0.0.1:${port}` }
  const server = await serveCli(t, env, box.dir)
  const up = await runCli(t, ['healthcheck'], env, box.dir)
  assert.equal(up.code, 0, up.stderr)
  assert.equal(up.stdout, `ok: http://127.0.0.1:${port}/readyz answered 200\n`)

  assert.equal((await server.stop()).code, 0)
  const down = await runCli(t, ['healthcheck'], env, box.dir)
  assert.equal(down.code, 1)
  assert.equal(down.stdout, '')
  assert.equal(
    down.stderr,
    `coffer healthcheck: http://127.0.0.1:${port}/readyz unreachable (ECONNREFUSED)\n`,
  )

  // Port 0 names no fixed port: nothing to check, said as much.
  const anyPort = await runCli(
    t,
    ['healthcheck'],
    { ...box.env, SERVICE_SERVER_ADDR: '127.0.0.1:0' },
    box.dir,
  )
  assert.equal(anyPort.code, 1)
  assert.equal(
    anyPort.stderr,
    'coffer healthcheck: server.addr 127.0.0.1:0 has port 0: there is no fixed port to check\n',
  )
})

test('COFFER_CONFIG names the configuration file; --config wins over it', async (t) => {
  const box = await processSandbox(t, 'coffer-config')
  const port = await freePort()
  const stopped = await freePort()
  const fromEnv = join(box.dir, 'env.toml')
  const fromFlag = join(box.dir, 'flag.toml')
  writeFileSync(fromEnv, `[server]\naddr = "127.0.0.1:${port}"\n`)
  writeFileSync(fromFlag, `[server]\naddr = "127.0.0.1:${stopped}"\n`)
  // The service reads its address from COFFER_CONFIG alone (no --config, no SERVICE_SERVER_ADDR).
  const server = await serveCli(t, { ...box.env, COFFER_CONFIG: fromEnv }, box.dir)
  assert.equal(server.url, `http://127.0.0.1:${port}`)

  const viaEnv = await runCli(t, ['healthcheck'], { ...box.env, COFFER_CONFIG: fromEnv }, box.dir)
  assert.equal(viaEnv.code, 0, viaEnv.stderr)
  const flagWins = await runCli(
    t,
    ['healthcheck', '--config', fromFlag],
    { ...box.env, COFFER_CONFIG: fromEnv },
    box.dir,
  )
  assert.equal(flagWins.code, 1)
  assert.match(flagWins.stderr, new RegExp(`127\\.0\\.0\\.1:${stopped}/readyz unreachable`))

  const missing = await runCli(
    t,
    ['healthcheck'],
    { ...box.env, COFFER_CONFIG: join(box.dir, 'nope.toml') },
    box.dir,
  )
  assert.equal(missing.code, 1)
  assert.equal(missing.stderr, `coffer: config file not found: ${join(box.dir, 'nope.toml')}\n`)
  assert.equal((await server.stop()).code, 0)
})

// `coffer sync` with the on-chain source (CONTRACT 1): the engine's per-source
// summary names it, the exit code follows the run, and the key shows nowhere in
// the output. The fake explorer lives in this process, so the CLI runs async.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { promisify } from 'node:util'
import { createSchema, dropSchema, dsnWithSchema, POSTGRES_DSN } from './helpers/app.js'
import { explorerEnv, hashOf, startFakeExplorer } from './fakes/explorer.js'
import { tempDir } from './sync-helpers.js'
import { cofferArgs } from './helpers/program.js'

const A = '0x' + 'a1'.repeat(20)

async function cofferSync(t: TestContext, env: Record<string, string>) {
  const dir = tempDir(t, 'eth-cli')
  const base: Record<string, string> = {
    ...(process.env as Record<string, string>),
    SERVICE_DATABASE_PATH: join(dir, 'coffer.db'),
    SERVICE_DATA_DIR: join(dir, 'data'),
    SERVICE_LOG_FORMAT: 'json',
    SERVICE_SYNC_LOOKBACK_DAYS: '0',
    ...env,
  }
  if (POSTGRES_DSN) {
    const schema = await createSchema()
    t.after(() => dropSchema(schema))
    base.SERVICE_DATABASE_DRIVER = 'postgres'
    base.SERVICE_DATABASE_DSN = dsnWithSchema(schema)
  }
  return async () => {
    try {
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        cofferArgs(['sync']),
        // Generous: tsx compiles the CLI on a possibly busy machine. From the temp
        // directory, never the checkout (a coffer.toml there must not count).
        { cwd: dir, env: base, encoding: 'utf8', timeout: 180_000 },
      )
      return { code: 0, stdout, stderr }
    } catch (error) {
      const failed = error as { code?: number; stdout: string; stderr: string }
      return { code: failed.code ?? -1, stdout: failed.stdout, stderr: failed.stderr }
    }
  }
}

test('coffer sync imports watched addresses and prints the ethereum summary', async (t) => {
  const fake = await startFakeExplorer(t)
  fake.transactions.push({
    hash: hashOf(1),
    block: 5,
    from: '0x' + 'c3'.repeat(20),
    to: A,
    value: '1',
    gasUsed: '21000',
    gasPrice: '1',
  })
  const run = await cofferSync(t, explorerEnv(fake, [A]))
  const first = await run()
  assert.equal(first.code, 0, first.stderr)
  const lines = first.stdout.trim().split('\n')
  assert.match(lines[0]!, /^sync run_[0-9a-f-]{36}: success in \d+(\.\d+)?s$/)
  assert.deepEqual(lines.slice(1), ['  ethereum: 1 inserted, 0 updated, 0 unchanged, 0 skipped'])
  const second = await run()
  assert.equal(second.code, 0, second.stderr)
  assert.match(second.stdout, /ethereum: 0 inserted, 0 updated, 1 unchanged, 0 skipped/)

  // Every address failing (here: a wrong key) makes the command fail, without the key.
  const wrongKey = 'wrong-key-for-the-cli-5e6f'
  const bad = await (
    await cofferSync(t, explorerEnv(fake, [A], { SERVICE_ETHEREUM_API_KEY: wrongKey }))
  )()
  assert.equal(bad.code, 1)
  assert.match(bad.stdout, /: error in /)
  assert.match(
    bad.stdout,
    /error: ethereum: 0xa1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1: txlist: explorer said: Invalid API Key/,
  )
  for (const output of [first.stdout, first.stderr, bad.stdout, bad.stderr]) {
    assert.ok(!output.includes(wrongKey) && !output.includes(fake.apiKey))
  }
})

// `coffer sync` (CONTRACT 1): one run with trigger "cli", a summary on stdout,
// a non-zero exit when the run failed.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { createSchema, dropSchema, dsnWithSchema, POSTGRES_DSN } from './helpers/app.js'
import { tempDir, writeFolders } from './sync-helpers.js'
import { cofferArgs } from './helpers/program.js'

async function coffer(t: import('node:test').TestContext, folders: unknown[], dir: string) {
  const env: Record<string, string> = {
    ...process.env,
    SERVICE_DATABASE_PATH: join(dir, 'coffer.db'),
    SERVICE_DATA_DIR: join(dir, 'data'),
    SERVICE_CSV_FOLDERS: JSON.stringify(folders),
    SERVICE_LOG_FORMAT: 'json',
  }
  if (POSTGRES_DSN) {
    const schema = await createSchema()
    t.after(() => dropSchema(schema))
    env.SERVICE_DATABASE_DRIVER = 'postgres'
    env.SERVICE_DATABASE_DSN = dsnWithSchema(schema)
  }
  return (extra: Record<string, string> = {}) =>
    spawnSync(process.execPath, cofferArgs(['sync']), {
      // From the test's own directory, never the checkout: a coffer.toml left
      // there by a user must not change what the test sees.
      cwd: dir,
      env: { ...env, ...extra },
      encoding: 'utf8',
      // Generous: tsx compiles the CLI on a possibly busy machine.
      timeout: 180_000,
    })
}

test('coffer sync runs one sync and prints its summary; a re-run finds everything unchanged', async (t) => {
  const dir = tempDir(t, 'cli')
  const folders = writeFolders(dir, [
    {
      name: 'Checking',
      files: { 'a.csv': 'Date,Amount,Description\n2024-01-01,1.00,a\nnope,2,b\n' },
    },
  ])
  const run = await coffer(t, folders, dir)
  const first = run()
  assert.equal(first.status, 0, first.stderr)
  const lines = first.stdout.trim().split('\n')
  assert.match(lines[0]!, /^sync run_[0-9a-f-]{36}: success in \d+(\.\d+)?s$/)
  assert.deepEqual(lines.slice(1), [
    '  csv: 1 inserted, 0 updated, 0 unchanged, 1 skipped',
    '  warning: csv: folder "Checking": file "a.csv": 1 row(s) skipped (line 3: unparseable date "nope")',
  ])
  // Not a terminal: no progress drawing on stderr, only log lines.
  assert.ok(!first.stderr.includes('\r'))
  const second = run()
  assert.equal(second.status, 0, second.stderr)
  assert.match(second.stdout, /csv: 0 inserted, 0 updated, 1 unchanged, 1 skipped/)
})

test('coffer sync exits non-zero when the run fails', async (t) => {
  const dir = tempDir(t, 'cli')
  const folders = [{ name: 'Gone', account: 'Gone', path: join(dir, 'does-not-exist') }]
  const run = await coffer(t, folders, dir)
  const result = run()
  assert.equal(result.status, 1, `${result.signal ?? ''} ${result.stdout}${result.stderr}`)
  const lines = result.stdout.trim().split('\n')
  assert.match(lines[0]!, /: error in /)
  assert.match(
    result.stdout,
    /error: csv: folder "Gone": cannot read directory .*does-not-exist \(ENOENT\)/,
  )
})

test('coffer sync with no source configured succeeds and says so', async (t) => {
  const dir = tempDir(t, 'cli')
  writeFileSync(join(dir, 'empty'), '')
  const run = await coffer(t, [], dir)
  const result = run()
  assert.equal(result.status, 0, result.stderr)
  assert.match(result.stdout, /no source is configured/)
})

// `coffer backup` and `coffer restore` (docs/operations.md "Backup and restore"),
// spawned as a user runs them, on the engine under test: a round trip keeps
// every table's rows and the event head, a database with data is never
// overwritten, and a backup taken while a large CSV sync runs restores to one
// consistent point of it.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { test, type TestContext } from 'node:test'
import pg from 'pg'
import { generateDashboardToken } from '../src/auth/dashboard-token.js'
import SqliteDatabase from '../src/db/sqlite-binding.js'
import { dsnWithSchema, ENGINE, processSandbox, type ProcessSandbox } from './helpers/app.js'
import { runCli, serveCli, startCli, type CliRun } from './helpers/cli.js'

/**
 * Rows of the CSV synced while a backup runs. The issue asks for 100k; 20k
 * keeps this file within about a minute on a busy two-core machine with either
 * engine, and the sync still runs for several seconds of batches, long enough
 * for the backup to land in the middle of it.
 */
const CONCURRENT_ROWS = 100_000
const ROUND_TRIP_ROWS = 300

/** A CSV folder of `rows` distinct rows, configured through SERVICE_CSV_FOLDERS. */
function withCsvFolder(box: ProcessSandbox, rows: number): Record<string, string> {
  const path = join(box.dir, 'csv', 'bank')
  mkdirSync(path, { recursive: true })
  const lines = ['Date,Description,Amount']
  for (let i = 0; i < rows; i++) {
    const date = new Date(Date.UTC(2020, 0, 1) + (i % 1500) * 86_400_000).toISOString().slice(0, 10)
    lines.push(`${date},row ${i},${i % 2 ? '-' : ''}${i}.${String(i % 100).padStart(2, '0')}`)
  }
  writeFileSync(join(path, 'bank.csv'), `${lines.join('\n')}\n`)
  return {
    ...box.env,
    SERVICE_CSV_FOLDERS: JSON.stringify([{ name: 'Bank', account: 'Bank', path }]),
  }
}

/** One read-only query on the sandbox's database (verification only; nothing is written). */
async function query<T>(box: ProcessSandbox, text: string): Promise<T[]> {
  if (box.schema) {
    const client = new pg.Client({ connectionString: dsnWithSchema(box.schema) })
    await client.connect()
    try {
      return (await client.query(text)).rows as T[]
    } finally {
      await client.end()
    }
  }
  const db = new SqliteDatabase(box.dbPath, { readonly: true })
  try {
    return db.prepare(text).all() as T[]
  } finally {
    db.close()
  }
}

interface Figures {
  transactions: number
  events: number
  head: number
  created: number
  orphans: number
}

/** The figures of a consistent ledger: every transaction has its created event and version. */
async function figures(box: ProcessSandbox): Promise<Figures> {
  const [row] = await query<Record<keyof Figures, number | string>>(
    box,
    `select
       (select count(*) from transactions) as transactions,
       (select count(*) from events) as events,
       (select coalesce(max(sequence), 0) from events) as head,
       (select count(distinct entity_id) from events where type = 'transaction.created') as created,
       (select count(*) from transactions t where not exists
          (select 1 from events e where e.type = 'transaction.created' and e.entity_id = t.id)
        or not exists (select 1 from transaction_versions v where v.transaction_id = t.id)) as orphans`,
  )
  const out = {} as Figures
  for (const [key, value] of Object.entries(row!)) out[key as keyof Figures] = Number(value)
  return out
}

/** The printed summary: rows per table and the event head. */
function summaryOf(run: CliRun): { tables: Record<string, number>; head: number } {
  assert.equal(run.code, 0, run.stderr)
  const tables: Record<string, number> = {}
  for (const match of run.stdout.matchAll(/^ {2}(\w+)\s+(\d+)$/gm))
    tables[match[1]!] = Number(match[2])
  const head = /^event head: (\d+)$/m.exec(run.stdout)
  assert.ok(head, run.stdout)
  return { tables, head: Number(head[1]) }
}

async function sandboxes(t: TestContext) {
  return {
    source: await processSandbox(t, 'backup-source'),
    target: await processSandbox(t, 'backup-target'),
  }
}

for (const format of ['default', 'portable'] as const) {
  test(`backup (${format}) then restore into an empty database: same rows per table, same event head, searchable`, async (t) => {
    const { source, target } = await sandboxes(t)
    const env = withCsvFolder(source, ROUND_TRIP_ROWS)
    const sync = await runCli(t, ['sync'], env, source.dir)
    assert.equal(sync.code, 0, sync.stderr)

    const file = join(source.dir, format === 'portable' ? 'coffer.backup.gz' : 'coffer.backup')
    const backup = await runCli(
      t,
      ['backup', file, ...(format === 'portable' ? ['--portable'] : [])],
      env,
      source.dir,
    )
    const written = summaryOf(backup)
    assert.match(
      backup.stdout,
      format === 'default' && ENGINE === 'sqlite' ? /SQLite database file/ : /portable dump/,
    )
    assert.equal(written.tables.transactions, ROUND_TRIP_ROWS)
    // One file, readable by its owner only, nothing left beside it.
    assert.equal(statSync(file).mode & 0o777, 0o600)
    assert.deepEqual(
      readdirSync(source.dir).filter((name) => name.startsWith('coffer.backup')),
      [basename(file)],
    )
    assert.deepEqual(await figures(source), {
      transactions: ROUND_TRIP_ROWS,
      events: written.head,
      head: written.head,
      created: ROUND_TRIP_ROWS,
      orphans: 0,
    })

    const restore = await runCli(t, ['restore', file], target.env, target.dir)
    const restored = summaryOf(restore)
    assert.deepEqual(restored, written)
    assert.deepEqual(await figures(target), await figures(source))

    // The restored database serves: lists, search (SQLite rebuilds its index), the
    // log head, and the next event follows it (PostgreSQL's sequence continues).
    const token = generateDashboardToken()
    const server = await serveCli(
      t,
      { ...target.env, SERVICE_SERVER_ADDR: '127.0.0.1:0', SERVICE_DASHBOARD_TOKEN: token },
      target.dir,
    )
    const get = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
      const res = await fetch(`${server.url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      })
      assert.ok(res.ok, `${path}: ${res.status}`)
      return (await res.json()) as T
    }
    const list = await get<{ total: number }>('/api/v1/transactions?limit=1')
    assert.equal(list.total, ROUND_TRIP_ROWS)
    const search = await get<{ total: number }>(
      `/api/v1/transactions/search?q=${encodeURIComponent('"row 1"')}`,
    )
    // "row 1", "row 10".."row 19", "row 100".."row 199"
    assert.equal(search.total, 111)
    type Events = { events: Array<{ sequence: number; type: string }> }
    const newest = async () => (await get<Events>('/api/v1/events?newest=1')).events.at(-1)
    assert.equal((await newest())?.sequence, written.head)
    await get('/api/v1/accounts', {
      method: 'POST',
      body: JSON.stringify({ name: 'After restore', currency: 'USD' }),
    })
    const next = await newest()
    assert.equal(next?.sequence, written.head + 1)
    assert.equal(next?.type, 'account.created')
    assert.equal((await server.stop()).code, 0)
  })
}

test('restore into a database that holds data is refused, and changes nothing; so is a truncated or foreign file', async (t) => {
  const { source, target } = await sandboxes(t)
  const env = withCsvFolder(source, 50)
  assert.equal((await runCli(t, ['sync'], env, source.dir)).code, 0)
  const file = join(source.dir, 'coffer.backup')
  summaryOf(await runCli(t, ['backup', file], env, source.dir))
  const before = await figures(source)

  const refused = await runCli(t, ['restore', file], env, source.dir)
  assert.equal(refused.code, 1)
  assert.equal(refused.stdout, '')
  assert.match(
    refused.stderr,
    /^coffer restore: the target database is not empty \(\w+ holds \d+ rows\); restore only into an empty database\n$/,
  )
  assert.deepEqual(await figures(source), before)

  const missing = await runCli(t, ['restore', join(source.dir, 'nope')], env, source.dir)
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /does not exist/)
  const notBackup = join(source.dir, 'not-a-backup')
  writeFileSync(notBackup, 'hello')
  const bad = await runCli(t, ['restore', notBackup], env, source.dir)
  assert.equal(bad.code, 1)
  assert.match(bad.stderr, /^coffer restore: .* is not a Coffer backup/)

  // A copy cut short: refused, and the load (one transaction) leaves the target empty.
  const portable = join(source.dir, 'coffer.backup.gz')
  summaryOf(await runCli(t, ['backup', portable, '--portable'], env, source.dir))
  const whole = readFileSync(portable)
  const cut = join(source.dir, 'cut.backup.gz')
  writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.8)))
  const truncated = await runCli(t, ['restore', cut], target.env, target.dir)
  assert.equal(truncated.code, 1)
  assert.equal(truncated.stderr, `coffer restore: ${cut} ends early: the backup is incomplete\n`)
  assert.deepEqual(await figures(target), {
    transactions: 0,
    events: 0,
    head: 0,
    created: 0,
    orphans: 0,
  })
})

test(`a backup taken while a sync of ${CONCURRENT_ROWS} CSV rows runs restores to one consistent point`, async (t) => {
  const { source, target } = await sandboxes(t)
  const env = withCsvFolder(source, CONCURRENT_ROWS)
  const server = await serveCli(t, { ...env, SERVICE_SERVER_ADDR: '127.0.0.1:0' }, source.dir)
  const sync = startCli(t, ['sync'], env, source.dir)
  // Wait for the first committed batch, then back up while the rest imports.
  for (;;) {
    const [row] = await query<{ n: number | string }>(
      source,
      'select count(*) as n from transactions',
    ).catch(() => [{ n: 0 }])
    if (Number(row?.n) > 0) break
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const file = join(source.dir, 'during-sync.backup')
  const written = summaryOf(await runCli(t, ['backup', file], env, source.dir))
  const synced = await sync.done
  assert.equal(synced.code, 0, synced.stderr)
  t.diagnostic(
    `backup caught ${written.tables.transactions} of ${CONCURRENT_ROWS} transactions, event head ${written.head}`,
  )

  summaryOf(await runCli(t, ['restore', file], target.env, target.dir))
  const restored = await figures(target)
  const n = written.tables.transactions!
  assert.ok(n > 0 && n <= CONCURRENT_ROWS)
  // One point of the sync: each transaction with its event and version, and
  // the log ends where the backup said, with no event missing before it.
  assert.deepEqual(restored, {
    transactions: n,
    events: written.head,
    head: written.head,
    created: n,
    orphans: 0,
  })
  const source_ = await figures(source)
  assert.equal(source_.transactions, CONCURRENT_ROWS)
  assert.ok(source_.head >= written.head)
  assert.equal((await server.stop()).code, 0)
})

/** The sandbox as a SQLite one: its file, whatever engine the suite runs on. */
function asSqlite(box: ProcessSandbox): ProcessSandbox {
  const env = { ...box.env }
  delete env.SERVICE_DATABASE_DRIVER
  delete env.SERVICE_DATABASE_DSN
  return { ...box, schema: null, env }
}

test(
  'a backup restores across engines: a SQLite file into PostgreSQL, a PostgreSQL dump into SQLite',
  { skip: ENGINE === 'sqlite' ? 'needs PostgreSQL (COFFER_TEST_POSTGRES_DSN)' : false },
  async (t) => {
    const { source, target } = await sandboxes(t)
    const sqliteSource = asSqlite(source)
    const env = withCsvFolder(sqliteSource, ROUND_TRIP_ROWS)
    assert.equal((await runCli(t, ['sync'], env, source.dir)).code, 0)
    const file = join(source.dir, 'sqlite.backup')
    const written = summaryOf(await runCli(t, ['backup', file], env, source.dir))
    assert.deepEqual(summaryOf(await runCli(t, ['restore', file], target.env, target.dir)), written)
    assert.deepEqual(await figures(target), await figures(sqliteSource))

    // And back: PostgreSQL's dump into a fresh SQLite file.
    const dump = join(target.dir, 'postgres.backup.gz')
    assert.deepEqual(summaryOf(await runCli(t, ['backup', dump], target.env, target.dir)), written)
    const sqliteTarget = asSqlite(await processSandbox(t, 'backup-back'))
    assert.deepEqual(
      summaryOf(await runCli(t, ['restore', dump], sqliteTarget.env, sqliteTarget.dir)),
      written,
    )
    assert.deepEqual(await figures(sqliteTarget), await figures(sqliteSource))
  },
)

const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0

test(
  'progress is drawn only on a terminal; the summary is printed either way',
  { skip: HAS_SCRIPT ? false : 'needs util-linux script for a pseudo-terminal' },
  async (t) => {
    const { source, target } = await sandboxes(t)
    const env = withCsvFolder(source, 50)
    assert.equal((await runCli(t, ['sync'], env, source.dir)).code, 0)
    const piped = join(source.dir, 'piped.backup.gz')
    const quiet = await runCli(t, ['backup', piped, '--portable'], env, source.dir)
    assert.equal(quiet.stderr, '')
    assert.match(quiet.stdout, /^backup written to .*\n(?: {2}\w+ +\d+\n)+event head: \d+\n$/)

    const file = join(source.dir, 'terminal.backup')
    const shown = await runCli(t, ['backup', file], env, source.dir, { terminal: true })
    assert.equal(shown.code, 0, shown.stdout)
    assert.match(
      shown.stdout,
      ENGINE === 'sqlite' ? /backup: \d+\/\d+ pages/ : /backup: \d+\/\d+ rows \(\w+\)/,
    )
    assert.match(shown.stdout, /event head: \d+/)
    const restored = await runCli(t, ['restore', file], target.env, target.dir, { terminal: true })
    assert.equal(restored.code, 0, restored.stdout)
    assert.match(restored.stdout, /restore: \d+\/\d+ rows \(\w+\)/)
  },
)

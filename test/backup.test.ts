// `coffer backup` and `coffer restore` (docs/operations.md "Backup and restore"),
// spawned as a user runs them, on the engine under test: a round trip keeps
// every table's rows and the event head, a database with data is never
// overwritten, and a backup taken while a large CSV sync runs restores to one
// consistent point of it.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { basename, join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { gunzipSync, gzipSync } from 'node:zlib'
import pg from 'pg'
import { generateDashboardToken } from '../src/auth/dashboard-token.js'
import { knownMigrationNames } from '../src/db/migrate.js'
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

/** Rows in the ledger's tables; 0 too when a refused restore never created them. */
async function ledgerRows(box: ProcessSandbox): Promise<number> {
  if (!box.schema && !existsSync(box.dbPath)) return 0
  try {
    const [row] = await query<{ n: number | string }>(
      box,
      `select (select count(*) from organizations) + (select count(*) from accounts)
        + (select count(*) from transactions) + (select count(*) from events) as n`,
    )
    return Number(row!.n)
  } catch (error) {
    if (/no such table|does not exist/.test(String(error))) return 0
    throw error
  }
}

/** `coffer restore <file>` into `target`: exit 1, exactly `message` on stderr, nothing restored. */
async function assertRefused(
  t: TestContext,
  target: ProcessSandbox,
  file: string,
  message: string,
) {
  const run = await runCli(t, ['restore', file], target.env, target.dir)
  assert.deepEqual(
    { code: run.code, stdout: run.stdout, stderr: run.stderr },
    { code: 1, stdout: '', stderr: `coffer restore: ${message}\n` },
  )
  assert.equal(await ledgerRows(target), 0)
}

/** A portable backup's lines, parsed: the header, then table markers, rows and the end line. */
type PortableLines = [
  { migrations: string[]; tables: Array<{ name: string; columns: string[]; rows: unknown }> },
  ...unknown[],
]

const isMarkerOf = (table: string) => (line: unknown) =>
  (line as { table?: string }).table === table

/** Writes `to`: the portable backup `from` with its parsed lines changed by `edit`. */
function rewritePortable(from: string, to: string, edit: (lines: PortableLines) => void): string {
  const text = gunzipSync(readFileSync(from)).toString('utf8').trimEnd()
  const lines = text.split('\n').map((line) => JSON.parse(line)) as PortableLines
  edit(lines)
  writeFileSync(to, gzipSync(`${lines.map((line) => JSON.stringify(line)).join('\n')}\n`))
  return to
}

/** Sets `column` of the first row of `table` in parsed lines; answers that row's id. */
function setFirstRow(lines: PortableLines, table: string, column: string, value: unknown) {
  const row = lines[lines.findIndex(isMarkerOf(table)) + 1] as unknown[]
  row[lines[0].tables.find((t) => t.name === table)!.columns.indexOf(column)] = value
  return row[0]
}

/** Writes a SQLite file `to` (a copy of `from` if given), runs `statement` on it, answers its rows. */
function sqliteFile(to: string, statement: string, from?: string): unknown[] {
  if (from) copyFileSync(from, to)
  const db = new SqliteDatabase(to)
  try {
    const prepared = db.prepare(statement)
    if (prepared.reader) return prepared.all()
    prepared.run()
    return []
  } finally {
    db.close()
  }
}

test('restore refuses a backup it cannot load as it is: says which file and what is wrong, runs nothing from it, leaves the target empty', async (t) => {
  // Both kinds of backup of a small SQLite ledger, altered; each group of cases is
  // restored into a fresh database of the engine under test, which every refusal leaves empty.
  const source = await processSandbox(t, 'backup-source')
  const sqliteSource = asSqlite(source)
  const env = withCsvFolder(sqliteSource, 20)
  assert.equal((await runCli(t, ['sync'], env, source.dir)).code, 0)
  const sqliteBackup = join(source.dir, 'coffer.backup')
  const portable = join(source.dir, 'coffer.backup.gz')
  summaryOf(await runCli(t, ['backup', sqliteBackup], env, source.dir))
  summaryOf(await runCli(t, ['backup', portable, '--portable'], env, source.dir))
  const latest = knownMigrationNames().at(-1)!
  const at = `Coffer's schema at ${latest}`
  const altered = (name: string) => join(source.dir, name)

  await t.test(
    'a header naming a column or table the schema has not (none of its SQL runs)',
    async (t) => {
      const target = await processSandbox(t, 'backup-target')
      const injection = `updated_at") select ?, ?||' injected '||sqlite_version(), ?, ?, ?, ? --`
      const injected = rewritePortable(portable, altered('injected.gz'), ([header]) => {
        const { columns } = header.tables.find((table) => table.name === 'organizations')!
        columns[columns.length - 1] = injection
      })
      const extra = rewritePortable(portable, altered('extra-table.gz'), ([header]) => {
        header.tables.push({ name: 'x', columns: ['a'], rows: 0 })
      })
      const missing = rewritePortable(portable, altered('missing-table.gz'), (lines) => {
        lines[0].tables = lines[0].tables.filter((table) => table.name !== 'rules')
        lines.splice(lines.findIndex(isMarkerOf('rules')), 1)
      })
      const cases: Array<[string, string]> = [
        [
          injected,
          `its table organizations has a column ${JSON.stringify(injection)}, which ${at} has not`,
        ],
        [extra, `it has a table "x", which ${at} has not`],
        [missing, `it has no table rules, which ${at} has`],
      ]
      for (const [file, problem] of cases)
        await assertRefused(t, target, file, `${file} is not a Coffer backup: ${problem}`)
    },
  )

  await t.test(
    'a backup of a newer Coffer, SQLite file or portable, with the same message',
    async (t) => {
      const target = await processSandbox(t, 'backup-target')
      const future = altered('future.backup')
      sqliteFile(future, `insert into coffer_migrations values ('0099-future', 'x')`, sqliteBackup)
      const futurePortable = rewritePortable(portable, altered('future.gz'), ([header]) => {
        header.migrations.push('0099-future')
      })
      for (const file of [future, futurePortable])
        await assertRefused(
          t,
          target,
          file,
          `the backup's schema (0099-future) is newer than this Coffer's (${latest}): restore it with a newer Coffer`,
        )
    },
  )

  await t.test(
    'a row the service could not use: a bad amount, date or balance, or a missing account',
    async (t) => {
      const target = await processSandbox(t, 'backup-target')
      const amount = 'amount is not a decimal amount such as -12.34 (at most 64 characters)'
      const date = 'date is not a UTC date and time as Coffer stores them (YYYY-MM-DDTHH:MM:SSZ)'
      const cases: Array<[string, string, string, unknown, string]> = [
        ['abc.gz', 'transactions', 'amount', 'abc', amount],
        ['huge.gz', 'transactions', 'amount', '1e400', amount],
        ['date.gz', 'transactions', 'date', 'yesterday', date],
        [
          'balance.gz',
          'accounts',
          'balance',
          'x',
          'balance is not a decimal amount such as -12.34',
        ],
      ]
      for (const [name, table, column, value, problem] of cases) {
        let id: unknown
        const file = rewritePortable(portable, altered(name), (lines) => {
          id = setFirstRow(lines, table, column, value)
        })
        await assertRefused(
          t,
          target,
          file,
          `${file} holds a row Coffer cannot use: ${table} ${String(id)}: ${problem}; nothing was restored`,
        )
      }
      const orphan = altered('orphan.backup')
      const [{ id }] = sqliteFile(
        orphan,
        `update transactions set account_id = 'acct_gone'
        where rowid = (select min(rowid) from transactions) returning id`,
        sqliteBackup,
      ) as [{ id: string }]
      await assertRefused(
        t,
        target,
        orphan,
        `${orphan} holds a row Coffer cannot use: transactions ${id}: its account is not in the backup; nothing was restored`,
      )
    },
  )

  await t.test(
    'a file that is not a Coffer backup, a header of the wrong shape, a SQLite copy cut short',
    async (t) => {
      const target = await processSandbox(t, 'backup-target')
      // An empty database, and another program's: SQLite files without Coffer's migrations.
      const empty = altered('empty.db')
      sqliteFile(empty, 'vacuum')
      const foreign = altered('foreign.db')
      sqliteFile(foreign, 'create table x (a)')
      for (const file of [empty, foreign])
        await assertRefused(
          t,
          target,
          file,
          `${file} is not a Coffer backup: it records no Coffer migrations`,
        )

      const headers: Array<[string, (lines: PortableLines) => void, string]> = [
        ['no-tables.gz', ([h]) => delete (h as Partial<typeof h>).tables, 'has no list of tables'],
        [
          'no-migrations.gz',
          ([h]) => delete (h as Partial<typeof h>).migrations,
          'has no list of migrations',
        ],
        [
          'rows-text.gz',
          ([h]) => (h.tables.find((table) => table.name === 'events')!.rows = '41'),
          'gives table "events" no count of rows',
        ],
      ]
      for (const [name, edit, problem] of headers) {
        const file = rewritePortable(portable, altered(name), edit)
        await assertRefused(
          t,
          target,
          file,
          `${file} is not a Coffer backup: its header ${problem}`,
        )
      }

      const cut = altered('cut.backup')
      writeFileSync(cut, readFileSync(sqliteBackup).subarray(0, 2 * 4096))
      await assertRefused(
        t,
        target,
        cut,
        `${cut} is damaged or cut short (SQLite: database disk image is malformed)`,
      )
    },
  )
})

test('backup and restore: a usage error exits 2; a leftover <file>.partial is named and kept', async (t) => {
  const { source } = await sandboxes(t)
  assert.equal((await runCli(t, ['migrate'], source.env, source.dir)).code, 0)
  const file = join(source.dir, 'coffer.backup')
  const backups = () => readdirSync(source.dir).filter((name) => name.includes('.backup'))
  const usages: Array<[string[], RegExp]> = [
    [
      ['backup', file, join(source.dir, 'second.backup')],
      /^coffer backup: one file only, not 2\n\nUsage: coffer backup <file>/,
    ],
    [['backup', file, '--bogus'], /^coffer backup: Unknown option '--bogus'/],
    [['restore', file, '--portable'], /^coffer restore: Unknown option '--portable'/],
  ]
  for (const [args, message] of usages) {
    const run = await runCli(t, args, source.env, source.dir)
    assert.equal(run.code, 2, run.stderr)
    assert.match(run.stderr, message)
    assert.deepEqual(backups(), [])
  }

  // A .partial left by an interrupted backup is another run's file: named, never reused or removed.
  const partial = `${file}.partial`
  writeFileSync(partial, 'garbage')
  const leftover = await runCli(t, ['backup', file], source.env, source.dir)
  assert.deepEqual(
    { code: leftover.code, stdout: leftover.stdout, stderr: leftover.stderr },
    {
      code: 1,
      stdout: '',
      stderr: `coffer backup: ${partial} already exists: another backup to ${file} is running or was interrupted; remove it if none is running\n`,
    },
  )
  assert.equal(readFileSync(partial, 'utf8'), 'garbage')
  assert.deepEqual(backups(), [basename(partial)])
})

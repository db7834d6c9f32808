// Benchmark (issue "Sync engine and the CSV source"): a generated CSV of 100,000
// rows imported through the real sync path (CSV source → engine → ledger.mutate
// with history and events), first import and an unchanged re-sync, against a raw
// bulk insert of the same rows with their event and history rows (hand-written
// SQL, prepared statements, transactions of the same size) in the same run.
// The syncs are real `coffer sync` processes (the built dist/cli.js, as a user
// runs it), so the time includes start-up and the peak RSS is the program's own.
// The search index is included: a first import counts until its rows are
// searchable (on SQLite, any documents left queued are built and timed too).
// COFFER_BENCH_CSV_ROWS sets the size; COFFER_BENCH_CSV_10X=1 adds a run 10× larger
// to show that memory stays flat; COFFER_BENCH_CSV_INTO_ROWS=<N> adds imports of
// COFFER_BENCH_CSV_ROWS new rows into a ledger that already holds N rows (new rows
// dated within the ledger's year, and dated after its rows);
// COFFER_BENCH_CPU_PROFILE=<dir> writes a CPU profile of each sync there.
// COFFER_BENCH_ENGINE=postgres runs the syncs on PostgreSQL (no raw baseline there).
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import SqliteDatabase from '../src/db/sqlite-binding.js'
import { ROW_HASH_ID } from '../src/search/row-hash-ids.js'
import { SQLITE_CACHE_KIB } from '../src/db/connect.js'
import { csvRowId } from '../src/sources/csv/row-id.js'
import { SYNC_UNIT_ROWS } from '../src/sync/merge-batch.js'
import { indexAllQueuedDocuments } from '../src/search/indexer.js'
import {
  benchEngine,
  databaseBytes,
  freshPostgres,
  freshSqlite,
  openExisting,
  perSecond,
  report,
  timed,
} from './support.js'

const ROWS = Number(process.env.COFFER_BENCH_CSV_ROWS ?? 100_000)
const INTO_ROWS = Number(process.env.COFFER_BENCH_CSV_INTO_ROWS ?? 0)

interface Row {
  date: string
  description: string
  payee: string
  amount: string
}

/** How a file's rows are dated: cycling through 2024, or one day per 300 rows from 2025 on. */
type Dating = 'cycling' | 'newer'

const DAY_MS = 86_400_000

function rowOf(i: number, dating: Dating = 'cycling'): Row {
  return {
    date:
      dating === 'newer'
        ? new Date(Date.UTC(2025, 0, 1) + Math.floor(i / 300) * DAY_MS).toISOString().slice(0, 10)
        : `2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
    description: `Card purchase ${i} at store`,
    payee: `Merchant ${i % 997}`,
    amount: `${i % 3 === 0 ? '' : '-'}${(i % 9973) + 1}.${String(i % 100).padStart(2, '0')}`,
  }
}

async function writeCsv(
  path: string,
  rows: number,
  from = 0,
  dating: Dating = 'cycling',
): Promise<void> {
  const out = createWriteStream(path)
  out.write('Date,Description,Payee,Amount\n')
  for (let i = from; i < from + rows; i++) {
    const r = rowOf(i, dating)
    if (!out.write(`${r.date},${r.description},${r.payee},${r.amount}\n`)) {
      await new Promise<void>((resolve) => out.once('drain', () => resolve()))
    }
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  )
}

interface SyncFigures {
  rows: number
  /** Until searchable: the sync, then building whatever it left queued. */
  firstMs: number
  /** Search documents the first import left queued. */
  queued: number
  resyncMs: number
  /** A second unchanged re-sync: the steady state, the first one's old row versions dead. */
  resyncAgainMs: number
  /** The larger of the two `coffer sync` processes' peak RSS. */
  peakRssMiB: number
  /** The database file and its WAL after the re-sync. */
  fileMiB: number
}

/** A SQLite database's size on disk, its WAL included. */
function fileMiB(path: string): number {
  const bytes = [path, `${path}-wal`].reduce(
    (sum, file) => sum + (existsSync(file) ? statSync(file).size : 0),
    0,
  )
  return Math.round(bytes / 1024 / 1024)
}

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url))
/** Loaded into each `coffer sync` process: prints its peak RSS as it exits. */
const RSS_HOOK = fileURLToPath(new URL('./lib/report-max-rss.mjs', import.meta.url))

/** One `coffer sync` process, as a user runs it: wall time, the counts it printed, peak RSS. */
function cofferSync(env: NodeJS.ProcessEnv, phase: string) {
  const profileDir = process.env.COFFER_BENCH_CPU_PROFILE
  const profile = profileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=csv-${phase}.cpuprofile`]
    : []
  const start = process.hrtime.bigint()
  const result = spawnSync(process.execPath, [...profile, '--import', RSS_HOOK, CLI, 'sync'], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 16 * 1024 * 1024,
  })
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  const output = `${result.stdout}\n${result.stderr}`
  if (result.status !== 0) throw new Error(`coffer sync failed:\n${output}`)
  const counts = /csv: (\d+) inserted, (\d+) updated, (\d+) unchanged/.exec(result.stdout)
  const rss = /COFFER_BENCH_MAX_RSS_KIB=(\d+)/.exec(result.stderr)
  if (!counts || !rss) throw new Error(`unexpected coffer sync output:\n${output}`)
  return {
    ms,
    inserted: Number(counts[1]),
    unchanged: Number(counts[3]),
    peakRssMiB: Math.round(Number(rss[1]) / 1024),
  }
}

/** Builds what a sync left queued for the search index (SQLite); its count and time. */
async function drainSearchQueue(
  dir: string,
  path: string,
): Promise<{ queued: number; ms: number }> {
  const db = await openExisting(dir, path)
  try {
    const { ms, value } = await timed(() => indexAllQueuedDocuments(db.ledger))
    return { queued: value, ms }
  } finally {
    await db.close()
  }
}

/**
 * Generates the file, then runs `coffer sync` twice: first import (until
 * searchable), unchanged re-sync. With `into` > 0, the ledger first holds that
 * many other rows (imported and indexed beforehand, untimed; their file then
 * leaves the folder, as a user archives last month's export, so that the timed
 * syncs read the new file alone). `dating` dates the new file's rows.
 */
async function syncTwice(rows: number, into = 0, dating: Dating = 'cycling'): Promise<SyncFigures> {
  // On PostgreSQL: a schema of its own (migrated by the bench's context, which
  // then stays idle), no search queue (pg_trgm indexes are the database's own).
  const pg = benchEngine() === 'postgres' ? await freshPostgres('csv') : null
  const dir = mkdtempSync(join(tmpdir(), 'coffer-bench-csv-'))
  const drained = (path: string) =>
    pg ? Promise.resolve({ queued: 0, ms: 0 }) : drainSearchQueue(dir, path)
  try {
    const folder = join(dir, 'folder')
    mkdirSync(folder)
    const env = {
      ...(pg
        ? { SERVICE_DATABASE_DRIVER: 'postgres', SERVICE_DATABASE_DSN: pg.dsn! }
        : { SERVICE_DATABASE_PATH: join(dir, 'coffer.db') }),
      SERVICE_DATA_DIR: join(dir, 'data'),
      SERVICE_LOG_LEVEL: 'error',
      SERVICE_SYNC_INTERVAL: '0',
      SERVICE_CSV_FOLDERS: JSON.stringify([{ name: 'Bench', account: 'Bench', path: folder }]),
    }
    if (into > 0) {
      await writeCsv(join(folder, 'earlier.csv'), into, rows)
      cofferSync(env, 'earlier')
      await drained(join(dir, 'coffer.db'))
      renameSync(join(folder, 'earlier.csv'), join(dir, 'earlier.csv'))
    }
    await writeCsv(join(folder, 'export.csv'), rows, 0, dating)
    const first = cofferSync(env, 'first')
    const drain = await drained(join(dir, 'coffer.db'))
    const resync = cofferSync(env, 'resync')
    const again = cofferSync(env, 'resync-again')
    if (first.inserted !== rows || resync.unchanged !== rows || again.unchanged !== rows) {
      throw new Error(
        `coffer sync imported ${first.inserted}/${resync.unchanged}/${again.unchanged} of ${rows}`,
      )
    }
    return {
      rows,
      firstMs: first.ms + drain.ms,
      queued: drain.queued,
      resyncMs: resync.ms,
      resyncAgainMs: again.ms,
      peakRssMiB: Math.max(first.peakRssMiB, resync.peakRssMiB, again.peakRssMiB),
      fileMiB: pg
        ? Math.round((await databaseBytes(pg, pg.ctx)) / 1024 / 1024)
        : fileMiB(join(dir, 'coffer.db')),
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
    await pg?.dispose()
  }
}

/** The same rows, their `imported` versions, `transaction.created` events and search documents, by hand. */
async function rawBulkInsert(rows: number): Promise<number> {
  const db = await freshSqlite('csv-raw')
  await db.ctx.close() // keep only the schema; write with a bare driver handle
  const sqlite = new SqliteDatabase(db.path)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma(`cache_size = -${SQLITE_CACHE_KIB}`) // as the service's connection
  try {
    const now = new Date().toISOString().slice(0, 19) + 'Z'
    sqlite
      .prepare(
        `insert into accounts (id, org_id, name, currency, balance, source, created_at, updated_at, synced_at) values ('csv:bench', 'csv:bench', 'Bench', 'USD', '0', 'csv', ?, ?, ?)`,
      )
      .run(now, now, now)
    // With its search document's number (migration 0015), as the service writes it.
    const insertTx = sqlite.prepare(
      `insert into transactions (id, account_id, amount, date, description, payee, memo, pending, source, created_at, updated_at, synced_at, search_n)
       values (?, 'csv:bench', ?, ?, ?, ?, null, 0, 'csv', ?, ?, ?, ?)`,
    )
    const insertVersion = sqlite.prepare(
      `insert into transaction_versions (transaction_id, version, kind, occurred_at, snapshot, diff) values (?, 1, 'imported', ?, ?, '{}')`,
    )
    const insertEvent = sqlite.prepare(
      `insert into events (event_id, type, entity_type, entity_id, occurred_at, data) values (?, 'transaction.created', 'transaction', ?, ?, ?)`,
    )
    // The rows' real ids (computed before the clock starts): random keys cost the
    // B-tree more than sequential ones would, so the baseline pays it too.
    const ids = Array.from({ length: rows }, (_, i) => {
      const r = rowOf(i)
      return csvRowId({
        account_id: 'csv:bench',
        date: `${r.date}T00:00:00Z`,
        amount: r.amount,
        description: r.description,
        payee: r.payee,
        memo: null,
      })
    })
    // The SQLite search documents (src/search/indexer.ts insertNewDocuments), row by row.
    // A row hash id stays out of the text document (src/search/row-hash-ids.ts).
    const insertText = sqlite.prepare(
      `insert into search_text (rowid, description, payee, memo, id) values (?, ?, ?, null, ?)`,
    )
    const documentId = (id: string) => (ROW_HASH_ID.test(id) ? null : id)
    const unit = sqlite.transaction((start: number, end: number) => {
      for (let i = start; i < end; i++) {
        const r = rowOf(i)
        const id = ids[i]!
        const date = `${r.date}T00:00:00Z`
        const snapshot = JSON.stringify({
          id,
          account_id: 'csv:bench',
          amount: r.amount,
          date,
          description: r.description,
          payee: r.payee,
          memo: null,
          pending: false,
          source: 'csv',
          labels: {},
          extensions: {},
          synced_at: now,
        })
        insertTx.run(id, r.amount, date, r.description, r.payee, now, now, now, i + 1)
        insertVersion.run(id, now, snapshot)
        insertEvent.run(randomUUID(), id, now, snapshot)
        insertText.run(i + 1, r.description, r.payee, documentId(id))
      }
    })
    const start = process.hrtime.bigint()
    for (let i = 0; i < rows; i += SYNC_UNIT_ROWS) unit(i, Math.min(rows, i + SYNC_UNIT_ROWS))
    return perSecond(rows, Number(process.hrtime.bigint() - start) / 1e6)
  } finally {
    sqlite.close()
    await db.dispose().catch(() => undefined)
  }
}

export async function benchCsvImport(): Promise<void> {
  if (benchEngine() === 'postgres') return benchCsvImportPostgres()
  const raw = await rawBulkInsert(ROWS)
  const sync = await syncTwice(ROWS)
  const first = perSecond(ROWS, sync.firstMs)
  const resync = perSecond(ROWS, sync.resyncMs)
  report(
    `csv import: ${ROWS} rows, first import through the sync path until searchable (SQLite)`,
    { label: 'sync: first import (parse + merge + history + events + search)', perSecond: first },
    { label: 'raw bulk insert (row + version + event + search document)', perSecond: raw },
    'within 2× of raw and ≥ 15,000 rows/s',
  )
  console.log(`  search documents left queued by the import: ${sync.queued}   target: 0`)
  console.log(`\n## csv re-sync: ${ROWS} unchanged rows (SQLite)`)
  console.log(
    `  sync: unchanged re-sync ${String(resync).padStart(30)} rows/s, again ${perSecond(ROWS, sync.resyncAgainMs)} rows/s   target: ≥ 50,000 rows/s`,
  )
  console.log(`  peak RSS of the sync process: ${sync.peakRssMiB} MiB   target: < 300 MiB`)
  console.log(`  database on disk after the re-syncs: ${sync.fileMiB} MiB`)
  if (INTO_ROWS > 0) {
    console.log(`\n## csv import into a ledger of ${INTO_ROWS} rows: ${ROWS} new rows (SQLite)`)
    // Dated across the ledger's year (every new row lands amid the date indexes:
    // the worst case), and dated after it (a bank's next export: the realistic one).
    for (const [dating, label] of [
      ['cycling', 'new rows dated within the ledger’s year'],
      ['newer', 'new rows dated after the ledger’s rows'],
    ] as const) {
      const into = await syncTwice(ROWS, INTO_ROWS, dating)
      const rate = perSecond(ROWS, into.firstMs)
      console.log(
        `  ${label}: first import until searchable ${rate} rows/s (${(rate / first).toFixed(2)}× the import into an empty ledger, ${(rate / raw).toFixed(2)}× raw)   target: ≥ 15,000 rows/s`,
      )
      console.log(
        `    search documents left queued: ${into.queued}; peak RSS ${into.peakRssMiB} MiB`,
      )
    }
  }
  if (process.env.COFFER_BENCH_CSV_10X === '1') {
    const big = await syncTwice(ROWS * 10)
    const rate = perSecond(big.rows, big.firstMs)
    console.log(`\n## csv import ×10: ${ROWS * 10} rows (SQLite)`)
    console.log(
      `  first import until searchable ${rate} rows/s (${(rate / first).toFixed(2)}× the ${ROWS}-row rate), re-sync ${perSecond(big.rows, big.resyncMs)} rows/s`,
    )
    console.log(
      `  peak RSS ${big.peakRssMiB} MiB (vs ${sync.peakRssMiB} MiB at ${ROWS} rows): should stay flat`,
    )
  }
}

/**
 * COFFER_BENCH_ENGINE=postgres: the same `coffer sync` runs on PostgreSQL. The
 * raw baseline is SQLite's own (bare prepared statements), so here the figures
 * stand beside the same import on SQLite, run in the same bench.
 */
async function benchCsvImportPostgres(): Promise<void> {
  const sync = await syncTwice(ROWS)
  const first = perSecond(ROWS, sync.firstMs)
  const resync = perSecond(ROWS, sync.resyncMs)
  console.log(`\n## csv import: ${ROWS} rows through the sync path (PostgreSQL)`)
  console.log(`  first import (searchable at once): ${first} rows/s   target: ≥ 15,000 rows/s`)
  console.log(
    `  unchanged re-sync: ${resync} rows/s, again ${perSecond(ROWS, sync.resyncAgainMs)} rows/s   target: ≥ 50,000 rows/s`,
  )
  console.log(`  peak RSS of the sync process: ${sync.peakRssMiB} MiB   target: < 300 MiB`)
  console.log(`  schema on disk after the re-syncs: ${sync.fileMiB} MiB`)
}

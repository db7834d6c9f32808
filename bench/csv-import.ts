// Benchmark (issue "Sync engine and the CSV source"): a generated CSV of 100,000
// rows imported through the real sync path (CSV source → engine → ledger.mutate
// with history and events), first import and an unchanged re-sync, against a raw
// bulk insert of the same rows with their event and history rows (hand-written
// SQL, prepared statements, transactions of the same size) in the same run.
// The sync runs in a child process so that its peak RSS is its own.
// COFFER_BENCH_CSV_ROWS sets the size; COFFER_BENCH_CSV_10X=1 adds a run 10× larger
// to show that memory stays flat.
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import SqliteDatabase from 'better-sqlite3'
import { openServiceContext } from '../src/app.js'
import { loadConfig } from '../src/config/index.js'
import { createLogger } from '../src/log.js'
import { csvRowId } from '../src/sources/csv/row-id.js'
import { syncServiceFor } from '../src/sync/index.js'
import { SYNC_UNIT_ROWS } from '../src/sync/merge-batch.js'
import { freshSqlite, perSecond, report } from './support.js'

const ROWS = Number(process.env.COFFER_BENCH_CSV_ROWS ?? 100_000)

interface Row {
  date: string
  description: string
  payee: string
  amount: string
}

function rowOf(i: number): Row {
  return {
    date: `2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
    description: `Card purchase ${i} at store`,
    payee: `Merchant ${i % 997}`,
    amount: `${i % 3 === 0 ? '' : '-'}${(i % 9973) + 1}.${String(i % 100).padStart(2, '0')}`,
  }
}

async function writeCsv(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path)
  out.write('Date,Description,Payee,Amount\n')
  for (let i = 0; i < rows; i++) {
    const r = rowOf(i)
    if (!out.write(`${r.date},${r.description},${r.payee},${r.amount}\n`)) {
      await new Promise<void>((resolve) => out.once('drain', () => resolve()))
    }
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  )
}

interface ChildResult {
  rows: number
  firstMs: number
  resyncMs: number
  inserted: number
  unchanged: number
  peakRssMiB: number
}

/** In the child: generate the file, sync twice through the real path, report. */
async function child(rows: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-bench-csv-'))
  try {
    const folder = join(dir, 'folder')
    mkdirSync(folder)
    await writeCsv(join(folder, 'export.csv'), rows)
    const { config } = loadConfig({
      file: null,
      env: {
        SERVICE_DATABASE_PATH: join(dir, 'coffer.db'),
        SERVICE_DATA_DIR: join(dir, 'data'),
        SERVICE_LOG_LEVEL: 'error',
        SERVICE_CSV_FOLDERS: JSON.stringify([{ name: 'Bench', account: 'Bench', path: folder }]),
      },
    })
    const quiet = new Writable({ write: (_c, _e, cb) => cb() })
    const ctx = await openServiceContext(config, {
      logger: createLogger({ level: 'error', format: 'json', destination: quiet }),
    })
    const { engine } = syncServiceFor(ctx)
    const sync = async () => {
      const start = process.hrtime.bigint()
      const run = await (await engine.trigger({ trigger: 'cli', source: null })).done
      if (run.status !== 'success') throw new Error(`bench sync failed: ${run.error}`)
      return { ms: Number(process.hrtime.bigint() - start) / 1e6, run }
    }
    const first = await sync()
    const resync = await sync()
    await engine.stop()
    await ctx.close()
    const result: ChildResult = {
      rows,
      firstMs: first.ms,
      resyncMs: resync.ms,
      inserted: first.run.counts.csv!.inserted,
      unchanged: resync.run.counts.csv!.unchanged,
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    }
    process.stdout.write(`${JSON.stringify(result)}\n`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function runChild(rows: number): ChildResult {
  const self = fileURLToPath(import.meta.url)
  const result = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', String(rows)], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  })
  if (result.status !== 0) throw new Error(`bench child failed:\n${result.stderr}`)
  const parsed = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as ChildResult
  if (parsed.inserted !== rows || parsed.unchanged !== rows) {
    throw new Error(`bench child imported ${parsed.inserted}/${parsed.unchanged} of ${rows}`)
  }
  return parsed
}

/** The same rows, their `imported` versions and `transaction.created` events, by hand. */
async function rawBulkInsert(rows: number): Promise<number> {
  const db = await freshSqlite('csv-raw')
  await db.ctx.close() // keep only the schema; write with a bare driver handle
  const sqlite = new SqliteDatabase(db.path)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  try {
    const now = new Date().toISOString().slice(0, 19) + 'Z'
    sqlite
      .prepare(
        `insert into accounts (id, org_id, name, currency, balance, source, created_at, updated_at, synced_at) values ('csv:bench', 'csv:bench', 'Bench', 'USD', '0', 'csv', ?, ?, ?)`,
      )
      .run(now, now, now)
    const insertTx = sqlite.prepare(
      `insert into transactions (id, account_id, amount, date, description, payee, memo, pending, source, created_at, updated_at, synced_at)
       values (?, 'csv:bench', ?, ?, ?, ?, null, 0, 'csv', ?, ?, ?)`,
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
        insertTx.run(id, r.amount, date, r.description, r.payee, now, now, now)
        insertVersion.run(id, now, snapshot)
        insertEvent.run(randomUUID(), id, now, snapshot)
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
  const raw = await rawBulkInsert(ROWS)
  const sync = runChild(ROWS)
  const first = perSecond(ROWS, sync.firstMs)
  const resync = perSecond(ROWS, sync.resyncMs)
  report(
    `csv import: ${ROWS} rows, first import through the sync path (SQLite)`,
    { label: 'sync: first import (parse + merge + history + events)', perSecond: first },
    { label: 'raw bulk insert (row + version + event)', perSecond: raw },
    'within 2× of raw and ≥ 10,000 rows/s',
  )
  console.log(`\n## csv re-sync: ${ROWS} unchanged rows (SQLite)`)
  console.log(
    `  sync: unchanged re-sync ${String(resync).padStart(30)} rows/s   target: ≥ 50,000 rows/s`,
  )
  console.log(`  peak RSS of the sync process: ${sync.peakRssMiB} MiB   target: < 300 MiB`)
  if (process.env.COFFER_BENCH_CSV_10X === '1') {
    const big = runChild(ROWS * 10)
    console.log(`\n## csv import ×10: ${ROWS * 10} rows (SQLite)`)
    console.log(
      `  first import ${perSecond(big.rows, big.firstMs)} rows/s, re-sync ${perSecond(big.rows, big.resyncMs)} rows/s`,
    )
    console.log(
      `  peak RSS ${big.peakRssMiB} MiB (vs ${sync.peakRssMiB} MiB at ${ROWS} rows): should stay flat`,
    )
  }
}

if (process.argv[2] === '--child') await child(Number(process.argv[3]))

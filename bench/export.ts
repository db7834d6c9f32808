// Benchmark (issue 14, item 5): `coffer export` in every format over a generated
// ledger of 100,000 transactions (COFFER_BENCH_EXPORT_ROWS, a comma-separated
// list: "100000,1000000" adds a million), each a real process (the built
// dist/cli.js) writing to /dev/null: rows/s and peak RSS, beside a plain SELECT
// of the same rows streamed to /dev/null by a process of its own in the same
// run (bench/lib/plain-select.mjs), and the ratio. Flat memory shows as a peak
// RSS that does not grow with the rows. COFFER_BENCH_ENGINE=postgres runs it on
// PostgreSQL.
import { spawnSync } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { EXPORT_FORMATS } from '../src/export/service.js'
import { generateLedgerIn } from './lib/generate-ledger.js'
import { benchEngine, freshDatabase, perSecond, timed, type BenchDb } from './support.js'

const ROW_COUNTS = (process.env.COFFER_BENCH_EXPORT_ROWS ?? '100000').split(',').map(Number)
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url))
const PLAIN_SELECT = fileURLToPath(new URL('./lib/plain-select.mjs', import.meta.url))
/** Loaded into each measured process: prints its peak RSS as it exits. */
const RSS_HOOK = fileURLToPath(new URL('./lib/report-max-rss.mjs', import.meta.url))

interface Measured {
  ms: number
  peakRssMiB: number
}

/** One process with stdout on /dev/null: wall time and peak RSS. */
function measure(args: string[], env: Record<string, string>): Measured {
  const devNull = openSync('/dev/null', 'w')
  try {
    const start = process.hrtime.bigint()
    const result = spawnSync(process.execPath, ['--import', RSS_HOOK, ...args], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
      stdio: ['ignore', devNull, 'pipe'],
    })
    const ms = Number(process.hrtime.bigint() - start) / 1e6
    const rss = /COFFER_BENCH_MAX_RSS_KIB=(\d+)/.exec(result.stderr)
    if (result.status !== 0 || !rss)
      throw new Error(`bench export: ${args.join(' ')} failed:\n${result.stderr}`)
    return { ms, peakRssMiB: Math.round(Number(rss[1]) / 1024) }
  } finally {
    closeSync(devNull)
  }
}

function databaseEnv(db: BenchDb): Record<string, string> {
  return {
    SERVICE_DATA_DIR: `${db.dir}/data`,
    SERVICE_LOG_LEVEL: 'error',
    SERVICE_SYNC_INTERVAL: '0',
    ...(db.dsn === null
      ? { SERVICE_DATABASE_PATH: db.path }
      : { SERVICE_DATABASE_DRIVER: 'postgres', SERVICE_DATABASE_DSN: db.dsn }),
  }
}

export async function benchExport(): Promise<void> {
  const engine = benchEngine()
  for (const rows of ROW_COUNTS) {
    const db = await freshDatabase(`export-${rows}`, engine)
    try {
      await db.ctx.close() // schema only; generate with a bare driver handle
      const generated = await timed(() => generateLedgerIn(db, { rows }))
      const env = databaseEnv(db)
      console.log(
        `\n## export (${rows.toLocaleString('en-US')} transactions${engine === 'postgres' ? ' on PostgreSQL' : ''}, generated in ${(generated.ms / 1000).toFixed(1)} s; processes writing to /dev/null)`,
      )
      const plain = measure([PLAIN_SELECT], env)
      const plainRate = perSecond(rows, plain.ms)
      const line = (label: string, m: Measured, ratio: string) =>
        console.log(
          `  ${label.padEnd(34)} ${perSecond(rows, m.ms).toLocaleString('en-US').padStart(9)} rows/s ${`${(m.ms / 1000).toFixed(1)} s`.padStart(8)} ${`${m.peakRssMiB} MiB`.padStart(9)} peak RSS${ratio}`,
        )
      line('plain SELECT (baseline, same run)', plain, '')
      for (const format of EXPORT_FORMATS) {
        const m = measure([CLI, 'export', '--format', format], env)
        line(
          `coffer export --format ${format}`,
          m,
          `   baseline/export ${(plainRate / perSecond(rows, m.ms)).toFixed(2)}×`,
        )
      }
    } finally {
      await db.dispose().catch(() => {})
    }
  }
}

// Shared pieces of the benchmarks: temp databases built by the real migrations,
// timing, and a uniform report line (figure, same-run baseline, ratio).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { openServiceContext } from '../src/app.js'
import { loadConfig } from '../src/config/index.js'
import type { ServiceContext } from '../src/context.js'
import { createLogger } from '../src/log.js'

export interface BenchDb {
  dir: string
  path: string
  ctx: ServiceContext
  dispose(): Promise<void>
}

/** A quiet service context over the SQLite file at `path` (data under `dir`). */
async function openQuietContext(dir: string, path: string): Promise<ServiceContext> {
  const { config } = loadConfig({
    file: null,
    env: {
      SERVICE_DATABASE_PATH: path,
      SERVICE_DATA_DIR: join(dir, 'data'),
      SERVICE_LOG_LEVEL: 'error',
    },
  })
  const quiet = new Writable({ write: (_c, _e, cb) => cb() })
  return openServiceContext(config, {
    logger: createLogger({ level: 'error', format: 'json', destination: quiet }),
  })
}

/** A fresh SQLite database with the real schema, and a service context over it. */
export async function freshSqlite(label: string): Promise<BenchDb> {
  const dir = mkdtempSync(join(tmpdir(), `coffer-bench-${label}-`))
  const path = join(dir, 'coffer.db')
  const ctx = await openQuietContext(dir, path)
  return {
    dir,
    path,
    ctx,
    async dispose() {
      await ctx.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A second service context on the same database, as another process would open it. */
export function openAnotherContext(db: BenchDb): Promise<ServiceContext> {
  return openQuietContext(db.dir, db.path)
}

export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint()
  const value = await work()
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value }
}

export function perSecond(count: number, ms: number): number {
  return Math.round((count / ms) * 1000)
}

export function report(
  name: string,
  figure: { label: string; perSecond: number },
  baseline: { label: string; perSecond: number },
  target?: string,
): void {
  const ratio = baseline.perSecond / figure.perSecond
  console.log(`\n## ${name}`)
  console.log(`  ${figure.label.padEnd(44)} ${String(figure.perSecond).padStart(9)} rows/s`)
  console.log(
    `  ${baseline.label.padEnd(44)} ${String(baseline.perSecond).padStart(9)} rows/s  (baseline, same run)`,
  )
  console.log(`  baseline / figure = ${ratio.toFixed(2)}×${target ? `   target: ${target}` : ''}`)
}

/** A quiet service context over an existing SQLite file (as another process would open it). */
export function openExisting(dir: string, path: string): Promise<ServiceContext> {
  return openQuietContext(dir, path)
}

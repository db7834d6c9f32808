// Shared pieces of the benchmarks: temp databases built by the real migrations
// (a SQLite file or a PostgreSQL schema), timing, and a uniform report line
// (figure, same-run baseline, ratio).
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Writable } from 'node:stream'
import pg from 'pg'
import { openServiceContext } from '../src/app.js'
import { loadConfig } from '../src/config/index.js'
import { sql } from 'kysely'
import type { ServiceContext } from '../src/context.js'
import {
  filteredTransactions,
  inKeysetOrder,
  type TransactionFilter,
} from '../src/ledger/transaction-query.js'
import { encodeCursor, type SortOrder } from '../src/page.js'
import { createLogger } from '../src/log.js'

export type BenchEngine = 'sqlite' | 'postgres'

/** COFFER_BENCH_ENGINE: the engine of the benches that run on both (default sqlite). */
export function benchEngine(): BenchEngine {
  const engine = process.env.COFFER_BENCH_ENGINE || 'sqlite'
  if (engine !== 'sqlite' && engine !== 'postgres')
    throw new Error(`bench: COFFER_BENCH_ENGINE: expected sqlite or postgres, got "${engine}"`)
  return engine
}

const POSTGRES_DSN = process.env.COFFER_BENCH_POSTGRES_DSN || 'postgres://root@127.0.0.1:5432/test'

export interface BenchDb {
  engine: BenchEngine
  dir: string
  /** The SQLite file (SQLite only). */
  path: string
  /** The DSN with search_path pinned to the bench's own schema (PostgreSQL only). */
  dsn: string | null
  ctx: ServiceContext
  dispose(): Promise<void>
}

/** The SERVICE_* variables that select a bench database. */
function databaseEnv(db: Pick<BenchDb, 'path' | 'dsn'>): Record<string, string> {
  return db.dsn === null
    ? { SERVICE_DATABASE_PATH: db.path }
    : { SERVICE_DATABASE_DRIVER: 'postgres', SERVICE_DATABASE_DSN: db.dsn }
}

/** A quiet service context over the database that `database` selects (data under `dir`). */
async function openQuietContext(
  dir: string,
  database: Record<string, string>,
): Promise<ServiceContext> {
  const { config } = loadConfig({
    file: null,
    env: {
      ...database,
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
  const ctx = await openQuietContext(dir, { SERVICE_DATABASE_PATH: path })
  return {
    engine: 'sqlite',
    dir,
    path,
    dsn: null,
    ctx,
    async dispose() {
      await ctx.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** One statement on the bench server, outside any bench schema. */
async function onPostgresServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_DSN })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/**
 * A fresh schema with the real schema in it, on the PostgreSQL server at
 * COFFER_BENCH_POSTGRES_DSN, and a service context over it; dispose drops it.
 * As in the tests (test/helpers/app.ts), the schema is selected by the DSN's
 * search_path.
 */
export async function freshPostgres(label: string): Promise<BenchDb> {
  // pg_trgm once, in public: installed by the migration into the bench's own
  // schema, it would go when the schema is dropped (scripts/run-tests.mjs).
  await onPostgresServer('create extension if not exists pg_trgm with schema public').catch(
    (error: Error) =>
      console.error(`pg_trgm is not available (${error.message}); search runs unindexed`),
  )
  const schema = `bench_${label.replace(/\W/g, '_')}_${Date.now().toString(36)}`
  await onPostgresServer(`create schema ${schema}`)
  const dir = mkdtempSync(join(tmpdir(), `coffer-bench-${label}-`))
  const url = new URL(POSTGRES_DSN)
  url.searchParams.set('options', `-c search_path=${schema}`)
  const dsn = url.toString()
  const dispose = async () => {
    await onPostgresServer(`drop schema if exists ${schema} cascade`)
    rmSync(dir, { recursive: true, force: true })
  }
  let ctx: ServiceContext
  try {
    ctx = await openQuietContext(dir, databaseEnv({ path: '', dsn }))
  } catch (error) {
    await dispose()
    throw error
  }
  return {
    engine: 'postgres',
    dir,
    path: '',
    dsn,
    ctx,
    async dispose() {
      await ctx.close()
      await dispose()
    },
  }
}

/** A fresh database on `engine`: freshSqlite or freshPostgres. */
export function freshDatabase(label: string, engine: BenchEngine): Promise<BenchDb> {
  return engine === 'postgres' ? freshPostgres(label) : freshSqlite(label)
}

/** A second service context on the same database, as another process would open it. */
export function openAnotherContext(db: BenchDb): Promise<ServiceContext> {
  return openQuietContext(db.dir, databaseEnv(db))
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
  return openQuietContext(dir, { SERVICE_DATABASE_PATH: path })
}

/** The cursor a client holds after paging to the row just before `position` (in `order`). */
export async function cursorAt(
  ctx: ServiceContext,
  filter: TransactionFilter,
  scope: unknown,
  position: number,
  order: SortOrder = 'desc',
): Promise<string> {
  const key = await inKeysetOrder(filteredTransactions(ctx.db.kysely, filter), order)
    .select(['date', 'id'])
    .limit(1)
    .offset(position - 1)
    .executeTakeFirstOrThrow()
  return encodeCursor(scope, key, order)
}

/** What the database takes on disk: the SQLite file and its WAL, or the bench schema's tables and indexes. */
export async function databaseBytes(db: BenchDb, ctx: ServiceContext): Promise<number> {
  if (db.engine === 'sqlite') {
    const wal = `${db.path}-wal`
    return statSync(db.path).size + (existsSync(wal) ? statSync(wal).size : 0)
  }
  const row = await sql<{ bytes: string }>`
    select sum(pg_total_relation_size(c.oid))::text as bytes from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'm')`.execute(ctx.db.kysely)
  return Number(row.rows[0]?.bytes ?? 0)
}

export function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MiB`
}

/** The built program (npm run bench builds it first). */
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url))

export interface Served {
  url: string
  child: ChildProcess
  stop(): Promise<void>
}

/**
 * `coffer serve` (the built program) on the ledger at `path`, with extra SERVICE_*
 * variables in `env`; resolves once it logs "listening on".
 */
export function serveBuilt(
  dir: string,
  path: string,
  extraEnv: Record<string, string> = {},
): Promise<Served> {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SERVICE_')) env[name] = value
  }
  Object.assign(env, {
    SERVICE_DATABASE_PATH: path,
    SERVICE_DATA_DIR: join(dir, 'data'),
    SERVICE_SERVER_ADDR: '127.0.0.1:0',
    SERVICE_SYNC_INTERVAL: '0',
    SERVICE_LOG_FORMAT: 'json',
    SERVICE_LOG_ACCESS: 'false',
    ...extraEnv,
  })
  const child = spawn(process.execPath, [CLI, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return new Promise((resolve, reject) => {
    let output = ''
    const heard = (chunk: Buffer) => {
      output += chunk.toString('utf8')
      const found = /listening on (http:\/\/[^\s"]+)/.exec(output)
      if (!found) return
      child.stdout.off('data', heard)
      child.stdout.resume()
      resolve({
        url: found[1]!,
        child,
        async stop() {
          child.kill('SIGTERM')
          await exited
        },
      })
    }
    child.stdout.on('data', heard)
    child.stderr.resume()
    child.once('exit', (code) =>
      reject(new Error(`coffer serve exited (${code}): ${output.slice(-2000)}`)),
    )
  })
}

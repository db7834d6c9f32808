// Opens the database named by the configuration: SQLite (better-sqlite3, WAL) by
// default, PostgreSQL (pg) when database.driver = "postgres". Everything above
// this file speaks Kysely and never asks which engine it is on, except through
// `dialect` for the few statements that differ.
import { chmodSync, existsSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDatabase as SqliteDialectDatabase,
} from 'kysely'
import pg from 'pg'
import type { Logger } from 'pino'
import { compareDecimal, DecimalSum, formatScaled } from '../decimal.js'
import { BackgroundCheckpointer } from './checkpointer.js'
import { isSqliteLockHeld } from './faults.js'
import type { Database } from './schema.js'
import SqliteDatabase, { type SqliteConnection, type SqliteStatement } from './sqlite-binding.js'

export type DialectName = 'sqlite' | 'postgres'

export interface DatabaseOptions {
  driver: DialectName
  path: string
  dsn: string | null
}

export interface Db {
  kysely: Kysely<Database>
  dialect: DialectName
  /** Answers true when a trivial query succeeds (readiness). */
  ping(): Promise<boolean>
  close(): Promise<void>
}

// int8 (sequences, counts) comes back as text by default; our values fit a double.
pg.types.setTypeParser(20, (text) => Number.parseInt(text, 10))

/**
 * The SQLite file that other connections (worker threads) may open beside the
 * service's own: null on PostgreSQL, and for ':memory:' and SQLite URIs (which
 * may name one), which cannot be opened twice.
 */
export function sharedSqliteFile(options: DatabaseOptions): string | null {
  if (options.driver !== 'sqlite') return null
  return options.path === ':memory:' || options.path.startsWith('file:') ? null : options.path
}

/** `log` hears of connections lost to the server (PostgreSQL). */
export function openDatabase(options: DatabaseOptions, log?: Logger): Db {
  return options.driver === 'postgres' ? openPostgres(options, log) : openSqlite(options, log)
}

/** The checkpoint thread of each SQLite file handle that can have one (bulk.ts uses it). */
const checkpointers = new WeakMap<Kysely<Database>, BackgroundCheckpointer>()

/** The background checkpointer of `db`: null on PostgreSQL and for an in-memory SQLite. */
export function checkpointerOf(db: Kysely<Database>): BackgroundCheckpointer | null {
  return checkpointers.get(db) ?? null
}

/** The page cache per connection, in KiB. */
export const SQLITE_CACHE_KIB = 32 * 1024

/**
 * WAL pages after which the writer checkpoints by itself (SQLite's default is
 * 1,000). The checkpoint thread copies the WAL after every commit; the writer's
 * own checkpoint, which syncs the WAL and the database file inside a COMMIT, is
 * the fallback for when the thread falls behind. At SQLite's default a manual
 * write spent about a fifth of its time waiting on those syncs
 * (docs/performance.md, "Checkpoints off the writer").
 */
export const SQLITE_WAL_AUTOCHECKPOINT_PAGES = 8_000

function openSqlite(options: DatabaseOptions, log?: Logger): Db {
  // The file holds webhook secrets and everyone's money data: it and its -wal
  // and -shm are created 0600 (SQLite gives those the database file's mode), a
  // directory made for it 0700. The umask covers the creation; the chmod also
  // tightens a file an older version created 0644.
  const file = sharedSqliteFile(options) !== null
  const umask = file ? process.umask(0o077) : null
  let sqlite: SqliteConnection
  try {
    if (file) mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 })
    sqlite = new SqliteDatabase(options.path)
    // WAL lets readers run beside the writer; synchronous=NORMAL in WAL mode loses
    // nothing when the process dies (only on power loss), which is our promise.
    sqlite.pragma('journal_mode = WAL')
  } catch (error) {
    // SQLite's own words ("file is not a database") do not say which file.
    const reason = error instanceof Error ? error.message : String(error)
    throw new Error(`database.path ${JSON.stringify(options.path)}: ${reason}`, { cause: error })
  } finally {
    if (umask !== null) process.umask(umask)
  }
  if (file) {
    for (const path of [options.path, `${options.path}-wal`, `${options.path}-shm`]) {
      if (existsSync(path)) chmodSync(path, 0o600)
    }
  }
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('foreign_keys = ON')
  prepareSqliteConnection(sqlite)
  // The writer waits for another process's lock between short tries (below).
  sqlite.pragma(`busy_timeout = ${WRITE_LOCK_TRY_MS}`)
  const checkpointer = file ? new BackgroundCheckpointer(options.path, log) : null
  if (checkpointer) sqlite.pragma(`wal_autocheckpoint = ${SQLITE_WAL_AUTOCHECKPOINT_PAGES}`)
  const kysely = new Kysely<Database>({
    dialect: new WriterSqliteDialect({ database: withStatementCache(sqlite) }, checkpointer),
  })
  if (checkpointer) checkpointers.set(kysely, checkpointer)
  return {
    kysely,
    dialect: 'sqlite',
    ping: () => pingWith(kysely),
    close: () => kysely.destroy(),
  }
}

/**
 * What every SQLite connection of the service needs, the writer's and any
 * reader's: the lock wait, the page cache and Coffer's SQL functions.
 */
export function prepareSqliteConnection(sqlite: SqliteConnection): void {
  sqlite.pragma('busy_timeout = 5000')
  // better-sqlite3 builds SQLite with a 16 MB page cache; past a few hundred
  // thousand rows the indexes of random keys (csv:<hash>) miss it on most inserts.
  // Twice that made a 100k-row import ~20% faster for ~20 MiB more memory.
  sqlite.pragma(`cache_size = -${SQLITE_CACHE_KIB}`)
  // SQLite has no exact decimal type: search compares amounts with the very
  // function the matcher uses (src/decimal.ts), where a double cannot decide.
  sqlite.function(COMPARE_DECIMAL_SQL, { deterministic: true }, (a: unknown, b: unknown) =>
    compareDecimal(String(a), String(b)),
  )
  // …and sums amounts exactly (the summary, src/search/summary.ts): one pass over
  // the rows into a JS map of groups, about half the cost of a GROUP BY's sort.
  sqlite.aggregate<GroupSums>(GROUP_SUMS_SQL, {
    start: (): GroupSums => new Map(),
    // better-sqlite3 reads the SQL function's arity from step's parameters: keep all four.
    step: groupSumsStep as unknown as (groups: GroupSums) => GroupSums,
    result: (groups) => {
      const rows: GroupSumRow[] = []
      for (const [key, byValue] of groups) {
        for (const [value, sum] of byValue) {
          rows.push([key, value, sum.count, formatScaled(sum.inflow), formatScaled(sum.outflow)])
        }
      }
      return JSON.stringify(rows)
    },
  })
}

/** Groups by key, then by value (null apart from any text). */
type GroupSums = Map<GroupKey, Map<GroupKey, DecimalSum>>
type GroupKey = string | number | null

// Called once per row: two map probes and a DecimalSum.add, nothing allocated
// for a group already seen.
function groupSumsStep(
  groups: GroupSums,
  key: GroupKey,
  value: GroupKey,
  amount: unknown,
): GroupSums {
  let byValue = groups.get(key)
  if (!byValue) groups.set(key, (byValue = new Map<GroupKey, DecimalSum>()))
  let sum = byValue.get(value)
  if (!sum) byValue.set(value, (sum = new DecimalSum()))
  sum.add(typeof amount === 'string' ? amount : String(amount))
  return groups
}

/**
 * One group of coffer_group_sums: its key and value, the number of rows, the
 * sum of the positive amounts and of the negative ones (canonical decimal text).
 */
export type GroupSumRow = [GroupKey, GroupKey, number, string, string]

/**
 * SQLite: the aggregate coffer_group_sums(key, value, amount) is a JSON array
 * of GroupSumRow, one per distinct (key, value), summing the decimal text
 * `amount` exactly (SQLite has no decimal type; REAL would round). Rows whose
 * amount is not decimal text fail the statement (RangeError).
 */
export const GROUP_SUMS_SQL = 'coffer_group_sums'

/**
 * A read-only connection to the SQLite file at `path`, for a search worker
 * (src/search/pool/): WAL lets it read beside the writer, in another thread or
 * process. Its transactions are plain (deferred) BEGINs: each is one read
 * snapshot and never asks for the write lock.
 */
export function openSqliteReader(path: string): Kysely<Database> {
  const sqlite = new SqliteDatabase(path, { readonly: true, fileMustExist: true })
  prepareSqliteConnection(sqlite)
  return new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
  })
}

/** SQLite: coffer_compare_decimal(a, b) is -1, 0 or 1 as the decimal text a is below, at or above b. */
export const COMPARE_DECIMAL_SQL = 'coffer_compare_decimal'

// Several processes may write one SQLite file (`coffer serve` beside a `coffer
// sync` from cron). A deferred BEGIN reads first and asks for the write lock at
// its first write; if another process committed in between, SQLite answers
// SQLITE_BUSY_SNAPSHOT at once, which busy_timeout cannot wait out. Every
// transaction here is a unit of work that writes, so it takes the write lock up
// front (BEGIN IMMEDIATE) and waits its turn behind the other process instead.
//
// better-sqlite3 waits out busy_timeout synchronously: a file locked by another
// process for seconds would hold the event loop (every request, the health
// check) for up to busy_timeout at each write, one after the other. So the
// writer's busy_timeout is short, and a statement refused as busy is tried
// again after an asynchronous pause, until the lock has been out of reach for
// WRITE_LOCK_WAIT_MS; past that it fails as busy (answered 503, db/faults.ts),
// and so do the statements queued behind it (one short try each) until one
// gets through. A refused statement did nothing, so trying it again is safe.
class WriterSqliteDriver extends SqliteDriver {
  private patient: DatabaseConnection | null = null

  constructor(
    config: ConstructorParameters<typeof SqliteDriver>[0],
    private readonly checkpointer: BackgroundCheckpointer | null,
  ) {
    super(config)
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection()
    this.patient ??= patientConnection(connection)
    return this.patient
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await super.commitTransaction(connection)
    this.checkpointer?.afterCommit()
  }

  override async destroy(): Promise<void> {
    // Its connection goes first: the writer's close is the file's last, which checkpoints.
    await this.checkpointer?.close()
    await super.destroy()
  }
}

/** How long a write waits for another process's lock, in all. */
export const WRITE_LOCK_WAIT_MS = 5_000
/** How long one try blocks: a lock released within it is taken without a pause. */
const WRITE_LOCK_TRY_MS = 10
const WRITE_LOCK_MAX_PAUSE_MS = 50

function patientConnection(connection: DatabaseConnection): DatabaseConnection {
  /** When the lock was first refused, since the last statement that got through. */
  let busySince: number | null = null
  return {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      for (let pause = 2; ; pause = Math.min(pause * 2, WRITE_LOCK_MAX_PAUSE_MS)) {
        try {
          const result = await connection.executeQuery<R>(query)
          busySince = null
          return result
        } catch (error) {
          if (!isSqliteLockHeld(error)) throw error
          busySince ??= Date.now()
          if (Date.now() + pause > busySince + WRITE_LOCK_WAIT_MS) throw error
          await new Promise((resolve) => setTimeout(resolve, pause))
        }
      }
    },
    streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
  }
}

class WriterSqliteDialect extends SqliteDialect {
  constructor(
    private readonly writerConfig: ConstructorParameters<typeof SqliteDialect>[0],
    private readonly checkpointer: BackgroundCheckpointer | null,
  ) {
    super(writerConfig)
  }

  override createDriver(): Driver {
    return new WriterSqliteDriver(this.writerConfig, this.checkpointer)
  }
}

function openPostgres(options: DatabaseOptions, log?: Logger): Db {
  if (!options.dsn) throw new Error('database.dsn is required when database.driver = "postgres"')
  const pool = new pg.Pool({ connectionString: options.dsn, max: 10 })
  // A connection that loses its server (a restart ends every session) emits an
  // 'error'; unheard, it would end the process. pg-pool hears it only on idle
  // connections, so each connection gets a listener for its whole life, also
  // while checked out (a query in flight, the sync lock's session). The query
  // fails (answered 503, db/faults.ts) and the pool drops the dead connection.
  const lost = (error: Error) =>
    log?.warn({ err: error }, 'db: lost a connection to PostgreSQL; the next query opens another')
  pool.on('connect', (client) => {
    client.on('error', lost)
    // JIT compiling pays off for long analytic queries; a search over a large
    // ledger is costed like one and spent more time compiling (~0.4 s) than
    // running. Queued first on the new connection, before any query of ours.
    client.query('set jit = off').catch(() => undefined)
  })
  // The pool re-emits an idle connection's error; the listener above logged it.
  pool.on('error', () => undefined)
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  return {
    kysely,
    dialect: 'postgres',
    ping: () => pingWith(kysely),
    close: () => kysely.destroy(),
  }
}

/**
 * Prepared statements kept (least recently used goes first). Short ones count
 * too: preparing a write compiles its triggers (the search index's), which costs
 * more than running it. The few bulk texts can hold a megabyte each.
 */
const STATEMENT_CACHE_SIZE = 64

// Kysely prepares every query anew; the bulk statements of a sync (1000-row
// inserts, 1000-id lookups, the same text chunk after chunk) cost about as much
// to prepare as to run, so the one connection keeps those, keyed by their text.
function withStatementCache(sqlite: SqliteConnection): SqliteDialectDatabase {
  const cache = new Map<string, SqliteStatement>()
  return {
    close() {
      cache.clear()
      sqlite.close()
    },
    prepare(text) {
      const cached = cache.get(text)
      if (cached) {
        // A statement still being iterated (a streamed select) cannot run twice.
        if (cached.busy) return sqlite.prepare(text)
        cache.delete(text)
        cache.set(text, cached)
        return cached
      }
      const statement = sqlite.prepare(text)
      cache.set(text, statement)
      if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!)
      return statement
    },
  }
}

async function pingWith(kysely: Kysely<Database>): Promise<boolean> {
  try {
    await sql`select 1`.execute(kysely)
    return true
  } catch {
    return false
  }
}

// Secondary indexes dropped for a bulk load and built again at its end. Entering
// a million rows one by one into an index whose keys arrive in random order
// (dates, amounts, entity ids) touches a random page per row, where building it
// afterwards sorts the keys once: at a million rows that difference is most of
// what a first import costs (docs/performance.md, "A first import builds its
// indexes at the end").
//
// The definition of each dropped index is read from the engine's catalogue and
// kept in `deferred_indexes`, written in the same transaction as the drop, so
// that an import that dies part-way leaves the list of what to build; building
// runs whatever the list holds, at the load's end or at the next start. Queries
// give the same answers without the indexes, only slower while they are gone.
import type { Worker } from 'node:worker_threads'
import { sql } from 'kysely'
import type { Logger } from 'pino'
import type { Db } from './connect.js'
import { dialectOf, type DbExecutor } from './schema.js'
import type { IndexBuildRequest, IndexBuildResult, IndexBuildSetup } from './index-build-worker.js'
import { besideModule, startModuleWorker } from '../worker-module.js'

interface IndexDefinition {
  /** The engine's own `create index` statement. */
  definition: string
  table: string
}

/** How an index of the current schema is made, or null when there is none. */
async function indexDefinition(db: DbExecutor, name: string): Promise<IndexDefinition | null> {
  if (dialectOf(db) === 'postgres') {
    const { rows } = await sql<IndexDefinition>`
      select indexdef as definition, tablename as table from pg_indexes
      where schemaname = current_schema() and indexname = ${name}
    `.execute(db)
    return rows[0] ?? null
  }
  const { rows } = await sql<{ definition: string | null; table: string }>`
    select sql as definition, tbl_name as "table" from sqlite_master where type = 'index' and name = ${name}
  `.execute(db)
  const row = rows[0]
  // An index SQLite made for a constraint has no statement: it cannot be dropped.
  return row?.definition ? { definition: row.definition, table: row.table } : null
}

/**
 * Drops each index that `choose` names and that exists, in one transaction
 * that records every definition; `choose` decides in that transaction (say,
 * "none unless the ledger is empty"). Answers the names dropped.
 */
export async function deferIndexes(
  db: Db,
  now: string,
  choose: (trx: DbExecutor) => Promise<readonly string[]>,
): Promise<string[]> {
  return db.kysely.transaction().execute(async (trx) => {
    const dropped: string[] = []
    for (const name of await choose(trx)) {
      const index = await indexDefinition(trx, name)
      if (index === null) continue
      await trx
        .insertInto('deferred_indexes')
        .values({ name, definition: index.definition, table_name: index.table, deferred_at: now })
        .onConflict((c) => c.column('name').doNothing())
        .execute()
      await sql`drop index ${sql.id(name)}`.execute(trx)
      dropped.push(name)
    }
    return dropped
  })
}

/**
 * Builds every index `deferred_indexes` lists, one transaction each (the index
 * and the removal of its row commit together); answers how many were built.
 * `beforeEach` may throw to stop between two (a closing service): what is left
 * stays listed for the next call. Given the SQLite file (`sqliteFile`), each is
 * built on a connection of its own in a worker thread, off the event loop.
 */
export async function buildDeferredIndexes(
  db: Db,
  log: Logger,
  { beforeEach = () => undefined, sqliteFile = null }: BuildOptions = {},
): Promise<number> {
  const listed = await db.kysely
    .selectFrom('deferred_indexes')
    .select(['name', 'table_name'])
    .orderBy('name')
    .execute()
  let built = 0
  // Started for the first index built off the event loop, and kept for the rest.
  let thread: IndexBuildThread | null = null
  try {
    for (const { name, table_name } of listed) {
      beforeEach()
      const started = performance.now()
      const offThread =
        sqliteFile !== null && (await sqliteRowsAbout(db, table_name)) >= OFF_THREAD_FROM_ROWS
      const done = offThread
        ? await (thread ??= new IndexBuildThread({ path: sqliteFile })).build(name)
        : await buildOnConnection(db, name)
      if (!done) continue
      built++
      log.debug(
        { index: name, ms: Math.round(performance.now() - started), off_thread: offThread },
        'db: built a deferred index',
      )
    }
  } finally {
    await thread?.close()
  }
  return built
}

export interface BuildOptions {
  /** Called before each index; throws to stop (a closing service). */
  beforeEach?: () => void
  /** The SQLite file, when a worker thread may open it (connect.ts sharedSqliteFile). */
  sqliteFile?: string | null
}

/**
 * Rows from which an index is built in a worker thread (SQLite): below, it
 * builds in milliseconds, less than a thread takes to start.
 */
const OFF_THREAD_FROM_ROWS = 5_000

/** About how many rows a SQLite table holds (its largest rowid: one index probe), 0 on PostgreSQL. */
async function sqliteRowsAbout(db: Db, table: string): Promise<number> {
  if (db.dialect !== 'sqlite') return 0
  const { rows } = await sql<{
    n: number | null
  }>`select max(rowid) as n from ${sql.table(table)}`.execute(db.kysely)
  return rows[0]?.n ?? 0
}

/** One listed index, on the service's connection; answers whether it was still listed. */
async function buildOnConnection(db: Db, name: string): Promise<boolean> {
  return db.kysely.transaction().execute(async (trx) => {
    // Read again under the write lock: another process may have built it meanwhile.
    const row = await trx
      .selectFrom('deferred_indexes')
      .select('definition')
      .where('name', '=', name)
      .executeTakeFirst()
    if (!row) return false
    // PostgreSQL sorts (and fills a trigram index) in maintenance_work_mem, 64 MB by
    // default: a million rows' keys then spill to disk. For this statement only.
    if (dialectOf(trx) === 'postgres')
      await sql`set local maintenance_work_mem = '256MB'`.execute(trx)
    if ((await indexDefinition(trx, name)) === null) await sql.raw(row.definition).execute(trx)
    await trx.deleteFrom('deferred_indexes').where('name', '=', name).execute()
    return true
  })
}

const WORKER_URL = besideModule(import.meta.url, 'index-build-worker')

/**
 * A worker thread (index-build-worker.ts) that builds listed indexes one at a
 * time on its own connection, opened once for the whole build.
 */
class IndexBuildThread {
  private readonly worker: Worker
  private waiting: {
    doing: string
    resolve: (built: boolean) => void
    reject: (error: Error) => void
  } | null = null
  /** Why the thread can build no more (it failed or stopped). */
  private broken: Error | null = null

  constructor(setup: IndexBuildSetup) {
    this.worker = startModuleWorker(WORKER_URL, { workerData: setup })
    this.worker.on('message', (result: IndexBuildResult) => {
      const waiting = this.waiting
      this.waiting = null
      if (!waiting) return
      if ('error' in result) waiting.reject(new Error(`${waiting.doing}: ${result.error}`))
      else waiting.resolve(result.built)
    })
    this.worker.on('error', (error) => this.stop(error))
    this.worker.on('exit', () => this.stop(new Error('the index build thread stopped')))
  }

  /** Builds `name` if it is still listed; answers whether it was. */
  build(name: string): Promise<boolean> {
    return this.ask(name, `building index ${name}`)
  }

  /**
   * Closes the thread's connection; the thread then ends on its own (its
   * teardown is nobody's wait: a busy event loop heard of its exit seconds late).
   */
  async close(): Promise<void> {
    if (this.broken) return
    await this.ask(null, 'closing the index build thread')
    this.worker.unref()
  }

  /** Posts one request and waits for its answer; `doing` names it in errors. */
  private ask(request: IndexBuildRequest, doing: string): Promise<boolean> {
    if (this.broken) return Promise.reject(this.broken)
    return new Promise((resolve, reject) => {
      this.waiting = { doing, resolve, reject }
      this.worker.postMessage(request)
    })
  }

  private stop(error: Error): void {
    this.broken ??= error
    const waiting = this.waiting
    this.waiting = null
    waiting?.reject(new Error(`${waiting.doing}: ${error.message}`))
  }
}

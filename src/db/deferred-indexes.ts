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
import { sql } from 'kysely'
import type { Logger } from 'pino'
import type { Db } from './connect.js'
import { dialectOf, type DbExecutor } from './schema.js'

/** The `create index` statement of an index of the current schema, or null when there is none. */
async function indexDefinition(db: DbExecutor, name: string): Promise<string | null> {
  if (dialectOf(db) === 'postgres') {
    const { rows } = await sql<{ indexdef: string }>`
      select indexdef from pg_indexes where schemaname = current_schema() and indexname = ${name}
    `.execute(db)
    return rows[0]?.indexdef ?? null
  }
  const { rows } = await sql<{ sql: string | null }>`
    select sql from sqlite_master where type = 'index' and name = ${name}
  `.execute(db)
  // An index SQLite made for a constraint has no statement: it cannot be dropped.
  return rows[0]?.sql ?? null
}

/**
 * Drops each of `names` that exists, in one transaction that first checks
 * `precondition` (say, "the ledger is empty") and records every definition;
 * answers the names dropped (none when the precondition fails).
 */
export async function deferIndexes(
  db: Db,
  names: readonly string[],
  now: string,
  precondition: (trx: DbExecutor) => Promise<boolean>,
): Promise<string[]> {
  return db.kysely.transaction().execute(async (trx) => {
    if (!(await precondition(trx))) return []
    const dropped: string[] = []
    for (const name of names) {
      const definition = await indexDefinition(trx, name)
      if (definition === null) continue
      await trx
        .insertInto('deferred_indexes')
        .values({ name, definition, deferred_at: now })
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
 * stays listed for the next call.
 */
export async function buildDeferredIndexes(
  db: Db,
  log: Logger,
  beforeEach: () => void = () => undefined,
): Promise<number> {
  const listed = await db.kysely
    .selectFrom('deferred_indexes')
    .select('name')
    .orderBy('name')
    .execute()
  let built = 0
  for (const { name } of listed) {
    beforeEach()
    const started = performance.now()
    const done = await db.kysely.transaction().execute(async (trx) => {
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
    if (!done) continue
    built++
    log.debug(
      { index: name, ms: Math.round(performance.now() - started) },
      'db: built a deferred index',
    )
  }
  return built
}

// The questions other folders ask about the engine they run on. Outside db/ no
// file branches on the engine's name: it asks for what it needs by name here,
// and only this folder knows which engine answers what (DESIGN "Storage").
import { sql, type RawBuilder } from 'kysely'
import { dialectOf, type DbExecutor } from './schema.js'

/** The operator for a LIKE pattern that ignores ASCII case: SQLite's LIKE does, PostgreSQL needs ILIKE. */
export function caseInsensitiveLike(db: DbExecutor): RawBuilder<unknown> {
  return dialectOf(db) === 'postgres' ? sql`ilike` : sql`like`
}

/**
 * Whether `cast(text as <number>)` compares decimal amounts exactly (PostgreSQL
 * numeric), so SQL agrees with decimal.ts. SQLite casts to a double (REAL),
 * which can only narrow: the matcher decides.
 */
export function comparesDecimalsExactly(db: DbExecutor): boolean {
  return dialectOf(db) === 'postgres'
}

/**
 * Whether text search runs on documents the application builds (SQLite FTS5:
 * migration 0004 and search/indexer.ts queue and rebuild them), rather than on
 * indexes the database keeps by itself (PostgreSQL pg_trgm).
 */
export function buildsSearchDocuments(db: DbExecutor): boolean {
  return dialectOf(db) === 'sqlite'
}

/**
 * Whether the planner needs the hints written for it: `+column` to keep an index
 * from driving a plan, a set of rowids found first and then read (SQLite). A
 * cost-based planner with statistics (PostgreSQL) chooses well without them.
 */
export function needsPlannerHints(db: DbExecutor): boolean {
  return dialectOf(db) === 'sqlite'
}

/**
 * Whether every process that opens this database runs on this machine (SQLite:
 * one local file), so that a file under data.dir is shared by them as well as a
 * table would be. PostgreSQL may be shared by processes on several hosts.
 */
export function isSingleHostDatabase(db: DbExecutor): boolean {
  return dialectOf(db) === 'sqlite'
}

/**
 * Whether the engine has session locks that die with their connection
 * (PostgreSQL advisory locks), so that one process can hold a role (the sync
 * run, the webhook dispatch) and lose it when it stops or crashes. Without them
 * (SQLite) a role is held by a row that names a live process on this machine.
 */
export function hasSessionLocks(db: DbExecutor): boolean {
  return dialectOf(db) === 'postgres'
}

/**
 * Whether `sum(cast(text as numeric))` sums decimal amounts exactly (PostgreSQL).
 * SQLite has no decimal type: its connections carry the aggregate
 * coffer_group_sums (connect.ts) instead.
 */
export function sumsDecimalsExactly(db: DbExecutor): boolean {
  return dialectOf(db) === 'postgres'
}

/**
 * Whether summaries over everything read sums kept ahead of time (SQLite:
 * migration 0008, search/rollups.ts). PostgreSQL sums numeric in the database.
 */
export function keepsSummaryRollups(db: DbExecutor): boolean {
  return dialectOf(db) === 'sqlite'
}

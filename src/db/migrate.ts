// Runs the ordered list of migrations (add new ones at the end, never edit an
// applied one). One list serves both engines; a migration branches on `dialect`
// where SQLite and PostgreSQL differ.
import { sql, type Kysely } from 'kysely'
import { ConfigError } from '../config/index.js'
import type { Db } from './connect.js'
import type { Database } from './schema.js'
import type { MigrationContext } from './migrations/context.js'
import * as m0001 from './migrations/0001-ledger.js'
import * as m0002 from './migrations/0002-webhooks.js'
import * as m0003 from './migrations/0003-sync.js'
import * as m0004 from './migrations/0004-search.js'
import * as m0005 from './migrations/0005-rules.js'
import * as m0006 from './migrations/0006-webhook-start.js'
import * as m0007 from './migrations/0007-exact-search-documents.js'
import * as m0008 from './migrations/0008-summary-rollups.js'
import * as m0009 from './migrations/0009-settings.js'
import * as m0010 from './migrations/0010-plugins.js'
import * as m0011 from './migrations/0011-keyed-change-queues.js'
import * as m0012 from './migrations/0012-search-keys.js'
import * as m0013 from './migrations/0013-deferred-indexes.js'
import * as m0014 from './migrations/0014-droppable-keys.js'
import * as m0015 from './migrations/0015-document-numbers.js'
import * as m0016 from './migrations/0016-transaction-counts.js'
import * as m0017 from './migrations/0017-transactions-fillfactor.js'
import * as m0018 from './migrations/0018-amount-buckets.js'

interface MigrationModule {
  up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void>
}

const MIGRATIONS: ReadonlyArray<[string, MigrationModule]> = [
  ['0001-ledger', m0001],
  ['0002-webhooks', m0002],
  ['0003-sync', m0003],
  ['0004-search', m0004],
  ['0005-rules', m0005],
  ['0006-webhook-start', m0006],
  ['0007-exact-search-documents', m0007],
  ['0008-summary-rollups', m0008],
  ['0009-settings', m0009],
  ['0010-plugins', m0010],
  ['0011-keyed-change-queues', m0011],
  ['0012-search-keys', m0012],
  ['0013-deferred-indexes', m0013],
  ['0014-droppable-keys', m0014],
  ['0015-document-numbers', m0015],
  ['0016-transaction-counts', m0016],
  ['0017-transactions-fillfactor', m0017],
  ['0018-amount-buckets', m0018],
]

export interface AppliedMigration {
  name: string
  applied: boolean
}

// Any constant works; it only has to be the same in every Coffer process.
const MIGRATION_LOCK_KEY = 0x436f666d6967

/**
 * Applies the pending migrations, all in one database transaction, and records
 * each in `coffer_migrations`. On PostgreSQL a transaction-level advisory lock
 * makes processes that start together take turns. (Kysely's Migrator is not used:
 * it introspects every schema of the database, which races with other schemas
 * being dropped on a shared server.)
 */
export async function migrateToLatest(
  db: Db,
  options: { through?: string | undefined } = {},
): Promise<AppliedMigration[]> {
  const ctx: MigrationContext = { dialect: db.dialect }
  // Nothing to apply is answered by a read: a command opening a database that a
  // running service writes to (`coffer export` beside `coffer serve`) then never
  // waits for SQLite's write lock, which a long unit may hold for seconds.
  if (options.through === undefined) {
    const applied = new Set(await appliedMigrationNames(db.kysely))
    if (MIGRATIONS.every(([name]) => applied.has(name)))
      return MIGRATIONS.map(([name]) => ({ name, applied: false }))
  }
  if (db.dialect === 'sqlite' && !(await migrationsTableExists(db.kysely))) {
    await refuseAnotherProgramsFile(db.kysely)
  }
  await db.kysely.schema
    .createTable('coffer_migrations')
    .ifNotExists()
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('applied_at', 'text', (c) => c.notNull())
    .execute()
    .catch(async (error: unknown) => {
      // Two processes may race on `create table if not exists` on PostgreSQL.
      if (!(await migrationsTableExists(db.kysely))) throw error
    })
  try {
    return await db.kysely.transaction().execute(async (trx) => {
      if (db.dialect === 'postgres') {
        await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(trx)
      }
      const done = new Set(
        (await sql<{ name: string }>`select name from coffer_migrations`.execute(trx)).rows.map(
          (r) => r.name,
        ),
      )
      const results: AppliedMigration[] = []
      let stopped = false
      for (const [name, module] of MIGRATIONS) {
        if (stopped) break
        // A restore loads its rows at the backup's schema, then migrates the rest.
        stopped = name === options.through
        if (done.has(name)) {
          results.push({ name, applied: false })
          continue
        }
        await module.up(trx as unknown as Kysely<unknown>, ctx)
        await sql`insert into coffer_migrations (name, applied_at) values (${name}, ${new Date().toISOString()})`.execute(
          trx,
        )
        results.push({ name, applied: true })
      }
      return results
    })
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'unknown error'
    throw new Error(`db: migration failed: ${reason}`, { cause: error })
  }
}

/**
 * A SQLite file with tables but no Coffer schema is another program's (a path
 * typed wrong): Coffer would add its tables beside them, and its backups of the
 * file could never be restored. (On PostgreSQL a schema shared with other
 * programs is usual, and Coffer's tables are told apart by name.)
 */
async function refuseAnotherProgramsFile(db: Kysely<Database>): Promise<void> {
  const { rows } = await sql<{ name: string }>`
    select name from sqlite_master
    where type = 'table' and name not like 'sqlite%' order by name`.execute(db)
  if (rows.length === 0) return
  const names = rows.slice(0, 5).map((row) => JSON.stringify(row.name))
  const more = rows.length > 5 ? ` and ${rows.length - 5} more` : ''
  throw new ConfigError(
    `database.path: the SQLite file holds another program's tables (${names.join(', ')}${more}) ` +
      'and no Coffer schema; point database.path at a new file or at a Coffer database',
    'database.path',
  )
}

async function migrationsTableExists(db: Kysely<Database>): Promise<boolean> {
  try {
    await sql`select 1 from coffer_migrations limit 1`.execute(db)
    return true
  } catch {
    return false
  }
}

/** Every migration this Coffer knows, in order. */
export function knownMigrationNames(): string[] {
  return MIGRATIONS.map(([name]) => name)
}

/** Migrations the database holds that this Coffer does not know: a newer Coffer migrated it. */
export async function newerMigrations(db: Kysely<Database>): Promise<string[]> {
  const known = new Set(knownMigrationNames())
  return (await appliedMigrationNames(db)).filter((name) => !known.has(name))
}

/**
 * The migrations applied to a database (none when it was never migrated): the
 * ones this Coffer knows in their order, then any it does not (a newer Coffer's)
 * by name, so that a caller comparing schemas sees those too.
 */
export async function appliedMigrationNames(db: Kysely<Database>): Promise<string[]> {
  if (!(await migrationsTableExists(db))) return []
  const { rows } = await sql<{ name: string }>`select name from coffer_migrations`.execute(db)
  const applied = new Set(rows.map((r) => r.name))
  const known = knownMigrationNames()
  const unknown = [...applied].filter((name) => !known.includes(name)).sort()
  return [...known.filter((name) => applied.has(name)), ...unknown]
}

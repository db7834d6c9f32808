// Runs the ordered list of migrations (add new ones at the end, never edit an
// applied one). One list serves both engines; a migration branches on `dialect`
// where SQLite and PostgreSQL differ.
import { Migrator, sql, type Kysely, type Migration, type MigrationResult } from 'kysely'
import type { DialectName, Db } from './connect.js'
import * as m0001 from './migrations/0001-ledger.js'
import * as m0002 from './migrations/0002-webhooks.js'
import * as m0003 from './migrations/0003-sync.js'

export interface MigrationContext {
  dialect: DialectName
}

interface MigrationModule {
  up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void>
}

const MIGRATIONS: ReadonlyArray<[string, MigrationModule]> = [
  ['0001-ledger', m0001],
  ['0002-webhooks', m0002],
  ['0003-sync', m0003],
]

export async function migrateToLatest(db: Db): Promise<MigrationResult[]> {
  const ctx: MigrationContext = { dialect: db.dialect }
  // Kysely looks for its own tables in every schema; pin them to the schema the
  // connection writes to (search_path), or a kysely_migration table in another
  // schema of the same database makes it skip creating ours and then fail.
  const schema =
    db.dialect === 'postgres'
      ? ((await sql<{ s: string | null }>`select current_schema() as s`.execute(db.kysely)).rows[0]
          ?.s ?? undefined)
      : undefined
  const migrator = new Migrator({
    db: db.kysely,
    ...(schema ? { migrationTableSchema: schema } : {}),
    provider: {
      getMigrations: async () => {
        const out: Record<string, Migration> = {}
        for (const [name, module] of MIGRATIONS) {
          out[name] = { up: (kysely) => module.up(kysely, ctx) }
        }
        return out
      },
    },
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const reason = error instanceof Error ? error.message : 'unknown error'
    throw new Error(`db: migration failed: ${reason}`, { cause: error })
  }
  return results ?? []
}

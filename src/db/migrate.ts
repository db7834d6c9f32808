// Runs the ordered list of migrations (add new ones at the end, never edit an
// applied one). One list serves both engines; a migration branches on `dialect`
// where SQLite and PostgreSQL differ.
import { Migrator, type Kysely, type Migration, type MigrationResult } from 'kysely'
import type { DialectName, Db } from './connect.js'
import * as m0001 from './migrations/0001-ledger.js'

export interface MigrationContext {
  dialect: DialectName
}

interface MigrationModule {
  up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void>
}

const MIGRATIONS: ReadonlyArray<[string, MigrationModule]> = [['0001-ledger', m0001]]

export async function migrateToLatest(db: Db): Promise<MigrationResult[]> {
  const ctx: MigrationContext = { dialect: db.dialect }
  const migrator = new Migrator({
    db: db.kysely,
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
  if (error) throw new Error('db: migration failed', { cause: error })
  return results ?? []
}

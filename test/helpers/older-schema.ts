// A sandbox's SQLite database at the schema of an earlier migration, holding a
// manual account `man_acct` and the given transactions, for the tests of a
// migration that must upgrade what that schema held.
import { sql, type Kysely } from 'kysely'
import { openDatabase } from '../../src/db/connect.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import type { ProcessSandbox } from './app.js'

const AT = '2024-05-01T00:00:00Z'

export interface OlderRow {
  id: string
  amount: string
  description: string
}

/** Migrates `sandbox`'s database through `through`, adds `rows`, then runs `then` on it. */
export async function ledgerAtSchema(
  sandbox: ProcessSandbox,
  through: string,
  rows: readonly OlderRow[],
  then: (db: Kysely<unknown>) => Promise<void> = async () => {},
): Promise<void> {
  const db = openDatabase({ driver: 'sqlite', path: sandbox.dbPath, dsn: null })
  try {
    await migrateToLatest(db, { through })
    const k = db.kysely as Kysely<unknown>
    await sql`insert into organizations (id, name, source, created_at, updated_at)
      values ('man_org', 'Bank', 'manual', ${AT}, ${AT})`.execute(k)
    await sql`insert into accounts (id, org_id, name, currency, balance, source, created_at, updated_at)
      values ('man_acct', 'man_org', 'Checking', 'USD', '0', 'manual', ${AT}, ${AT})`.execute(k)
    for (const { id, amount, description } of rows) {
      await sql`insert into transactions (id, account_id, amount, date, description, pending, source, created_at, updated_at)
        values (${id}, 'man_acct', ${amount}, ${AT}, ${description}, 0, 'manual', ${AT}, ${AT})`.execute(
        k,
      )
    }
    await then(k)
  } finally {
    await db.close()
  }
}

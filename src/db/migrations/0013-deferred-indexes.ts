// Indexes dropped for a first import into an empty ledger and built again at its
// end (src/db/deferred-indexes.ts). Each row is written in the same transaction
// as its index's drop, so an import that dies part-way leaves the list of what
// to build again, and the next sync (or `coffer serve` starting) builds it.
import type { Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

export async function up(db: Kysely<unknown>, _ctx: MigrationContext): Promise<void> {
  await db.schema
    .createTable('deferred_indexes')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('table_name', 'text', (c) => c.notNull())
    .addColumn('deferred_at', 'text', (c) => c.notNull())
    .execute()
}

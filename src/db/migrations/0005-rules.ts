// Rules (CONTRACT 8): a saved search query with the labels and extensions it sets.
import { sql, type Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  // Byte-wise text order on both engines, as in 0001-ledger.
  const text = dialect === 'postgres' ? sql`text collate "C"` : sql`text`
  await db.schema
    .createTable('rules')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('query', text, (c) => c.notNull())
    .addColumn('labels', text, (c) => c.notNull())
    .addColumn('extensions', text, (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute()
  // GET /rules and every run walk the rules oldest first.
  await db.schema.createIndex('rules_position').on('rules').columns(['position', 'id']).execute()
}

// Plugins (CONTRACT 9): what is kept of each across restarts (enabled state,
// operator grants, config changes made by the plugin, health, its place in the
// event log), and who made a change, so that provenance can name a plugin.
import type { Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('plugins')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('net_grants', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('config', 'text', (c) => c.notNull().defaultTo('{}'))
    // Event sequences are bigserial on PostgreSQL; null until first enabled.
    .addColumn('cursor', dialect === 'postgres' ? 'bigint' : 'integer')
    .addColumn('last_status', 'text')
    .addColumn('last_error', 'text')
    .addColumn('last_run_at', 'text')
    .addColumn('last_success_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.alterTable('transaction_versions').addColumn('actor', 'text').execute()
}

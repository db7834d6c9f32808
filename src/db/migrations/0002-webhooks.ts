// Webhook registrations (SPEC 2.8, CONTRACT 6) and the dispatcher's cursor in the
// event log (SPEC 6.3: a restart neither loses nor floods).
import type { Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_success_at', 'text')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  // GET /webhooks lists oldest first.
  await db.schema
    .createIndex('webhooks_created')
    .on('webhooks')
    .columns(['created_at', 'id'])
    .execute()

  await db.schema
    .createTable('webhook_cursor')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Event sequences are bigserial on PostgreSQL.
    .addColumn('sequence', dialect === 'postgres' ? 'bigint' : 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
}

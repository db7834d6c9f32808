// Each webhook's place in the event log at its creation (issue: a webhook
// registered through one process while another dispatches must receive every
// event written after its 201). Existing webhooks start at 0: they follow the
// dispatcher's cursor as before.
import type { Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  await db.schema
    .alterTable('webhooks')
    // Event sequences are bigserial on PostgreSQL.
    .addColumn('starts_after', dialect === 'postgres' ? 'bigint' : 'integer', (c) =>
      c.notNull().defaultTo(0),
    )
    .execute()
}

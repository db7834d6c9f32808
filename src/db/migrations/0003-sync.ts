// Sync runs (CONTRACT 6 "Sync run"), the shared secret store of PostgreSQL
// deployments, and the pending OAuth states of source consent flows.
import { sql, type Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  const text = dialect === 'postgres' ? sql`text collate "C"` : sql`text`
  await db.schema
    .createTable('sync_runs')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('source', text)
    .addColumn('trigger', text, (c) => c.notNull())
    .addColumn('started_at', text, (c) => c.notNull())
    .addColumn('completed_at', text)
    .addColumn('status', text, (c) => c.notNull())
    .addColumn('error', text)
    .addColumn('counts', text, (c) => c.notNull())
    .addColumn('warnings', text, (c) => c.notNull())
    // Per-source failures (JSON object), shown as a source entry's `errors`.
    .addColumn('source_errors', text, (c) => c.notNull())
    // host:pid of the process running it, so a dead owner's run can be recognised.
    .addColumn('owner', text, (c) => c.notNull())
    .execute()
  // GET /sync, /sync/history and a source's last run: newest first.
  await db.schema
    .createIndex('sync_runs_started')
    .on('sync_runs')
    .columns(['started_at', 'id'])
    .execute()
  // Start-up recovery looks up the runs still marked running.
  await db.schema.createIndex('sync_runs_status').on('sync_runs').column('status').execute()

  // Used only on PostgreSQL (SQLite keeps secrets in a 0600 file under data.dir);
  // created on both so that the two schemas stay identical.
  await db.schema
    .createTable('secrets')
    .addColumn('name', text, (c) => c.primaryKey())
    .addColumn('value', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute()

  // Single-use OAuth states, kept in the database so that the callback may reach
  // another process than the one that issued the consent URL.
  await db.schema
    .createTable('oauth_states')
    .addColumn('state_hash', text, (c) => c.primaryKey())
    .addColumn('source', text, (c) => c.notNull())
    .addColumn('expires_at', text, (c) => c.notNull())
    .execute()
}

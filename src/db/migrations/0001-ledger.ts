// The ledger, the event log and credentials. Each list query names the index it
// relies on; the indexes are created here.
import { sql, type Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  // Text compares byte-wise on both engines (SQLite's BINARY is PostgreSQL's "C"),
  // so that every ordering, and so every page, is the same whatever the server locale.
  const text = dialect === 'postgres' ? sql`text collate "C"` : sql`text`
  await db.schema
    .createTable('organizations')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('domain', text)
    .addColumn('source', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('organizations_name')
    .on('organizations')
    .columns(['name', 'id'])
    .execute()

  await db.schema
    .createTable('accounts')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('org_id', text, (c) => c.notNull())
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('currency', text, (c) => c.notNull())
    .addColumn('balance', text, (c) => c.notNull())
    .addColumn('source', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .addColumn('synced_at', text)
    .execute()
  await db.schema.createIndex('accounts_name').on('accounts').columns(['name', 'id']).execute()
  await db.schema
    .createIndex('accounts_org_name')
    .on('accounts')
    .columns(['org_id', 'name', 'id'])
    .execute()

  await db.schema
    .createTable('transactions')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('account_id', text, (c) => c.notNull())
    .addColumn('amount', text, (c) => c.notNull())
    .addColumn('date', text, (c) => c.notNull())
    .addColumn('description', text)
    .addColumn('payee', text)
    .addColumn('memo', text)
    .addColumn('pending', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('source', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .addColumn('synced_at', text)
    .execute()
  // Newest-first pages over the whole ledger and over one account.
  await db.schema
    .createIndex('transactions_date')
    .on('transactions')
    .columns(['date', 'id'])
    .execute()
  await db.schema
    .createIndex('transactions_account_date')
    .on('transactions')
    .columns(['account_id', 'date', 'id'])
    .execute()

  await db.schema
    .createTable('transaction_labels')
    .addColumn('transaction_id', text, (c) => c.notNull())
    .addColumn('key', text, (c) => c.notNull())
    .addColumn('value', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('transaction_labels_pk', ['transaction_id', 'key'])
    .execute()
  // Label filters and the label vocabulary with per-pair counts.
  await db.schema
    .createIndex('transaction_labels_key_value')
    .on('transaction_labels')
    .columns(['key', 'value', 'transaction_id'])
    .execute()

  await db.schema
    .createTable('transaction_extensions')
    .addColumn('transaction_id', text, (c) => c.notNull())
    .addColumn('key', text, (c) => c.notNull())
    .addColumn('value', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('transaction_extensions_pk', ['transaction_id', 'key'])
    .execute()
  await db.schema
    .createIndex('transaction_extensions_key')
    .on('transaction_extensions')
    .columns(['key', 'transaction_id'])
    .execute()

  await db.schema
    .createTable('relationships')
    .addColumn('transaction_id', text, (c) => c.notNull())
    .addColumn('kind', text, (c) => c.notNull())
    .addColumn('target_id', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('relationships_pk', ['transaction_id', 'kind', 'target_id'])
    .execute()
  // Derived inbound edges and the kind vocabulary.
  await db.schema
    .createIndex('relationships_target')
    .on('relationships')
    .columns(['target_id', 'kind'])
    .execute()
  await db.schema.createIndex('relationships_kind').on('relationships').column('kind').execute()

  await db.schema
    .createTable('transaction_versions')
    .addColumn('transaction_id', text, (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('kind', text, (c) => c.notNull())
    .addColumn('occurred_at', text, (c) => c.notNull())
    .addColumn('snapshot', text, (c) => c.notNull())
    .addColumn('diff', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('transaction_versions_pk', ['transaction_id', 'version'])
    .execute()

  await db.schema
    .createTable('events')
    .$call((t) =>
      dialect === 'sqlite'
        ? t.addColumn('sequence', 'integer', (c) => c.primaryKey().autoIncrement())
        : t.addColumn('sequence', 'bigserial', (c) => c.primaryKey()),
    )
    .addColumn('event_id', text, (c) => c.notNull().unique())
    .addColumn('type', text, (c) => c.notNull())
    .addColumn('entity_type', text, (c) => c.notNull())
    .addColumn('entity_id', text, (c) => c.notNull())
    .addColumn('occurred_at', text, (c) => c.notNull())
    .addColumn('data', text, (c) => c.notNull())
    .execute()
  // Filtered event pages: `?type=`, `?entity_type=`, `?entity_id=` after a sequence.
  await db.schema.createIndex('events_type').on('events').columns(['type', 'sequence']).execute()
  await db.schema
    .createIndex('events_entity_type')
    .on('events')
    .columns(['entity_type', 'sequence'])
    .execute()
  await db.schema
    .createIndex('events_entity_id')
    .on('events')
    .columns(['entity_id', 'sequence'])
    .execute()
  await db.schema.createIndex('events_occurred_at').on('events').column('occurred_at').execute()

  await db.schema
    .createTable('api_keys')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('prefix', text, (c) => c.notNull())
    .addColumn('scope', text, (c) => c.notNull())
    .addColumn('key_hash', text, (c) => c.notNull().unique())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('last_used_at', text)
    .execute()
  await db.schema
    .createIndex('api_keys_created')
    .on('api_keys')
    .columns(['created_at', 'id'])
    .execute()

  await db.schema
    .createTable('stored_tokens')
    .addColumn('name', text, (c) => c.primaryKey())
    .addColumn('token_hash', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .execute()

  // Keep the query planner's statistics fresh on SQLite from the start.
  if (dialect === 'sqlite') await sql`pragma optimize`.execute(db)
}

// Indexes for the search pre-filter (src/search/narrow.ts). The matcher decides
// every answer; these only let the database find the candidates quickly.
//
// SQLite: one FTS5 trigram document per transaction (its text, its labels as
// `key:value` lines, its extensions as `key value` lines), queued by triggers
// and built in batches by src/search/indexer.ts. The document's rowid comes from search_documents, not from the
// transaction's own rowid, which VACUUM may renumber.
// PostgreSQL: pg_trgm GIN indexes on the same texts; without pg_trgm the
// filters still work, unindexed.
import { sql, type Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  if (dialect === 'sqlite') await sqliteUp(db)
  else await postgresUp(db)
}

/**
 * Queues a transaction once. Not `insert or ignore`: a trigger's conflict
 * clause yields to the outer statement's (an upsert of a label), so the
 * statement must not conflict at all.
 */
function queue(id: string): string {
  return `insert into search_pending (transaction_id) select ${id}
     where not exists (select 1 from search_pending where transaction_id = ${id});`
}

const SQLITE_STATEMENTS = [
  `create table search_documents (n integer primary key, transaction_id text not null unique)`,
  `create virtual table search_text using fts5(description, payee, memo, id, labels, extensions, tokenize = 'trigram')`,
  // Transactions whose document is missing or stale. A write only queues its
  // transaction here (a trigram document costs ~10x the row's own insert); the
  // search indexer (src/search/indexer.ts) rebuilds queued documents in batches
  // off the write path, and until then the narrowing counts every queued
  // transaction as a candidate, so answers never depend on the backlog.
  `create table search_pending (transaction_id text primary key) without rowid`,
  // Case-insensitive equality (src/search/narrow.ts FOLDED_VALUE: U+212A is the Kelvin sign).
  `create index transaction_labels_key_folded_value on transaction_labels (key, lower(replace(value, '\u212A', 'k')))`,
  `create index transaction_extensions_key_folded_value on transaction_extensions (key, lower(replace(value, '\u212A', 'k')))`,
  // A conservative numeric pre-filter for amounts; decimal.ts confirms exactly.
  `create index transactions_amount_real on transactions (cast(amount as real))`,
  // Amount within a date range (`amount:<-100 date:2024`) from the index alone.
  `create index transactions_date_amount_real on transactions (date, cast(amount as real))`,
  // New transactions get their documents in the unit that inserts them, in bulk
  // (insertNewDocuments in src/search/indexer.ts): no trigger on insert. Changes
  // and deletes are rarer: triggers queue them (label and extension changes:
  // the ledger's write step since migration 0011).
  `create trigger search_transactions_update after update of description, payee, memo on transactions begin
     ${queue('new.id')}
   end`,
  `create trigger search_transactions_delete after delete on transactions begin
     ${queue('old.id')}
   end`,
  ...['insert', 'update', 'delete'].flatMap((event) => {
    const row = event === 'delete' ? 'old' : 'new'
    return ['transaction_labels', 'transaction_extensions'].map(
      (table) =>
        `create trigger search_${table}_${event} after ${event} on ${table} begin
           ${queue(`${row}.transaction_id`)}
         end`,
    )
  }),
  // Documents for the rows already there: queued, built by the indexer.
  `insert into search_pending (transaction_id) select id from transactions`,
]

async function sqliteUp(db: Kysely<unknown>): Promise<void> {
  for (const statement of SQLITE_STATEMENTS) await sql.raw(statement).execute(db)
}

async function postgresUp(db: Kysely<unknown>): Promise<void> {
  // Case-insensitive equality (src/search/narrow.ts FOLDED_VALUE: U+212A is the Kelvin sign).
  for (const table of ['transaction_labels', 'transaction_extensions']) {
    await sql`create index ${sql.id(`${table}_key_folded_value`)} on ${sql.id(table)} (key, lower(replace(value, '\u212A', 'k')))`.execute(
      db,
    )
  }
  // numeric is exact, so the amount filter is exact on PostgreSQL.
  await sql`create index transactions_amount_numeric on transactions ((cast(amount as numeric)))`.execute(
    db,
  )

  const trgm = await trigramSchema(db)
  if (trgm === null) return
  const ops = sql`${sql.id(trgm)}.gin_trgm_ops`
  // These expressions are repeated verbatim in src/search/narrow.ts.
  await sql`create index transactions_text_trgm on transactions using gin ((coalesce(description, '') || ' ' || coalesce(payee, '') || ' ' || coalesce(memo, '') || ' ' || id) ${ops})`.execute(
    db,
  )
  await sql`create index transaction_labels_text_trgm on transaction_labels using gin ((key || ':' || value) ${ops})`.execute(
    db,
  )
  await sql`create index transaction_extensions_text_trgm on transaction_extensions using gin ((key || ' ' || value) ${ops})`.execute(
    db,
  )
}

/** The schema holding pg_trgm, installing it when allowed; null when unavailable. */
async function trigramSchema(db: Kysely<unknown>): Promise<string | null> {
  const find = async () =>
    (
      await sql<{
        schema: string
      }>`select extnamespace::regnamespace::text as schema from pg_extension where extname = 'pg_trgm'`.execute(
        db,
      )
    ).rows[0]?.schema ?? null
  const existing = await find()
  if (existing !== null) return existing
  // In `public` where allowed, so that the extension outlives any one schema
  // (dropping the schema it sits in drops it, and with it every trigram index
  // built on it); else in the current schema. A savepoint keeps a refused
  // CREATE EXTENSION (no privilege, not installed) from aborting the migration.
  for (const create of [
    sql`create extension if not exists pg_trgm with schema public`,
    sql`create extension if not exists pg_trgm`,
  ]) {
    await sql`savepoint search_trgm`.execute(db)
    try {
      await create.execute(db)
      await sql`release savepoint search_trgm`.execute(db)
      return find()
    } catch {
      await sql`rollback to savepoint search_trgm`.execute(db)
    }
  }
  return null
}

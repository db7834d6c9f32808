// The history's key (transaction id, version) and, on SQLite, the search
// documents' transaction id become unique indexes of their own instead of
// constraints of their tables, so that a first import into an empty ledger can
// drop them and build them at its end like its other deferred indexes
// (src/sync/first-import.ts): both are keyed by `csv:<hash>` ids, which arrive in
// random order, and entering a million of them one by one was most of what such
// an import still cost (docs/performance.md, "The history's and the search
// documents' keys"). Uniqueness holds as before whenever the index exists.
//
// SQLite cannot drop a table's constraint: both tables are copied into new ones,
// in their order, once: 7.5-9 s at a million versions (docs/operations.md,
// "Schema upgrades").
import { sql, type Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

const SQLITE_STATEMENTS = [
  `create table transaction_versions_rebuilt (
     transaction_id text not null,
     version integer not null,
     kind text not null,
     occurred_at text not null,
     snapshot text not null,
     diff text not null,
     actor text)`,
  `insert into transaction_versions_rebuilt
     select transaction_id, version, kind, occurred_at, snapshot, diff, actor
     from transaction_versions order by rowid`,
  `drop table transaction_versions`,
  `alter table transaction_versions_rebuilt rename to transaction_versions`,
  `create unique index transaction_versions_key on transaction_versions (transaction_id, version)`,

  `create table search_documents_rebuilt (n integer primary key, transaction_id text not null)`,
  `insert into search_documents_rebuilt (n, transaction_id) select n, transaction_id from search_documents`,
  `drop table search_documents`,
  `alter table search_documents_rebuilt rename to search_documents`,
  `create unique index search_documents_transaction on search_documents (transaction_id)`,
]

const POSTGRES_STATEMENTS = [
  `alter table transaction_versions drop constraint transaction_versions_pk`,
  `create unique index transaction_versions_key on transaction_versions (transaction_id, version)`,
]

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  const statements = dialect === 'sqlite' ? SQLITE_STATEMENTS : POSTGRES_STATEMENTS
  for (const statement of statements) await sql.raw(statement).execute(db)
}

// A transaction's labels and extensions get a search document of their own
// (search_keys), beside the one of its text (search_text: description, payee,
// memo, id), both numbered by search_documents. A label or extension change then
// rebuilds the small keys document alone, queued in search_keys_pending, instead
// of re-tokenising the whole text into the trigram index: the text's document was
// nearly half of what a label write cost (docs/performance.md, "Plugins").
// Every document is rebuilt by the search indexer from the queue, as after
// migration 0007; until then the narrowing leaves queued transactions to the
// matcher. SQLite only: PostgreSQL keeps no documents.
import { sql, type Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

const STATEMENTS = [
  `drop table search_text`,
  `create virtual table search_text using fts5(description, payee, memo, id, tokenize = 'trigram')`,
  `create virtual table search_keys using fts5(labels, extensions, tokenize = 'trigram')`,
  // Transactions whose keys document alone is stale (the text's is current).
  `create table search_keys_pending (transaction_id text primary key) without rowid`,
  `delete from search_documents`,
  `insert into search_pending (transaction_id) select id from transactions where true on conflict do nothing`,
]

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  if (dialect !== 'sqlite') return
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
}

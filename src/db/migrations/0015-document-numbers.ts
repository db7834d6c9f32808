// SQLite: a transaction's search document number moves from search_documents
// (n, transaction_id, and a unique index on the id) onto the transaction's own
// row (`search_n`), indexed by number. New rows take numbers above every one in
// use, so the number's index grows at its end, where search_documents' id index
// took every new `csv:<hash>` id on a random page: at a million rows that index
// was a fifth of what a 100k-row import cost (docs/performance.md, "Document
// numbers on the transaction's row"). The index holds the id too, so that a
// search's hits become ids from it alone, as they did from search_documents.
//
// A document outlives its row until the indexer drops it (search_pending), so
// the queue now keeps the number to drop beside the id: the delete trigger
// records it, as the row that held it is gone. PostgreSQL has no search
// documents: nothing to do there.
import { sql, type Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

/** Queues a transaction once, with its document number; as in 0004 (no conflict clause). */
function queue(row: 'new' | 'old'): string {
  return `update search_pending set n = ${row}.search_n where transaction_id = ${row}.id and n is null;
     insert into search_pending (transaction_id, n) select ${row}.id, ${row}.search_n
     where not exists (select 1 from search_pending where transaction_id = ${row}.id);`
}

const SQLITE_STATEMENTS = [
  `alter table transactions add column search_n integer`,
  `update transactions set search_n = d.n from search_documents d where d.transaction_id = transactions.id`,
  `create index transactions_search_n on transactions (search_n, id) where search_n is not null`,
  `alter table search_pending add column n integer`,
  // Queued documents whose rows are gone keep the number they are dropped by.
  `update search_pending set n = (select d.n from search_documents d where d.transaction_id = search_pending.transaction_id)`,
  // The highest number queued, without reading the queue (a million entries after a restore).
  `create index search_pending_n on search_pending (n) where n is not null`,
  `drop trigger search_transactions_update`,
  `drop trigger search_transactions_delete`,
  `create trigger search_transactions_update after update of description, payee, memo on transactions begin
     ${queue('new')}
   end`,
  `create trigger search_transactions_delete after delete on transactions begin
     ${queue('old')}
   end`,
  `drop table search_documents`,
]

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  if (dialect !== 'sqlite') return
  for (const statement of SQLITE_STATEMENTS) await sql.raw(statement).execute(db)
}

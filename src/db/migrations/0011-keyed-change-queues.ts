// Label and extension changes queue their search documents (migration 0004) and
// summary days (migration 0008) through the ledger's write step
// (WriteStep.afterKeyedChange in src/ledger/unit-of-work.ts), one statement per
// batch, instead of by a trigger per row: the triggers doubled what writing a
// label row costs, and a rules run or a plugin's hooks write tens of thousands.
// Edits of a transaction's text, amount or date and deletes stay with their
// triggers. SQLite only: PostgreSQL has neither queue.
import { sql, type Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

const KEYED_ROW_TRIGGERS = ['insert', 'update', 'delete'].flatMap((event) => [
  `search_transaction_labels_${event}`,
  `search_transaction_extensions_${event}`,
  `summary_labels_${event}`,
])

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  if (dialect !== 'sqlite') return
  for (const trigger of KEYED_ROW_TRIGGERS)
    await sql.raw(`drop trigger if exists ${trigger}`).execute(db)
}

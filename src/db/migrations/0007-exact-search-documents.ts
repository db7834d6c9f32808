// SQLite search documents in the form that lets a printable-ASCII phrase decide
// free text exactly (src/search/narrow.ts exactText; issue 16): each extension's
// key and text on lines of their own (they were `key <json>` lines, where a match
// could span the two or an escape), U+0130 and U+017F rewritten. The documents
// that differ are queued for the search indexer to rebuild; until it has, they
// are decided by the matcher. PostgreSQL keeps no documents.
import { sql, type Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

const REWRITTEN = ['\u0130', '\u017F']

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  if (dialect !== 'sqlite') return
  const holds = (expression: string) =>
    REWRITTEN.map((c) => `instr(${expression}, '${c}') > 0`).join(' or ')
  await sql
    .raw(
      `insert into search_pending (transaction_id)
       select transaction_id from transaction_extensions
       union select transaction_id from transaction_labels where ${holds("key || ':' || value")}
       union select id from transactions where ${holds("id || coalesce(description, '') || coalesce(payee, '') || coalesce(memo, '')")}
       on conflict do nothing`,
    )
    .execute(db)
}

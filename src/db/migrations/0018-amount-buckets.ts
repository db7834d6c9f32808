// SQLite: the index of amounts alone (transactions_amount_real) becomes an
// index of amount buckets (src/search/amount-bucket.ts): the amount's decade and
// first two digits, the row's search document number, the amount. Amounts
// arrive in no order, so every imported row entered the old index on a random
// page, and every unit of an import into a large ledger rewrote most of its
// pages: at a million rows it was the one index still random for rows dated
// after the ledger. New rows take numbers above every one in use (migration
// 0015), so they land at the end of their bucket (docs/performance.md, "The
// amount index"). PostgreSQL keeps its numeric index.
//
// The expression is written out here, as it was when this ran; amount-bucket.ts
// must build the same (a test checks that searches use this index).
import { sql, type Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

const BUCKET = `cast(case when cast(amount as real) > 0 then ((floor(log10(cast(amount as real))) + 400) * 90 + min(99, max(10, floor(cast(amount as real) / pow(10, floor(log10(cast(amount as real))) - 1)))) - 10) when cast(amount as real) < 0 then -((floor(log10(-cast(amount as real))) + 400) * 90 + min(99, max(10, floor(-cast(amount as real) / pow(10, floor(log10(-cast(amount as real))) - 1)))) - 10) else 0 end as integer)`

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  if (dialect !== 'sqlite') return
  await sql`drop index if exists transactions_amount_real`.execute(db)
  // An import that died with it dropped would otherwise build it again.
  await sql`delete from deferred_indexes where name = 'transactions_amount_real'`.execute(db)
  await sql
    .raw(
      `create index transactions_amount_bucket on transactions (${BUCKET}, search_n, cast(amount as real))`,
    )
    .execute(db)
}

// How many transactions each account holds, kept by the unit of work that
// inserts, deletes or moves them (src/ledger/transaction-counts.ts), so that a
// list's exact `total` is a read of one row per account rather than a count of
// the table: on PostgreSQL a count of a million rows took 58–107 ms, every page
// (docs/performance.md, "Lists: keyset cursors"). Filled here from the rows
// already there, and again after a restore (backup.ts), which leaves them out.
import { sql, type Kysely } from 'kysely'

/**
 * Counts every account's transactions again from the rows, for whatever wrote
 * rows outside the ledger (a restore; a benchmark's or a test's generator, on
 * its own driver).
 */
export const RECOUNT_TRANSACTIONS_SQL = [
  'delete from transaction_counts',
  `insert into transaction_counts (account_id, n)
     select account_id, count(*) from transactions group by account_id`,
] as const

export async function recountTransactions<T>(db: Kysely<T>): Promise<void> {
  for (const statement of RECOUNT_TRANSACTIONS_SQL) await sql.raw(statement).execute(db)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('transaction_counts')
    .addColumn('account_id', 'text', (c) => c.primaryKey())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .execute()
  await recountTransactions(db)
}

// Exact sums kept ahead of time for GET /transactions/summary (issue 13, item 9:
// a month × label summary of a million rows within 200 ms on SQLite, where a
// scan of every row costs about a second). SQLite only: PostgreSQL sums numeric
// in the database fast enough, and its writers run concurrently, which the
// queue below is not built for.
//
// summary_days holds, per day and account, the count and the exact inflow and
// outflow (decimal text) of every transaction (label_key '' and label_value '')
// and of those carrying each label value (label_key, label_value);
// summary_months the same per calendar month, summed from the days. A write
// only queues the (day, account) it touched in summary_pending, by the triggers
// below and the insert step of new transactions, whatever path wrote them; src/search/rollups.ts rebuilds queued days in
// short batches off the write path, and a summary recomputes the days still
// queued from the transactions, so an answer never depends on the backlog.
import { sql, type Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

/**
 * Queues one (day, account) unless it is queued already. Not `insert or
 * ignore`: a trigger's conflict clause yields to the outer statement's (an
 * upsert of a label), so the statement must not conflict at all.
 */
function queue(day: string, account: string, from = ''): string {
  return `insert into summary_pending (day, account_id) select ${day}, ${account} ${from}
     ${from ? 'and' : 'where'} not exists (select 1 from summary_pending where day = ${day} and account_id = ${account});`
}

/** The (day, account) of the transaction a label row belongs to (none once it is deleted). */
function queueLabelRow(row: 'new' | 'old'): string {
  return queue(
    'substr(t.date, 1, 10)',
    't.account_id',
    `from transactions t where t.id = ${row}.transaction_id`,
  )
}

const ROLLUP_COLUMNS = `label_key text not null, start text not null, account_id text not null,
  label_value text not null, count integer not null, inflow text not null, outflow text not null,
  primary key (label_key, start, account_id, label_value)`

const SQLITE_STATEMENTS = [
  // Read by label key and date range; rebuilt by (account, start).
  `create table summary_days (${ROLLUP_COLUMNS}) without rowid`,
  `create index summary_days_account on summary_days (account_id, start)`,
  `create table summary_months (${ROLLUP_COLUMNS}) without rowid`,
  `create index summary_months_account on summary_months (account_id, start)`,
  `create table summary_pending (day text not null, account_id text not null, primary key (day, account_id)) without rowid`,
  // New transactions queue their days in the unit that inserts them, in bulk
  // (summaryDaysStep in src/search/rollups.ts): a trigger per row
  // costs an import more. Changes and deletes are rarer: triggers queue them
  // (label changes: the ledger's write step since migration 0011).
  `create trigger summary_transactions_delete after delete on transactions begin
     ${queue('substr(old.date, 1, 10)', 'old.account_id')}
   end`,
  `create trigger summary_transactions_update after update of amount, date, account_id on transactions begin
     ${queue('substr(old.date, 1, 10)', 'old.account_id')}
     ${queue('substr(new.date, 1, 10)', 'new.account_id')}
   end`,
  `create trigger summary_labels_insert after insert on transaction_labels begin
     ${queueLabelRow('new')}
   end`,
  `create trigger summary_labels_delete after delete on transaction_labels begin
     ${queueLabelRow('old')}
   end`,
  `create trigger summary_labels_update after update on transaction_labels begin
     ${queueLabelRow('old')}
     ${queueLabelRow('new')}
   end`,
  // The rows already there: queued, built by the rollup worker.
  `insert into summary_pending (day, account_id)
     select distinct substr(date, 1, 10), account_id from transactions`,
]

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  if (dialect !== 'sqlite') return
  for (const statement of SQLITE_STATEMENTS) await sql.raw(statement).execute(db)
}

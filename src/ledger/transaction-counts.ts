// How many transactions each account holds (migration 0016), for the exact
// `total` of a list that no date or label filter narrows: the sum of a few kept
// rows instead of a count of the table, which on PostgreSQL costs 58–107 ms at a
// million rows whatever the page (docs/performance.md, "Lists: keyset cursors").
//
// Kept by the one mutation path: the insert, delete and move of transactions
// tell the unit how each account's count changes (countChange), and the unit
// writes the changes in one statement as it ends (writeCountChanges, from
// mutate.ts). Anything that writes transactions' rows outside the ledger (a
// restore, a benchmark's generator) counts them again (recountTransactions).
import { CompiledQuery, sql } from 'kysely'
import { chunksOf } from '../db/bulk.js'
import { dialectOf, type DbExecutor } from '../db/schema.js'
import type { UnitOfWork } from './unit-of-work.js'

const CHANGES = Symbol('transaction count changes')
/** Well under SQLite's 32,766 parameters. */
const ACCOUNTS_PER_STATEMENT = 1000

function changesOf(uow: UnitOfWork): Map<string, number> {
  return uow.memo(CHANGES, () => new Map<string, number>())
}

/** Adds `by` (negative for rows that leave) to the count of each account named, once per name. */
export function countChange(uow: UnitOfWork, accountIds: Iterable<string>, by: 1 | -1): void {
  const changes = changesOf(uow)
  for (const id of accountIds) changes.set(id, (changes.get(id) ?? 0) + by)
}

/** Moves of transactions from one account to another (each counted in both). */
export function countMoves(
  uow: UnitOfWork,
  moves: ReadonlyArray<{ from: string; to: string }>,
): void {
  countChange(
    uow,
    moves.map((m) => m.from),
    -1,
  )
  countChange(
    uow,
    moves.map((m) => m.to),
    1,
  )
}

/**
 * Writes the unit's count changes, accounts in id order so that two units
 * never wait for each other's rows in opposite orders (PostgreSQL). mutate.ts
 * calls it under the event append lock where the unit has events, which already
 * orders the units that write: the counts' rows add no wait of their own.
 */
export async function writeCountChanges(uow: UnitOfWork): Promise<void> {
  const changes = [...changesOf(uow)].filter(([, by]) => by !== 0)
  if (changes.length === 0) return
  changes.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  // Raw text, the same for the same number of accounts (mostly one): a manual
  // write pays for this statement, and Kysely's builder cost as much as running it.
  const postgres = dialectOf(uow.trx) === 'postgres'
  for (const chunk of chunksOf(changes, ACCOUNTS_PER_STATEMENT)) {
    const tuples = chunk.map((_, i) => (postgres ? `($${2 * i + 1}, $${2 * i + 2})` : '(?, ?)'))
    await uow.trx.executeQuery(
      CompiledQuery.raw(
        `insert into transaction_counts (account_id, n) values ${tuples.join(', ')}
         on conflict (account_id) do update set n = transaction_counts.n + excluded.n`,
        chunk.flat(),
      ),
    )
  }
}

/** The transactions of one account, or of every account. */
export async function keptTransactionCount(db: DbExecutor, accountId?: string): Promise<number> {
  let query = db
    .selectFrom('transaction_counts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), sql<number>`0`).as('n'))
  if (accountId !== undefined) query = query.where('account_id', '=', accountId)
  const row = await query.executeTakeFirstOrThrow()
  return Number(row.n)
}

export {
  recountTransactions,
  RECOUNT_TRANSACTIONS_SQL,
} from '../db/migrations/0016-transaction-counts.js'

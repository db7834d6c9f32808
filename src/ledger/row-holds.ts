// Units that write many transactions chosen by a query (an account's rows to
// delete, the rows holding a label key) hold them before they read them, so that
// on PostgreSQL a write racing the unit either ends before it (and is read) or
// waits for it, and the unit never writes from a stale read. On SQLite the unit's
// write lock already keeps every other writer out, and these locks do nothing.
import { lockTransactionRows, lockTransactionRowsNowait } from '../db/coordination.js'
import { lockEventAppends } from '../events/store.js'
import type { UnitOfWork } from './unit-of-work.js'

/**
 * Holds the rows `select` names, waiting for writers under way on them; then the
 * log's append lock, after which nothing else commits before this unit; then the
 * rows `select` names now (one added meanwhile), without waiting, since a unit
 * holding rows must not wait for more (RowsBusy: retryWhileRowsBusy tries again).
 * After it, `select` names the rows as they are at this unit's commit.
 */
export async function holdRowsAtCommit(
  uow: UnitOfWork,
  select: () => Promise<string[]>,
): Promise<void> {
  await lockTransactionRows(uow.trx, await select())
  await lockEventAppends(uow.trx)
  await lockTransactionRowsNowait(uow.trx, await select())
}

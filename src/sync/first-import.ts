// A first import into an empty ledger enters its rows without the ledger's
// secondary indexes and builds them at the run's end (db/deferred-indexes.ts):
// sorted once instead of entered row by row at random pages. Only indexes that
// the import itself never reads are deferred; the transaction ids (which a sync
// looks its rows up by), the history's and the search documents' keys stay.
// Meanwhile a list or search of another process answers the same, only slower.
import type { Logger } from 'pino'
import type { Db } from '../db/connect.js'
import { buildDeferredIndexes, deferIndexes } from '../db/deferred-indexes.js'
import { throwIfClosing } from '../signals.js'

/**
 * The ledger's secondary indexes whose keys a first import enters in random
 * order: dates and amounts (the bench's and a bank's rows are not sorted by
 * either), the text trigram index (PostgreSQL) and the event log's entity index.
 * Names of either engine; those the engine lacks are skipped.
 */
const FIRST_IMPORT_DEFERRED = [
  'transactions_date',
  'transactions_account_date',
  'transactions_amount_real',
  'transactions_date_amount_real',
  'transactions_amount_numeric',
  'transactions_text_trgm',
  'events_entity_id',
]

/** With the run's lock held: drops the deferrable indexes if the ledger holds no transaction yet. */
export async function deferIndexesIfFirstImport(db: Db, log: Logger, now: string): Promise<void> {
  const dropped = await deferIndexes(db, FIRST_IMPORT_DEFERRED, now, async (trx) => {
    const any = await trx.selectFrom('transactions').select('id').limit(1).executeTakeFirst()
    return any === undefined
  })
  // Debug: a scheduled sync of a ledger still empty defers (and builds) every time.
  if (dropped.length > 0) {
    log.debug({ indexes: dropped }, 'sync: first import; building these indexes at its end')
  }
}

/** A build at least this long is worth a line at info level (a first import of any size). */
const BUILD_WORTH_TELLING_MS = 1000

/**
 * Builds what a first import deferred (this run's, or one that died part-way).
 * A closing service stops between two indexes; the rest is built at the next
 * start or sync, and a failure is logged, not thrown: the run's rows are in.
 */
export async function buildIndexesDeferredByImport(
  db: Db,
  log: Logger,
  closing: AbortSignal | undefined,
): Promise<void> {
  const started = performance.now()
  try {
    const built = await buildDeferredIndexes(db, log, () => throwIfClosing(closing))
    const ms = Math.round(performance.now() - started)
    if (built > 0 && ms >= BUILD_WORTH_TELLING_MS)
      log.info({ indexes: built, ms }, 'sync: built the indexes a first import left to its end')
  } catch (error) {
    log.warn({ err: error }, 'sync: indexes left to build at the next start or sync')
  }
}

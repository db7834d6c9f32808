// A first import into an empty ledger enters its rows without the ledger's
// secondary indexes and builds them at the run's end (db/deferred-indexes.ts):
// sorted once instead of entered row by row at random pages. Only indexes that
// the import itself never reads are deferred: the transaction ids (which a sync
// looks its rows up by) stay. The history's and the search documents' keys go
// too unless a plugin is enabled: a plugin labels what the import writes while
// it runs, and finds each transaction's last version and document by those keys.
// Meanwhile a list or search of another process answers the same, only slower.
import type { ServiceContext } from '../context.js'
import { sharedSqliteFile } from '../db/connect.js'
import { buildDeferredIndexes, deferIndexes } from '../db/deferred-indexes.js'
import { anyPluginEnabled } from '../plugins/store.js'
import { throwIfClosing } from '../signals.js'
import { SYNC_UNIT_ROWS } from './merge-batch.js'

/**
 * The ledger's secondary indexes whose keys a first import enters in random
 * order: dates and amounts (the bench's and a bank's rows are not sorted by
 * either), the text trigram index (PostgreSQL) and the event log's entity index;
 * and SQLite's amount buckets, which grow at their ends, but which a million rows
 * entered one by one cost 10–15% more than one build at the end. Names of either
 * engine; those the engine lacks are skipped.
 */
const FIRST_IMPORT_DEFERRED = [
  'transactions_date',
  'transactions_account_date',
  'transactions_date_amount_real',
  'transactions_amount_bucket',
  'transactions_amount_numeric',
  'transactions_text_trgm',
  'events_entity_id',
]

/**
 * Keyed by transaction id (`csv:<hash>`, random order too) and deferred as well
 * when no plugin is enabled (migration 0014 made it droppable). The import
 * writes every transaction's first version without looking it up; what does
 * (a label or edit meanwhile, a transaction's history) scans the table until it
 * is built. The search documents are numbered on the rows (migration 0015), an
 * index that grows at its end: nothing to defer there.
 */
const FIRST_IMPORT_DEFERRED_KEYS = ['transaction_versions_key']

/**
 * One run's decision, taken at its first unit of rows: a full unit (an import
 * of at least SYNC_UNIT_ROWS rows) into a ledger that holds no transaction yet
 * drops the deferrable indexes. A smaller import, or one into a ledger that has
 * rows, keeps them: for a few thousand rows the drop and the build (DDL, which
 * also makes every prepared statement prepare again) cost more than they save.
 */
export class FirstImportIndexes {
  private decided = false

  constructor(
    private readonly ctx: ServiceContext,
    private readonly now: string,
  ) {}

  /** Before each unit of the run (mergeBatch's beforeUnit); the run's lock is held. */
  async beforeUnit(rows: number): Promise<void> {
    if (this.decided) return
    this.decided = true
    if (rows < SYNC_UNIT_ROWS) return
    const dropped = await deferIndexes(this.ctx.db, this.now, async (trx) => {
      const any = await trx.selectFrom('transactions').select('id').limit(1).executeTakeFirst()
      if (any !== undefined) return []
      return (await anyPluginEnabled(trx))
        ? FIRST_IMPORT_DEFERRED
        : [...FIRST_IMPORT_DEFERRED, ...FIRST_IMPORT_DEFERRED_KEYS]
    })
    if (dropped.length > 0) {
      this.ctx.log.info(
        { indexes: dropped },
        'sync: first import; building these indexes at its end',
      )
    }
  }
}

/**
 * Builds what a first import deferred (this run's, or one that died part-way).
 * A closing service stops between two indexes; the rest is built at the next
 * start or sync, and a failure is logged, not thrown: the run's rows are in.
 */
export async function buildIndexesDeferredByImport(ctx: ServiceContext): Promise<void> {
  const { db, log } = ctx
  const started = performance.now()
  try {
    const built = await buildDeferredIndexes(db, log, {
      beforeEach: () => throwIfClosing(ctx.signals.closing),
      sqliteFile: sharedSqliteFile(ctx.config.database),
    })
    const ms = Math.round(performance.now() - started)
    if (built > 0)
      log.info({ indexes: built, ms }, 'sync: built the indexes a first import left to its end')
  } catch (error) {
    log.warn({ err: error }, 'sync: indexes left to build at the next start or sync')
  }
}

// Builds the SQLite search documents (migration 0004) off the write path, the way
// PostgreSQL's GIN "fastupdate" keeps a pending list: writes queue a transaction
// id in search_pending, and this rebuilds the queued documents in batches. The
// narrowing counts every queued transaction as a candidate (narrow.ts), so a
// backlog makes some searches slower for a while, never wrong. PostgreSQL needs
// none of this: its trigram indexes are maintained by the database.
import { sql } from 'kysely'
import type { ServiceContext } from '../context.js'
import { buildsSearchDocuments } from '../db/dialect.js'
import type { DbExecutor } from '../db/schema.js'
import type { Ledger } from '../ledger/mutate.js'
import type { InsertStep } from '../ledger/unit-of-work.js'

/** Documents rebuilt per write transaction: short, so that ledger writes interleave. */
export const SEARCH_INDEX_BATCH = 2000
/** How often the queue is looked at; it also catches writes by other processes (coffer sync). */
const POLL_MS = 500

/**
 * The insert step (ledger/unit-of-work.ts) that queues the documents of new
 * transactions in the unit that inserts them. Changes and deletes are queued by
 * triggers (0004-search).
 */
export const searchDocumentsOfNewTransactions: InsertStep = {
  name: 'search documents',
  afterInsert: (uow, created) =>
    queueNewDocuments(
      uow.trx,
      created.map((tx) => tx.id),
    ),
}

/** Queues the documents of new transactions (none to queue where the database indexes by itself). */
export async function queueNewDocuments(db: DbExecutor, ids: readonly string[]): Promise<void> {
  if (ids.length === 0 || !buildsSearchDocuments(db)) return
  // A deleted transaction's id may still be queued when it is created again.
  await sql`insert into search_pending (transaction_id)
    select value from json_each(${JSON.stringify(ids)}) where true
    on conflict do nothing`.execute(db)
}

/**
 * Rebuilds up to `batch` queued documents in one unit of the one mutation path
 * (it emits no event: a document is derived data, not a ledger change); returns
 * how many were queued.
 */
export async function indexQueuedDocuments(
  ledger: Pick<Ledger, 'mutate'>,
  batch = SEARCH_INDEX_BATCH,
): Promise<number> {
  return ledger.mutate(async ({ trx }) => {
    const queued = await sql<{ transaction_id: string }>`
      select transaction_id from search_pending limit ${batch}`.execute(trx)
    if (queued.rows.length === 0) return 0
    // One JSON parameter for the whole batch, whatever its size.
    const ids = JSON.stringify(queued.rows.map((r) => r.transaction_id))
    const batchIds = sql`(select value from json_each(${ids}))`
    await sql`delete from search_text where rowid in
      (select n from search_documents where transaction_id in ${batchIds})`.execute(trx)
    await sql`delete from search_documents where transaction_id in ${batchIds}`.execute(trx)
    // A deleted transaction only loses its document.
    await sql`insert into search_documents (transaction_id)
      select id from transactions where id in ${batchIds}`.execute(trx)
    await sql`insert into search_text (rowid, description, payee, memo, id, labels, extensions)
      select d.n, t.description, t.payee, t.memo, t.id,
        (select group_concat(key || ':' || value, char(10)) from transaction_labels where transaction_id = t.id),
        (select group_concat(key || ' ' || value, char(10)) from transaction_extensions where transaction_id = t.id)
      from search_documents d join transactions t on t.id = d.transaction_id
      where d.transaction_id in ${batchIds}`.execute(trx)
    await sql`delete from search_pending where transaction_id in ${batchIds}`.execute(trx)
    return queued.rows.length
  })
}

/** Rebuilds queued documents until none is left; returns how many. */
export async function indexAllQueuedDocuments(ledger: Pick<Ledger, 'mutate'>): Promise<number> {
  let total = 0
  for (;;) {
    const done = await indexQueuedDocuments(ledger)
    total += done
    if (done < SEARCH_INDEX_BATCH) return total
    // Let requests and ledger writes in between batches.
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** In `coffer serve` on SQLite: drains the queue whenever it holds something. */
export class SearchIndexer {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<void> = Promise.resolve()

  constructor(private readonly ctx: ServiceContext) {}

  start(): void {
    if (!buildsSearchDocuments(this.ctx.db.kysely)) return
    void this.run()
    this.timer = setInterval(() => void this.run(), POLL_MS)
    this.timer.unref()
  }

  /** One pass now; passes never overlap. */
  run(): Promise<void> {
    this.running = this.running.then(async () => {
      try {
        const started = Date.now()
        const indexed = await indexAllQueuedDocuments(this.ctx.ledger)
        if (indexed >= SEARCH_INDEX_BATCH) {
          this.ctx.log.info(
            { documents: indexed, ms: Date.now() - started },
            'search: indexed queued documents',
          )
        }
      } catch (error) {
        this.ctx.log.error({ err: error }, 'search: indexing queued documents failed')
      }
    })
    return this.running
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    await this.running
  }
}

// Merges one source's batch into the ledger through the mutation path: the
// organizations and accounts first, then the streamed rows in large units of
// work (thousands of rows per database transaction, DESIGN "Speed"). Each unit is
// ledger/ingest.ts, which stamps `source` at insert, never rewrites it, leaves
// labels, extensions and relationships alone, refreshes synced_at and emits
// transaction.updated + a `synced` version only for a real change.
import type { ServiceContext } from '../context.js'
import { ingestBatchInUnit, type IngestHint, type IngestTransaction } from '../ledger/ingest.js'
import { keptTransactionCount } from '../ledger/transaction-counts.js'
import { throwIfClosing } from '../signals.js'
import type { Batch } from '../sources/source.js'
import type { SourceCounts } from './runs.js'

/** Rows per unit of work: large enough to amortise the commit, small enough to stay flat. */
export const SYNC_UNIT_ROWS = 5000

/**
 * When a sync writes its rows in id order (below): into a ledger that already
 * holds `fromRows` transactions, it reads up to `windowRows` rows ahead and
 * writes them sorted by id, a unit at a time.
 */
export interface IdOrder {
  fromRows: number
  windowRows: number
}

/**
 * The ids are hashes (SPEC 1.3: `csv:<hash>`), so rows in file order put each
 * unit's entries on random pages of every index keyed by the id (the id itself,
 * the history's key, the event log's entity index), indexes that in a large
 * ledger outgrow the page cache, and each commit writes every page its unit
 * touched. Sorted, each unit covers one slice of those indexes and a window
 * touches each page about once (docs/performance.md, "Imports in id order").
 * A small ledger's indexes fit the cache: there the rows go as read, without a
 * window held in memory.
 */
export const ID_ORDER: IdOrder = { fromRows: 100_000, windowRows: 50_000 }

/**
 * Rows to read ahead and sort before the next units, or 0 to write them as read.
 * The first unit goes as read and tells what the sync is: rows the ledger holds
 * already (a re-sync) stay in the file's order, which is the order they were
 * first written in and so the table's; a sync of mostly new rows is sorted.
 */
export function readAheadRows(
  order: IdOrder,
  ledgerRows: number,
  merged: number,
  inserted: number,
): number {
  return ledgerRows >= order.fromRows && merged > 0 && inserted * 2 >= merged ? order.windowRows : 0
}

const byId = (a: IngestTransaction, b: IngestTransaction): number =>
  a.id < b.id ? -1 : a.id > b.id ? 1 : 0

export async function mergeBatch(
  ctx: ServiceContext,
  source: string,
  batch: Batch,
  /** Filled as units commit, so a failure part-way still reports what was merged. */
  counts: SourceCounts,
  onRows: (merged: number) => void,
  /** Awaited before each unit of rows, with its size (first-import.ts). */
  beforeUnit: (rows: number) => Promise<void> = () => Promise.resolve(),
  order: IdOrder = ID_ORDER,
): Promise<void> {
  await ctx.ledger.mutate((uow) =>
    ingestBatchInUnit(uow, {
      source,
      organizations: batch.organizations,
      accounts: batch.accounts,
    }),
  )

  let merged = 0
  // Carried across units: a re-sync's first unit tells the next ones to try its fast path.
  const hint: IngestHint = { mostlyExisting: false }
  const flush = async (rows: IngestTransaction[]): Promise<void> => {
    // A closing service stops between units: each is all-or-nothing, so every
    // unit merged so far stays and the next sync resumes (docs/architecture.md).
    throwIfClosing(ctx.signals.closing)
    await beforeUnit(rows.length)
    const result = await ctx.ledger.mutate((uow) =>
      ingestBatchInUnit(uow, { source, transactions: rows }, hint),
    )
    counts.inserted += result.inserted
    counts.updated += result.updated
    // A row repeated within the unit collapses into one (SPEC 1.3 rule 2); count the
    // repeat as unchanged, as it would be had it fallen into the next unit.
    counts.unchanged += rows.length - result.inserted - result.updated
    merged += rows.length
    onRows(merged)
  }

  const ledgerRows = await keptTransactionCount(ctx.db.kysely)
  const readAhead = () => readAheadRows(order, ledgerRows, merged, counts.inserted)
  let pending: IngestTransaction[] = []
  /** Writes what is read so far in whole units (all of it at the end). */
  const writePending = async (all: boolean): Promise<void> => {
    if (readAhead() > 0) pending.sort(byId)
    let at = 0
    while (pending.length - at >= SYNC_UNIT_ROWS || (all && at < pending.length)) {
      await flush(pending.slice(at, at + SYNC_UNIT_ROWS))
      at += SYNC_UNIT_ROWS
    }
    pending = pending.slice(at)
  }
  for await (const rows of batch.transactions) {
    for (const row of rows) pending.push(row)
    if (pending.length >= Math.max(readAhead(), SYNC_UNIT_ROWS)) await writePending(false)
  }
  await writePending(true)
  counts.skipped = batch.summary().skipped
}

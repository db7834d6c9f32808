// Merges one source's batch into the ledger through the mutation path: the
// organizations and accounts first, then the streamed rows in large units of
// work (thousands of rows per database transaction, DESIGN "Speed"). Each unit is
// ledger/ingest.ts, which stamps `source` at insert, never rewrites it, leaves
// labels, extensions and relationships alone, refreshes synced_at and emits
// transaction.updated + a `synced` version only for a real change.
import type { ServiceContext } from '../context.js'
import { ingestBatchInUnit, type IngestHint, type IngestTransaction } from '../ledger/ingest.js'
import { throwIfClosing } from '../signals.js'
import type { Batch } from '../sources/source.js'
import type { SourceCounts } from './runs.js'

/** Rows per unit of work: large enough to amortise the commit, small enough to stay flat. */
export const SYNC_UNIT_ROWS = 5000

export async function mergeBatch(
  ctx: ServiceContext,
  source: string,
  batch: Batch,
  /** Filled as units commit, so a failure part-way still reports what was merged. */
  counts: SourceCounts,
  onRows: (merged: number) => void,
  /** Awaited before each unit of rows, with its size (first-import.ts). */
  beforeUnit: (rows: number) => Promise<void> = () => Promise.resolve(),
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

  let pending: IngestTransaction[] = []
  for await (const rows of batch.transactions) {
    for (const row of rows) pending.push(row)
    if (pending.length >= SYNC_UNIT_ROWS) {
      await flush(pending)
      pending = []
    }
  }
  if (pending.length > 0) await flush(pending)
  counts.skipped = batch.summary().skipped
}

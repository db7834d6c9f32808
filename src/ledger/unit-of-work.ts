// What every step of the one mutation path receives (mutate.ts runs it), and the
// seam through which other parts join the writes of transactions (WriteStep).
import type { Transaction } from 'kysely'
import type { Database } from '../db/schema.js'
import type { NewEvent } from '../events/types.js'
import type { TransactionJson } from './json.js'

export interface UnitOfWork {
  readonly trx: Transaction<Database>
  /** One timestamp for the whole unit: every row and event it writes shares it. */
  readonly now: string
  emit(event: NewEvent): void
  /** A value computed once per unit (under `key`) and shared by every step of it. */
  memo<T>(key: symbol, compute: () => T): T
  /** The steps that every insert and keyed-value change in this unit runs (Ledger.registerWriteStep). */
  readonly writeSteps: readonly WriteStep[]
  /** Who makes the change, when not a person or a source (`plugin:<name>`): history keeps it. */
  readonly actor?: string | undefined
}

/** Columns a write step adds to new transaction rows (WriteStep.rowColumns). */
export interface RowColumns {
  names: readonly string[]
  /** One list of values per row, in the order of `names`. */
  values: ReadonlyArray<readonly unknown[]>
}

/**
 * Work that must happen inside the unit of work that writes transactions, by sync
 * or by hand: the ledger's one insert path (transaction-insert.ts) runs every
 * registered step on every batch of new rows, and its one keyed-value writer
 * (keyed-values.ts) on every batch of label or extension changes, in
 * registration order. The composition root (app.ts) registers them; the ledger
 * knows none by name, so ledger/ imports nothing from the folders that supply
 * them.
 *
 * Today: search/indexer.ts numbers the new rows and writes their search
 * documents and queues the changed ones, search/rollups.ts queues the summary
 * days they touch, and rules/new-transactions.ts applies the enabled rules
 * (CONTRACT 8).
 *
 * A step that throws rolls the whole unit back: nothing of the batch is written.
 */
export interface WriteStep {
  /** Says which part the step belongs to, in logs and errors. */
  readonly name: string
  /**
   * Before anything is written: the new transactions as they are to be born. A
   * step may answer them with labels and extensions added (one entry per input,
   * in the same order); the ledger writes those through its keyed-value writer,
   * so the row is born with them: they are in its `transaction.created` snapshot
   * and its `imported` version, and one `label.applied` / `extension.set` event
   * per key follows the `transaction.created`. Core fields are the inserter's:
   * changes to them are ignored. Keys and values must already be valid (a rule's
   * were checked when it was stored).
   */
  amend?(uow: UnitOfWork, born: readonly TransactionJson[]): Promise<readonly TransactionJson[]>
  /**
   * Just before the rows are written (after `amend`): columns of the step's own
   * that the rows are written with, a value each per row in `born`'s order, or
   * null for none. The search documents' numbers (SQLite, migration 0015) go in
   * with the row, where a table of their own cost an index keyed by the random
   * transaction id.
   */
  rowColumns?(uow: UnitOfWork, born: readonly TransactionJson[]): Promise<RowColumns | null>
  /** After the rows, their labels, extensions and versions are written, in the same unit. */
  afterInsert?(uow: UnitOfWork, created: readonly TransactionJson[]): Promise<void>
  /**
   * Once the unit's work is done, before its events are appended and it
   * commits: for what a step gathered over the unit's batches (uow.memo) and
   * writes in one go.
   */
  beforeCommit?(uow: UnitOfWork): Promise<void>
  /**
   * After the labels or the extensions (`field`) of existing transactions changed,
   * in the same unit: `changed` holds each such transaction once, as it stands
   * after the change (a key removed from every holder gives their snapshots
   * without it). Not called for keys new rows are born with (afterInsert).
   */
  afterKeyedChange?(
    uow: UnitOfWork,
    field: 'labels' | 'extensions',
    changed: readonly TransactionJson[],
  ): Promise<void>
}

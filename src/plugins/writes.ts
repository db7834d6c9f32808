// What plugins write: label and extension changes, through the one mutation path
// with `plugin:<name>` as the actor. A page action writes at once (writeNow). The
// event hooks write in batches (WriteBatch): a change is checked against the
// transaction as it stands (with the batch's earlier changes over it) and
// answered at once, by the sandbox's worker for the transactions of the events
// it was handed (sandbox/worker.ts) or here for any other, and the batch is
// written in one unit of work after each slice of hooks (manager.ts), before the
// cursor moves past those events. One unit per batch instead of one per call is
// what lets a labelling plugin keep up with an import; a crash before the batch
// is written loses nothing, since its events are handed over again.
import type { ServiceContext } from '../context.js'
import { NotFound } from '../errors.js'
import { EXTENSIONS } from '../ledger/extensions.js'
import type { JsonValue, TransactionJson } from '../ledger/json.js'
import { writeKeyedValuesManyInUnit, type KeyedValueKind } from '../ledger/keyed-values.js'
import { LABELS } from '../ledger/labels.js'
import {
  findTransaction,
  findTransactionForChange,
  findTransactionsForChange,
} from '../ledger/snapshots.js'
import { applied, PendingChanges, type KeyedChange } from './changes.js'

const KINDS = [LABELS, EXTENSIONS] as unknown as ReadonlyArray<KeyedValueKind<JsonValue>>

/** Writes one change now, in a unit of its own; answers the transaction after it. */
export async function writeNow(
  ctx: ServiceContext,
  id: string,
  change: KeyedChange,
  actor: string,
): Promise<TransactionJson> {
  return ctx.ledger.mutate(
    async (uow) => {
      const before = await findTransactionForChange(uow.trx, id)
      if (!before) throw new NotFound(`transaction ${id} not found`)
      const [after] = await writeKeyedValuesManyInUnit(uow, KINDS, [
        { before, next: applied(before, [change]) },
      ])
      return after!
    },
    { actor },
  )
}

export class WriteBatch {
  private readonly pending = new PendingChanges()

  /** `previous`: a batch written while this one runs; its changes count as made until then. */
  constructor(private previous: WriteBatch | null = null) {}

  get size(): number {
    return this.pending.size
  }

  /** `tx` with this batch's changes over it (what the plugin reads back). */
  overlay(tx: TransactionJson): TransactionJson {
    // Once the previous batch is written it holds nothing, and the ledger has its changes.
    return this.pending.overlay(this.previous ? this.previous.overlay(tx) : tx)
  }

  /** Checks a change against the transaction as it stands and keeps it; answers the result. */
  async add(ctx: ServiceContext, id: string, change: KeyedChange): Promise<TransactionJson> {
    const current = await findTransaction(ctx.db.kysely, id)
    if (!current) throw new NotFound(`transaction ${id} not found`)
    return this.pending.add(this.previous ? this.previous.overlay(current) : current, change)
  }

  /** The changes kept and not written yet, by transaction. */
  kept(): Array<[id: string, changes: readonly KeyedChange[]]> {
    return this.pending.entries()
  }

  /** Keeps a change the sandbox's worker already checked and answered. */
  keep(id: string, change: KeyedChange): void {
    this.pending.keep(id, change)
  }

  /**
   * Writes every kept change in one unit of work (each on the transaction as it
   * stands then); answers a message for each change that could not be written.
   * A unit that fails as a whole is retried one transaction at a time, so one bad
   * change does not cost the others.
   */
  async flush(ctx: ServiceContext, actor: string): Promise<string[]> {
    // Batches are written in order: the one before this is written already.
    this.previous = null
    const batch = this.pending.take()
    if (batch.length === 0) return []
    const problems: string[] = []
    try {
      await ctx.ledger.mutate(
        async (uow) => {
          const befores = await findTransactionsForChange(
            uow.trx,
            batch.map(([id]) => id),
          )
          const changes = []
          for (const [id, pending] of batch) {
            const before = befores.get(id)
            if (!before) {
              problems.push(`transaction ${id} was deleted before its changes were written`)
              continue
            }
            changes.push({ before, next: applied(before, pending) })
          }
          await writeKeyedValuesManyInUnit(uow, KINDS, changes)
        },
        { actor },
      )
      return problems
    } catch {
      problems.length = 0
    }
    for (const [id, pending] of batch) {
      try {
        await ctx.ledger.mutate(
          async (uow) => {
            const before = await findTransactionForChange(uow.trx, id)
            if (!before) throw new NotFound(`transaction ${id} was deleted`)
            await writeKeyedValuesManyInUnit(uow, KINDS, [
              { before, next: applied(before, pending) },
            ])
          },
          { actor },
        )
      } catch (error) {
        problems.push(`writing to ${id} failed: ${(error as Error).message}`)
      }
    }
    return problems
  }
}

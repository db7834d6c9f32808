// A plugin's event hooks, a batch at a time (the HookTarget of hooks.ts): the
// batch runs in the plugin's worker, in slices, with the transactions its events
// are about, so that the worker answers reads and writes of them itself; what the
// hooks wrote is written in one unit of work while the worker runs the next batch.
// The transactions go only to a plugin that has read or written one: reading
// and handing them to hooks that never look cost five no-op plugins more of the
// write path than anything else they did (docs/performance.md, Plugins).
import type { Logger } from 'pino'
import type { ServiceContext } from '../context.js'
import type { EventEnvelope } from '../events/types.js'
import { jsonOf } from '../events/json.js'
import type { TransactionJson } from '../ledger/json.js'
import { findTransactions } from '../ledger/snapshots.js'
import type { PluginHealth } from './health.js'
import type { HookName } from './manifest.js'
import type { Plugin } from './plugin.js'
import type { PluginSandbox } from './sandbox/index.js'
import { PendingChanges } from './changes.js'
import { WriteBatch } from './writes.js'

/** Hook time after which a batch's writes are written, even mid-batch. */
const BATCH_WRITE_MS = 200
/** A plugin with one of these gets its events' transactions handed to its worker. */
const TRANSACTION_CAPABILITIES = ['transactions:read', 'labels:write', 'extensions:write'] as const

/** `tx` with the writes of `batch` (and the batch before it) over it; as it stands if they no longer fit. */
function overlaid(batch: WriteBatch, tx: TransactionJson): TransactionJson {
  try {
    return batch.overlay(tx)
  } catch {
    return tx
  }
}

/** Whether the plugin may read or write transactions (else its batches go without them). */
function mayTouchTransactions(plugin: Plugin): boolean {
  const capabilities = plugin.manifest?.capabilities ?? []
  return TRANSACTION_CAPABILITIES.some((c) => capabilities.includes(c))
}

/** The transaction an event hook's argument is about, if any. */
function transactionIdOf(arg: unknown): string | null {
  const event = arg as Partial<EventEnvelope>
  return event.entity_type === 'transaction' && typeof event.entity_id === 'string'
    ? event.entity_id
    : null
}

/** The transactions the hook arguments `args` are about. */
function transactionIdsOf(args: Iterable<unknown>): Set<string> {
  const ids = new Set<string>()
  for (const arg of args) {
    const id = transactionIdOf(arg)
    if (id !== null) ids.add(id)
  }
  return ids
}

/** Runs `work` on the plugin's sandbox in its turn, its host writes kept in `batch` (the manager's). */
export type InTurn = <T>(
  plugin: Plugin,
  batch: WriteBatch | null,
  work: (sandbox: PluginSandbox) => Promise<T>,
) => Promise<T | { problem: string }>

export class EventBatches {
  constructor(
    private readonly ctx: ServiceContext,
    private readonly health: PluginHealth,
    private readonly inTurn: InTurn,
    private readonly log: Logger,
  ) {}

  /**
   * Runs a batch of event hooks in the plugin's worker, in slices of at most
   * BATCH_WRITE_MS: the worker answers reads and writes of the events'
   * transactions itself. While it runs a slice, the writes of the slice (or
   * batch) before are written here: the two threads work side by side, and
   * neither waits for the other's part. The last slice's writes are written by
   * the next batch or by writePending. Answers how many calls, from the first,
   * were dealt with, and when their writes are written.
   */
  async runBatch(
    plugin: Plugin,
    calls: ReadonlyArray<{ hook: HookName; arg: unknown }>,
    signal: AbortSignal,
  ): Promise<{ ran: number; written: Promise<void> }> {
    let batch = new WriteBatch(plugin.unwritten?.batch ?? null)
    const encoded = calls.map(({ hook, arg }) => ({ hook, arg: jsonOf(arg) }))
    // The events' transactions, read once for the batch, each with the batch's writes over it.
    let known: Map<string, TransactionJson | null> | null = null
    // A call the worker was stuck on when it was ended: recorded, and not run again.
    const skipped = new Set<number>()
    let done = 0
    while (done < calls.length && !signal.aborted) {
      if (skipped.has(done)) {
        done++
        continue
      }
      const slice: number[] = []
      for (let i = done; i < calls.length; i++) if (!skipped.has(i)) slice.push(i)
      // Read before the last writes start: they would hold the connection.
      if (plugin.readsTransactions && known === null)
        known = await this.knownTransactions(
          plugin,
          slice.map((i) => calls[i]!.arg),
          batch,
        )
      const handed = known && this.inSlice(known, slice, calls)
      const sliceBatch = batch
      const running = this.inTurn(plugin, sliceBatch, async (sandbox) =>
        sandbox.runBatch(
          slice.map((i) => encoded[i]!),
          handed,
          BATCH_WRITE_MS,
          signal,
        ),
      )
      await this.writePending(plugin)
      const result = await running
      if ('problem' in result) {
        // No sandbox to run them in: each call fails with the reason, as a call would.
        this.health.countRuns(plugin, 'error', slice.length)
        await this.health.record(plugin, 'error', `${calls[done]!.hook}: ${result.problem}`)
        done = calls.length
        break
      }
      // The hooks are stopping (a shutdown, a disable): the batch's events run again when they start.
      if (result.status === 'stopped') break
      if (result.status === 'ended') {
        // The calls it had finished are run again (their writes went with the thread).
        const stuck = slice[result.completed]
        if (stuck !== undefined) {
          skipped.add(stuck)
          await this.health.recordOutcomes(plugin, [calls[stuck]!.hook], [result.failure])
        }
        continue
      }
      // From the next slice on, the worker has the transactions in hand.
      if (result.wantsKnown) plugin.readsTransactions = true
      if (result.outcomes.length === 0) break
      for (const { id, change } of result.writes) {
        sliceBatch.keep(id, change)
        const tx = known?.get(id)
        if (tx) known!.set(id, overlaid(sliceBatch, tx))
      }
      await this.health.recordOutcomes(
        plugin,
        slice.map((i) => calls[i]!.hook),
        result.outcomes,
      )
      done = slice[result.outcomes.length - 1]! + 1
      if (done < calls.length && !signal.aborted) {
        // This slice's writes are written while the next one runs, as a batch's are.
        plugin.unwritten = { batch: sliceBatch, written: () => undefined }
        batch = new WriteBatch(sliceBatch)
      }
    }
    await this.writePending(plugin)
    const written = new Promise<void>((resolve) => (plugin.unwritten = { batch, written: resolve }))
    return { ran: done, written }
  }

  /** The entries of `known` that the calls of `slice` are about (what the worker is handed). */
  private inSlice(
    known: Map<string, TransactionJson | null>,
    slice: readonly number[],
    calls: ReadonlyArray<{ arg: unknown }>,
  ): Array<[string, TransactionJson | null]> {
    const handed = new Map<string, TransactionJson | null>()
    for (const i of slice) {
      const id = transactionIdOf(calls[i]!.arg)
      if (id !== null && known.has(id)) handed.set(id, known.get(id)!)
    }
    return [...handed]
  }

  /**
   * The calls that run next (taken from the queue while this batch runs): their
   * transactions are read now, while the worker runs this batch, instead of
   * before the next batch with the worker idle. What is written from now on is
   * kept beside the read and laid over it when the batch runs (knownTransactions).
   */
  prepare(plugin: Plugin, calls: ReadonlyArray<{ arg: unknown }>): void {
    plugin.ahead = null
    if (!plugin.readsTransactions || !mayTouchTransactions(plugin)) return
    const ids = transactionIdsOf(calls.map(({ arg }) => arg))
    // A failed read is read again when the batch runs.
    const read = findTransactions(this.ctx.db.kysely, [...ids]).catch(() => null)
    plugin.ahead = { ids, read, writtenSince: new PendingChanges() }
  }

  /** Writes what the last batch of event hooks left unwritten (see runBatch). */
  async writePending(plugin: Plugin): Promise<void> {
    const unwritten = plugin.unwritten
    if (!unwritten) return
    plugin.unwritten = null
    await this.flush(plugin, unwritten.batch)
    unwritten.written()
  }

  /**
   * The transactions the events in `args` are about, as they stand, for the
   * worker to answer reads and writes of (null: there is none; none at all for
   * a plugin that may neither read nor write them).
   */
  private async knownTransactions(
    plugin: Plugin,
    args: readonly unknown[],
    batch: WriteBatch,
  ): Promise<Map<string, TransactionJson | null>> {
    const ahead = plugin.ahead
    plugin.ahead = null
    if (!mayTouchTransactions(plugin)) return new Map()
    const ids = transactionIdsOf(args)
    const readAhead = ahead && [...ids].every((id) => ahead.ids.has(id)) ? await ahead.read : null
    // Written since the read began: the read may not have them, the batches no longer hold them.
    const since = readAhead ? ahead!.writtenSince : null
    const found = readAhead ?? (await findTransactions(this.ctx.db.kysely, [...ids]))
    return new Map(
      [...ids].map((id) => {
        const tx = found.get(id)
        return [id, tx ? overlaid(batch, since ? since.overlay(tx) : tx) : null]
      }),
    )
  }

  private async flush(plugin: Plugin, batch: WriteBatch): Promise<void> {
    const changes = batch.kept()
    const problems = await batch.flush(this.ctx, `plugin:${plugin.name}`)
    // A read ahead begun before this write ended may not have it (prepare).
    const since = plugin.ahead?.writtenSince
    if (since) for (const [id, kept] of changes) for (const change of kept) since.keep(id, change)
    if (problems.length > 0) {
      this.log.warn({ plugin: plugin.name, problems }, 'plugins: some changes were not written')
      await this.health.record(plugin, 'error', `writing its changes: ${problems[0]}`)
    }
  }
}

// A plugin's event hooks, fed from the durable log (CONTRACT 9): each enabled
// plugin follows the log with its own cursor through followEvents, the same
// consumer the webhook dispatcher uses, so it runs every event at least once
// across restarts and misses nothing while disabled or down. Between the
// follower and the plugin sits a bounded queue (plugins.queue_size): when the
// plugin is slow the follower waits, and the bus, which never blocks writers,
// drops it and it replays from the log later. A hook that fails is recorded and
// the cursor moves on, once what the batch's hooks wrote is written (the target
// writes a batch's writes while the next batch runs). The cursor is saved every
// second and at stop.
import type { ServiceContext } from '../context.js'
import { startBulkWrites } from '../db/bulk.js'
import { followEventBatches } from '../events/follow.js'
import type { EventEnvelope } from '../events/types.js'
import type { HookName } from './manifest.js'

const CURSOR_SAVE_INTERVAL_MS = 1_000
const FOLLOW_RETRY_DELAY_MS = 1_000
/**
 * How long a backlog's bulk-write settings outlive a short batch: the plugin
 * that caught up with a sync waits a moment for its next unit, and should find
 * the page cache still warm (db/bulk.ts startBulkWrites).
 */
const BULK_SETTLE_MS = 2_000

/** Which hook an event type feeds, and what the hook is given. */
export const EVENT_HOOKS: Record<string, { hook: HookName; arg: (e: EventEnvelope) => unknown }> = {
  'transaction.created': { hook: 'onTransactionCreate', arg: (e) => e },
  'transaction.updated': { hook: 'onTransactionUpdate', arg: (e) => e },
  'transaction.deleted': { hook: 'onTransactionDelete', arg: (e) => e },
  'sync.completed': { hook: 'onSyncComplete', arg: (e) => e.data },
}

/** Events taken from the queue, and the hook calls they feed (callEvent: each call's event). */
interface Batch {
  events: EventEnvelope[]
  calls: Array<{ hook: HookName; arg: unknown }>
  callEvent: number[]
  full: boolean
}

export interface HookTarget {
  readonly name: string
  readonly hooks: readonly HookName[]
  /**
   * Runs hooks one after the other, recording their outcomes; stops early once
   * `signal` is aborted (a shutdown). Answers how many calls ran, and when what
   * they wrote is written (at the latest when the next batch runs, or at
   * writePending); never throws.
   */
  runBatch(
    calls: ReadonlyArray<{ hook: HookName; arg: unknown }>,
    signal: AbortSignal,
  ): Promise<{ ran: number; written: Promise<void> }>
  /**
   * The calls that run in the next batch, taken while this one runs (a
   * backlog): the target may read what they need meanwhile.
   */
  prepare?(calls: ReadonlyArray<{ hook: HookName; arg: unknown }>): void
  /** Writes what the last batch left unwritten now. */
  writePending(): Promise<void>
  saveCursor(sequence: number): Promise<void>
}

/**
 * The most events handed to a plugin at once: a batch starts at what the queue
 * holds and doubles while batches come full (a backlog, such as an import's
 * events), and its writes share a unit of work. Each label a plugin writes
 * dirties a random page of four indexes keyed by transaction id (its row's key
 * and key/value entries, its version's key, its event's entity index), and a
 * unit writes each dirty page once: labelling 100k imported rows wrote 4.6
 * pages of WAL per label in units of 256, 3.1 in units of 1,024 and 1.4 in units
 * of 4,096 (docs/performance.md, Plugins). Since the follower reads a whole
 * batch of the log at a time (follow below), batches of 4,096 stay full through
 * an import's backlog (45 units for 100k rows, against 67 mostly short ones of
 * up to 1,024): the plugin keeps pace with the import and drains about 3%
 * sooner; the hook throughput of a short backlog did not move. A unit of 4,096
 * labels takes about as long as a sync's unit of 5,000 rows, with which it
 * takes turns on the writer.
 */
export const HOOK_BATCH_EVENTS = 4_096

/**
 * How long the hook loop waits for the follower to fill the queue again while
 * it gathers a backlog's batch; the follower reads the log in pages, so a
 * refill takes a few milliseconds unless the backlog has ended.
 */
const REFILL_WAIT_MS = 10

/** A bounded hand-over between the follower and the hook loop. */
class BoundedQueue<T> {
  private readonly items: T[] = []
  private wakeTaker: (() => void) | null = null
  private wakeGiver: (() => void) | null = null
  private wakeFull: ((full: boolean) => void) | null = null
  private closed = false

  constructor(private readonly size: number) {}

  /** Adds `item` at once when there is room (and answers true), without a turn of its own. */
  tryPut(item: T): boolean {
    if (this.items.length >= this.size && !this.closed) return false
    this.items.push(item)
    this.wakeTaker?.()
    if (this.items.length >= this.size) this.wakeFull?.(true)
    return true
  }

  async put(item: T): Promise<void> {
    while (!this.tryPut(item)) await new Promise<void>((resolve) => (this.wakeGiver = resolve))
  }

  /** Up to `max` items that wait now, without waiting for more. */
  takeWaiting(max: number): T[] {
    const items = this.items.splice(0, max)
    if (items.length > 0) this.wakeGiver?.()
    return items
  }

  /**
   * `first` (just taken) and up to `max` items in all: those waiting now and,
   * while the queue was full each time it was emptied (the giver has a backlog
   * to hand over), those that follow as it fills up again, each refill waited
   * for at most `refillMs`. A queue of one is never seen full: it would wait
   * out every refill.
   */
  async takeBacklog(first: T, max: number, refillMs: number): Promise<T[]> {
    let full = this.size > 1 && this.items.length + 1 >= this.size
    const items = [first, ...this.takeWaiting(max - 1)]
    while (full && items.length < max && !this.closed) {
      full = await this.whenFull(refillMs)
      items.push(...this.takeWaiting(max - items.length))
    }
    return items
  }

  /** Resolves true once the queue is full, false after `ms` or at close. */
  private whenFull(ms: number): Promise<boolean> {
    if (this.items.length >= this.size) return Promise.resolve(true)
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeFull = null
        resolve(false)
      }, ms)
      this.wakeFull = (full) => {
        clearTimeout(timer)
        this.wakeFull = null
        resolve(full)
      }
    })
  }

  /** The next item, or null once closed and empty. */
  async take(): Promise<T | null> {
    while (this.items.length === 0) {
      if (this.closed) return null
      await new Promise<void>((resolve) => (this.wakeTaker = resolve))
    }
    const item = this.items.shift()!
    this.wakeGiver?.()
    return item
  }

  close(): void {
    this.closed = true
    this.wakeTaker?.()
    this.wakeGiver?.()
    this.wakeFull?.(false)
  }

  get length(): number {
    return this.items.length
  }
}

export class HookRunner {
  private readonly abort = new AbortController()
  private readonly queue: BoundedQueue<EventEnvelope>
  private following: Promise<void> = Promise.resolve()
  private working: Promise<void> = Promise.resolve()
  private saveTimer: NodeJS.Timeout | null = null
  private savedCursor: number
  private handled: number
  /** The last sequence handed to the queue: a retried follow resumes after it. */
  private queued: number
  private waiters: Array<{ sequence: number; resolve: () => void }> = []
  /** Resolves once every batch handed over so far is written (the cursor follows it). */
  private written: Promise<void> = Promise.resolve()
  /** Ends the bulk-write stretch held while working through a backlog (null: none held). */
  private endBulk: ((immediately?: boolean) => Promise<void>) | null = null
  /** The backlog being worked through (while endBulk is held): since when, and events taken so far. */
  private backlog: { startedAt: number; events: number } | null = null
  /** The next batch's size: doubles while batches come full (a backlog), from the queue's size. */
  private batchEvents: number

  constructor(
    private readonly ctx: ServiceContext,
    private readonly target: HookTarget,
    cursor: number,
  ) {
    this.queue = new BoundedQueue(ctx.config.plugins.queue_size)
    this.batchEvents = Math.min(ctx.config.plugins.queue_size, HOOK_BATCH_EVENTS)
    this.savedCursor = cursor
    this.handled = cursor
    this.queued = cursor
  }

  start(): void {
    this.following = this.follow()
    this.working = this.work()
    this.saveTimer = setInterval(() => void this.save(), CURSOR_SAVE_INTERVAL_MS)
    this.saveTimer.unref()
  }

  /** Stops following, lets the hook in flight finish, saves the cursor. */
  async stop(): Promise<void> {
    this.abort.abort()
    this.queue.close()
    await this.following
    await this.working
    await this.written
    await this.bulk(false, true)
    if (this.saveTimer) clearInterval(this.saveTimer)
    await this.save()
  }

  /** The last event sequence dealt with. */
  get cursor(): number {
    return this.handled
  }

  /** Resolves once every event up to `sequence` has been dealt with (tests, benchmarks). */
  whenHandled(sequence: number): Promise<void> {
    if (this.handled >= sequence) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push({ sequence, resolve }))
  }

  private async follow(): Promise<void> {
    const signal = this.abort.signal
    while (!signal.aborted) {
      try {
        const batches = followEventBatches({
          db: this.ctx.db.kysely,
          bus: this.ctx.bus,
          after: this.queued,
          signal,
          // A backlog's next batch is gathered while the batch before is written,
          // when the log cannot be read (SQLite's one connection is the writer's):
          // a page of a whole batch keeps it coming from memory meanwhile.
          pageEvents: HOOK_BATCH_EVENTS,
        })
        for await (const events of batches) {
          for (const event of events) {
            if (!this.queue.tryPut(event)) await this.queue.put(event)
            this.queued = event.sequence
            if (signal.aborted) return
          }
        }
      } catch (error) {
        if (signal.aborted) return
        this.ctx.log.error(
          { err: error, plugin: this.target.name },
          'plugins: reading the event log failed; retrying',
        )
        await new Promise((resolve) => setTimeout(resolve, FOLLOW_RETRY_DELAY_MS))
      }
    }
  }

  /**
   * Runs the queue's events a batch at a time (nextBatch): their hooks run in
   * order and what they write is written together; then the cursor moves past
   * the whole batch. In a backlog the next batch is taken while one runs, so
   * that the target can read for it meanwhile (HookTarget.prepare).
   */
  private async work(): Promise<void> {
    const signal = this.abort.signal
    // The next batch, taken while the one before ran (a backlog).
    let ahead: Promise<Batch | null> | null = null
    for (;;) {
      // A stop ends the work here: events still queued (or taken ahead) are handed over again after it.
      if (signal.aborted) return await this.target.writePending()
      // Nothing waiting to run beside them: the last batch's writes are written now.
      if (!ahead && this.queue.length === 0) await this.target.writePending()
      const batch = ahead ? await ahead : await this.nextBatch()
      ahead = null
      if (batch === null) return await this.target.writePending()
      const { events, calls, callEvent, full } = batch
      // A full batch means a backlog (an import's events): working through it is
      // bulk writing, like the sync that made it, until a batch comes up short.
      await this.bulk(full)
      if (this.backlog) this.backlog.events += events.length
      const running =
        calls.length > 0
          ? this.target.runBatch(calls, signal)
          : Promise.resolve({ ran: 0, written: Promise.resolve() })
      // While it runs, the next batch of a backlog is taken, and the target reads for it.
      if (calls.length > 0 && this.queue.length > 0 && this.target.prepare)
        ahead = this.nextBatch().then((next) => {
          try {
            if (next && next.calls.length > 0) this.target.prepare!(next.calls)
          } catch {
            // Reading ahead only saves time: the batch reads what it needs when it runs.
          }
          return next
        })
      const { ran, written } = await running
      // Past every event whose hook ran (and those that feed none), up to the first
      // that did not, once what they wrote is written (after the batches before).
      const firstNotRun = ran < calls.length ? callEvent[ran]! : events.length
      const sequence = firstNotRun > 0 ? events[firstNotRun - 1]!.sequence : null
      this.written = Promise.all([this.written, written]).then(() => {
        if (sequence !== null && sequence > this.handled) this.handled = sequence
        this.wake()
      })
      if (firstNotRun < events.length) return await this.target.writePending()
    }
  }

  /**
   * Takes the next event and every one waiting behind it, and in a backlog those
   * that follow (up to a batch, see HOOK_BATCH_EVENTS); null once the queue is
   * closed.
   */
  private async nextBatch(): Promise<Batch | null> {
    const first = await this.queue.take()
    if (first === null) return null
    const events = await this.queue.takeBacklog(first, this.batchEvents, REFILL_WAIT_MS)
    const full = events.length === this.batchEvents
    this.batchEvents = full
      ? Math.min(this.batchEvents * 2, HOOK_BATCH_EVENTS)
      : Math.min(this.ctx.config.plugins.queue_size, HOOK_BATCH_EVENTS)
    const calls = []
    const callEvent: number[] = []
    for (const [index, event] of events.entries()) {
      const feeds = EVENT_HOOKS[event.type]
      if (!feeds || !this.target.hooks.includes(feeds.hook)) continue
      calls.push({ hook: feeds.hook, arg: feeds.arg(event) })
      callEvent.push(index)
    }
    return { events, calls, callEvent, full }
  }

  /** Bulk-write settings on or off; off settles first unless `immediately` (db/bulk.ts). */
  private async bulk(on: boolean, immediately = false): Promise<void> {
    this.logBacklog(on, immediately ? 'stopped while working through' : 'caught up with')
    try {
      if (on && !this.endBulk)
        this.endBulk = await startBulkWrites(this.ctx.db.kysely, { settleMs: BULK_SETTLE_MS })
      else if (!on && this.endBulk) {
        const end = this.endBulk
        this.endBulk = null
        await end(immediately)
      }
    } catch (error) {
      this.ctx.log.warn(
        { err: error, plugin: this.target.name },
        'plugins: bulk-write settings failed',
      )
    }
  }

  /** A line when a backlog starts and one when it has been worked through (long work is logged). */
  private logBacklog(on: boolean, ended: string): void {
    const plugin = this.target.name
    if (on && !this.backlog) {
      this.backlog = { startedAt: performance.now(), events: 0 }
      this.ctx.log.info(
        { plugin, after: this.handled },
        'plugins: working through a backlog of events',
      )
    } else if (!on && this.backlog) {
      const seconds = (performance.now() - this.backlog.startedAt) / 1000
      const { events } = this.backlog
      this.backlog = null
      this.ctx.log.info(
        { plugin, events, seconds: Number(seconds.toFixed(1)), cursor: this.handled },
        `plugins: ${ended} a backlog: ${events} events in ${seconds.toFixed(1)} s`,
      )
    }
  }

  private wake(): void {
    if (this.waiters.length === 0) return
    const waiting: typeof this.waiters = []
    for (const waiter of this.waiters) {
      if (waiter.sequence <= this.handled) waiter.resolve()
      else waiting.push(waiter)
    }
    this.waiters = waiting
  }

  private async save(): Promise<void> {
    const sequence = this.handled
    if (sequence === this.savedCursor) return
    try {
      await this.target.saveCursor(sequence)
      this.savedCursor = sequence
    } catch (error) {
      this.ctx.log.warn(
        { err: error, plugin: this.target.name },
        'plugins: saving the cursor failed',
      )
    }
  }
}

// The dispatcher's place in the event log, kept in the database so that a restart
// neither loses events nor floods receivers with old ones (SPEC 6.3, CONTRACT 6).
import type { DbExecutor } from '../db/schema.js'

const CURSOR_ID = 'dispatcher'

/** The stored sequence, or null before the dispatcher first ran. */
export async function loadCursor(db: DbExecutor): Promise<number | null> {
  const row = await db
    .selectFrom('webhook_cursor')
    .select('sequence')
    .where('id', '=', CURSOR_ID)
    .executeTakeFirst()
  return row ? Number(row.sequence) : null
}

export async function saveCursor(db: DbExecutor, sequence: number, now: string): Promise<void> {
  await db
    .insertInto('webhook_cursor')
    .values({ id: CURSOR_ID, sequence, updated_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ sequence, updated_at: now }))
    .execute()
}

/**
 * The low-water mark of dealt-with events: the highest sequence at or below
 * which every event has been delivered, given up on, dropped, or matched no
 * webhook. Events are handed out in log order, but a webhook seen late is sent
 * older events afterwards, so unsettled jobs are kept per sequence, in any order.
 */
export class Watermark {
  /** Unsettled jobs per event sequence. */
  private readonly outstanding = new Map<number, number>()
  private waiters: Array<{ sequence: number; resolve: () => void }> = []

  constructor(private lastHandled: number) {}

  /** The newest event handed out so far. */
  get handled(): number {
    return this.lastHandled
  }

  value(): number {
    let lowest = Infinity
    for (const sequence of this.outstanding.keys()) lowest = Math.min(lowest, sequence)
    return lowest === Infinity ? this.lastHandled : Math.min(lowest - 1, this.lastHandled)
  }

  /** `jobs` more jobs wait for the event at `sequence`. */
  add(sequence: number, jobs: number): void {
    if (jobs > 0) this.outstanding.set(sequence, (this.outstanding.get(sequence) ?? 0) + jobs)
  }

  /** Every event up to `sequence` has been looked at (its jobs, if any, added). */
  handledUpTo(sequence: number): void {
    this.lastHandled = Math.max(this.lastHandled, sequence)
    this.wake()
  }

  /** One job of the event at `sequence` is done with. */
  settle(sequence: number): void {
    const left = (this.outstanding.get(sequence) ?? 1) - 1
    if (left > 0) this.outstanding.set(sequence, left)
    else this.outstanding.delete(sequence)
    this.wake()
  }

  /** Resolves once every event up to `sequence` has been dealt with. */
  whenSettled(sequence: number): Promise<void> {
    if (this.value() >= sequence) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push({ sequence, resolve }))
  }

  private wake(): void {
    if (this.waiters.length === 0) return
    const mark = this.value()
    const waiting: typeof this.waiters = []
    for (const waiter of this.waiters) {
      if (waiter.sequence <= mark) waiter.resolve()
      else waiting.push(waiter)
    }
    this.waiters = waiting
  }
}

// Event retention (SPEC 8): with events.retention_days > 0, events older than that
// are pruned once at start and then every 6 hours; 0 keeps them forever. A
// consumer whose cursor now points below the oldest kept event just goes on from
// the oldest one (a page of the log reads `sequence > cursor`), so SSE clients and
// the webhook dispatcher need nothing special.
import type { EventsContext } from './context.js'
import { formatInstant } from '../clock.js'

export const RETENTION_INTERVAL_MS = 6 * 60 * 60 * 1000
const DAY_MS = 24 * 60 * 60 * 1000
// Small deletes keep each write transaction short, so ledger writes interleave.
const PRUNE_CHUNK_EVENTS = 5_000

/** Deletes events that occurred before `retentionDays` days ago; returns how many. */
export async function pruneEvents(
  ctx: Pick<EventsContext, 'db' | 'clock'>,
  retentionDays: number,
): Promise<number> {
  if (retentionDays <= 0) return 0
  // occurred_at is fixed-width UTC text, so text order is time order.
  const cutoff = formatInstant(new Date(ctx.clock.now().getTime() - retentionDays * DAY_MS))
  const db = ctx.db.kysely
  let total = 0
  for (;;) {
    // Index: events_occurred_at.
    const result = await db
      .deleteFrom('events')
      .where('sequence', 'in', (eb) =>
        eb
          .selectFrom('events')
          .select('sequence')
          .where('occurred_at', '<', cutoff)
          .limit(PRUNE_CHUNK_EVENTS),
      )
      .executeTakeFirst()
    const deleted = Number(result.numDeletedRows)
    total += deleted
    if (deleted < PRUNE_CHUNK_EVENTS) return total
  }
}

/** Runs pruneEvents at start and on the schedule; reads retention_days each time. */
export class EventRetention {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<void> = Promise.resolve()

  constructor(private readonly ctx: EventsContext) {}

  start(): void {
    void this.run()
    this.timer = setInterval(() => void this.run(), RETENTION_INTERVAL_MS)
    this.timer.unref()
  }

  /** One pass now; passes never overlap. */
  run(): Promise<void> {
    this.running = this.running.then(async () => {
      const days = this.ctx.config.events.retention_days
      if (days <= 0) return
      try {
        const pruned = await pruneEvents(this.ctx, days)
        if (pruned > 0)
          this.ctx.log.info({ pruned, retention_days: days }, 'events: pruned old events')
      } catch (error) {
        this.ctx.log.error({ err: error }, 'events: pruning old events failed')
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

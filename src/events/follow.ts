// The one durable consumer: replay the log after a sequence, then follow the bus
// live, without a gap or a duplicate. When the bus drops it for lagging, it
// replays the gap from the log and subscribes again: replay is the normal path.
// SSE, webhooks and plugins all read events through this.
import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import type { EventBus } from './bus.js'
import { readEventPage, type EventFilter } from './store.js'
import type { EventEnvelope } from './types.js'

/**
 * Events read from the log at once while replaying, unless the consumer asks
 * for another size; a page of large events stops sooner (EVENT_PAGE_BYTES).
 */
const REPLAY_PAGE_EVENTS = 500

export interface FollowOptions {
  db: Kysely<Database>
  bus: EventBus
  after: number
  filter?: EventFilter
  signal: AbortSignal
  /** Events per replayed page at most (REPLAY_PAGE_EVENTS when unset). */
  pageEvents?: number
}

function matches(filter: EventFilter, event: EventEnvelope): boolean {
  return (
    (filter.type === undefined || filter.type === event.type) &&
    (filter.entity_type === undefined || filter.entity_type === event.entity_type) &&
    (filter.entity_id === undefined || filter.entity_id === event.entity_id)
  )
}

export async function* followEvents(options: FollowOptions): AsyncGenerator<EventEnvelope> {
  for await (const events of followEventBatches(options)) yield* events
}

/**
 * followEvents in batches: a replayed page, or the live events that arrived
 * together. For a consumer that hands events on in bulk (plugin hooks), one
 * turn per batch instead of one per event.
 */
export async function* followEventBatches(options: FollowOptions): AsyncGenerator<EventEnvelope[]> {
  const { db, bus, signal } = options
  const filter = options.filter ?? {}
  const pageEvents = options.pageEvents ?? REPLAY_PAGE_EVENTS
  let last = options.after
  while (!signal.aborted) {
    // Subscribe before reading the log: anything committed from here on is either
    // in the replay or in the buffer, and `last` removes the overlap.
    const sub = bus.subscribe()
    const stop = () => sub.close()
    signal.addEventListener('abort', stop, { once: true })
    try {
      for (;;) {
        const { events: page, more } = await readEventPage(db, last, pageEvents, filter)
        if (signal.aborted) return
        if (page.length > 0) {
          yield page
          last = page[page.length - 1]!.sequence
        }
        // A page cut short by its byte budget is not the end of the log.
        if (!more) break
      }
      for (;;) {
        const first = await sub.next()
        if (first === null) break
        const live = [first, ...sub.takeBuffered()].filter((e) => e.sequence > last)
        if (live.length === 0) continue
        const wanted = live.filter((e) => matches(filter, e))
        if (signal.aborted) return
        if (wanted.length > 0) yield wanted
        // Bus order is sequence order, so a non-matching event moves the cursor too.
        last = live[live.length - 1]!.sequence
      }
    } finally {
      signal.removeEventListener('abort', stop)
      sub.close()
    }
  }
}

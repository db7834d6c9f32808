// Reading the event log through REST and MCP (CONTRACT 6 "Events query").
import type { EventsContext } from './context.js'
import { NotFound, Unavailable } from '../errors.js'
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '../page.js'
import { readEvent, readEventsAfter, readNewestEvents, type EventFilter } from './store.js'
import type { EventEnvelope } from './types.js'

export function requireEventsEnabled(ctx: EventsContext): void {
  if (!ctx.config.events.enabled)
    throw new Unavailable('the event log is turned off (events.enabled = false)')
}

export interface EventListInput extends EventFilter {
  after?: number | undefined
  limit?: number | undefined
  newest?: number | undefined
}

export async function listEvents(
  ctx: EventsContext,
  input: EventListInput,
): Promise<{ events: EventEnvelope[]; next: number }> {
  requireEventsEnabled(ctx)
  const after = input.after ?? 0
  const filter: EventFilter = {
    type: input.type,
    entity_type: input.entity_type,
    entity_id: input.entity_id,
  }
  const db = ctx.db.kysely
  // Either page may hold fewer events than asked for when they are large
  // (EVENT_PAGE_BYTES); `next` says where it ended.
  const events =
    input.newest !== undefined
      ? await readNewestEvents(db, Math.min(input.newest, LIST_LIMIT_MAX), filter)
      : await readEventsAfter(
          db,
          after,
          Math.min(input.limit ?? LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX),
          filter,
        )
  const last = events.at(-1)
  return { events, next: last ? last.sequence : after }
}

export async function getEvent(ctx: EventsContext, sequence: number): Promise<EventEnvelope> {
  requireEventsEnabled(ctx)
  const event = await readEvent(ctx.db.kysely, sequence)
  if (!event) throw new NotFound(`event ${sequence} not found`)
  return event
}

// The catalogue of event types (SPEC 6.2, CONTRACT 6 and 8) and the envelope (SPEC 2.6).

export { ENTITY_TYPES, EVENT_TYPES, type EntityType, type EventType } from '../schemas/events.js'
import type { EntityType, EventType } from '../schemas/events.js'

/** An event as a unit of work records it, before the log gives it a sequence. */
export interface NewEvent {
  type: EventType
  entity_type: EntityType
  entity_id: string
  data: unknown
}

/** The envelope (SPEC 2.6) is the response schema of GET /events/{sequence}. */
export type { EventEnvelope } from '../schemas/events.js'

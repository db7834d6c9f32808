// The durable event log (SPEC 6.1): append-only, ordered by `sequence`.
import type { Generated, Selectable } from 'kysely'

export interface EventsTable {
  sequence: Generated<number>
  event_id: string
  type: string
  entity_type: string
  entity_id: string
  occurred_at: string
  /** The event's `data` as JSON text. */
  data: string
}

export interface EventTables {
  events: EventsTable
}

export type EventRow = Selectable<EventsTable>

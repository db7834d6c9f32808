// The catalogue of event types (SPEC 6.2, CONTRACT 6 and 8) and the envelope (SPEC 2.6).

export const EVENT_TYPES = [
  'transaction.created',
  'transaction.updated',
  'transaction.deleted',
  'account.created',
  'account.updated',
  'account.deleted',
  'label.applied',
  'label.removed',
  'extension.set',
  'extension.removed',
  'relationship.created',
  'relationship.removed',
  'rule.created',
  'rule.updated',
  'rule.deleted',
  'rule.executed',
  'sync.completed',
] as const

export type EventType = (typeof EVENT_TYPES)[number]

export const ENTITY_TYPES = ['transaction', 'account', 'rule', 'label', 'sync'] as const

export type EntityType = (typeof ENTITY_TYPES)[number]

/** An event as a unit of work records it, before the log gives it a sequence. */
export interface NewEvent {
  type: EventType
  entity_type: EntityType
  entity_id: string
  data: unknown
}

/** The envelope (SPEC 2.6) is the response schema of GET /events/{sequence}. */
export type { EventEnvelope } from '../schemas/events.js'

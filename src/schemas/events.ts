// The event log (SPEC 2.6, 6.3; CONTRACT 6) and its SSE tail (SPEC 4.6): the
// envelope, the list query and each route's schema.
import Type, { type Static } from 'typebox'
import { ErrorResponses, MAX_PARAM_INTEGER } from './common.js'

/** The catalogue of event types (SPEC 6.2, CONTRACT 6 and 8), for the service and the dashboard. */
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

export const Event = Type.Object({
  sequence: Type.Integer(),
  event_id: Type.String({ format: 'uuid' }),
  type: Type.String(),
  entity_type: Type.String(),
  entity_id: Type.String(),
  occurred_at: Type.String(),
  data: Type.Unknown(),
})
/** An event as the log holds it and every consumer receives it. */
export type EventEnvelope = Static<typeof Event>

const EventFilterQuery = {
  type: Type.Optional(Type.String({ minLength: 1 })),
  entity_type: Type.Optional(Type.String({ minLength: 1 })),
  entity_id: Type.Optional(Type.String({ minLength: 1 })),
}

export const EventListQuery = Type.Object({
  after: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_PARAM_INTEGER,
      description: 'Return events after this sequence (default 0).',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_PARAM_INTEGER,
      description:
        'Default 100, clamped to 1000. A page holds fewer events when their data passes ' +
        'about 1 MiB (at least one event); page on from `next`.',
    }),
  ),
  newest: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PARAM_INTEGER,
      description:
        'Return the newest N events, oldest first; fewer (the newest) when their data ' +
        'passes about 1 MiB.',
    }),
  ),
  ...EventFilterQuery,
})

export const EventStreamQuery = Type.Object({
  after: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_PARAM_INTEGER })),
  ...EventFilterQuery,
})

export const EventPage = Type.Object({
  events: Type.Array(Event),
  next: Type.Integer({
    description:
      'The last returned sequence (or `after` when the page is empty): pass it as `after` ' +
      'for the next page. A page may hold fewer than `limit` events and still not be the end.',
  }),
})

const tags = ['events']

export const EventRoutes = {
  list: {
    tags,
    summary: 'Page through the event log',
    description:
      'At most `limit` events after `after`, and fewer when their data passes about 1 MiB ' +
      '(at least one is returned), so that a page of large events stays small. Only an ' +
      'empty page means the end of the log.',
    querystring: EventListQuery,
    response: { 200: EventPage, ...ErrorResponses },
  },
  stream: {
    tags,
    summary: 'Server-Sent Events tail; ?after= replays first, then follows',
    querystring: EventStreamQuery,
    response: {
      200: Type.String({ description: 'text/event-stream' }),
      ...ErrorResponses,
    },
  },
  get: {
    tags,
    summary: 'One event by sequence',
    params: Type.Object({
      sequence: Type.Integer({ minimum: 0, maximum: MAX_PARAM_INTEGER }),
    }),
    response: { 200: Event, ...ErrorResponses },
  },
}

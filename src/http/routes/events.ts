// /api/v1/events: the durable log (SPEC 6.3, CONTRACT 6) and its SSE tail (SPEC 4.6).
import Type from 'typebox'
import { listEvents, getEvent, requireEventsEnabled } from '../../events/service.js'
import { streamEvents } from '../sse.js'
import { ErrorResponses, MAX_PARAM_INTEGER } from '../schemas/common.js'
import type { App } from '../types.js'
import type { RouteDeps } from './deps.js'

const Event = Type.Object({
  sequence: Type.Integer(),
  event_id: Type.String({ format: 'uuid' }),
  type: Type.String(),
  entity_type: Type.String(),
  entity_id: Type.String(),
  occurred_at: Type.String(),
  data: Type.Unknown(),
})

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
      description: 'Default 100, clamped to 1000.',
    }),
  ),
  newest: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PARAM_INTEGER,
      description: 'Return the newest N events, oldest first.',
    }),
  ),
  ...EventFilterQuery,
})

export const EventPage = Type.Object({ events: Type.Array(Event), next: Type.Integer() })

export function register(app: App, { ctx, sse }: RouteDeps): void {
  app.get(
    '/api/v1/events',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['events'],
        summary: 'Page through the event log',
        querystring: EventListQuery,
        response: { 200: EventPage, ...ErrorResponses },
      },
    },
    (req) => listEvents(ctx, req.query),
  )

  app.get(
    '/api/v1/events/stream',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['events'],
        summary: 'Server-Sent Events tail; ?after= replays first, then follows',
        querystring: Type.Object({
          after: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_PARAM_INTEGER })),
          ...EventFilterQuery,
        }),
        response: {
          200: Type.String({ description: 'text/event-stream' }),
          ...ErrorResponses,
        },
      },
    },
    async (req, reply) => {
      requireEventsEnabled(ctx)
      return streamEvents(ctx, sse, req, reply)
    },
  )

  app.get(
    '/api/v1/events/:sequence',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['events'],
        summary: 'One event by sequence',
        params: Type.Object({
          sequence: Type.Integer({ minimum: 0, maximum: MAX_PARAM_INTEGER }),
        }),
        response: { 200: Event, ...ErrorResponses },
      },
    },
    (req) => getEvent(ctx, req.params.sequence),
  )
}

// Handlers of /api/v1/events: the durable log (SPEC 6.3, CONTRACT 6) and its SSE
// tail (SPEC 4.6).
import { getEvent, listEvents, requireEventsEnabled } from '../../events/service.js'
import { EventRoutes as S } from '../../schemas/events.js'
import type { Handler } from '../route.js'
import { streamEvents } from '../sse.js'

export const list: Handler<typeof S.list> = ({ ctx }, req) => listEvents(ctx, req.query)

export const stream: Handler<typeof S.stream> = async ({ ctx, sse }, req, reply) => {
  requireEventsEnabled(ctx)
  return streamEvents(ctx, sse, req, reply)
}

export const get: Handler<typeof S.get> = ({ ctx }, req) => getEvent(ctx, req.params.sequence)

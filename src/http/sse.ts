// The SSE tail of the event log (SPEC 4.6, CONTRACT 6): each frame carries the
// sequence as `id`, the type as `event`, and the envelope as `data`. Without
// `?after` only new events are sent. A client whose socket falls too far behind
// is dropped and reconnects with its last sequence (Last-Event-ID works too).
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ServiceContext } from '../context.js'
import { Invalid } from '../errors.js'
import { followEvents } from '../events/follow.js'
import { logHead, type EventFilter } from '../events/store.js'

export const SSE_PING_INTERVAL_MS = 25_000
/** Bytes queued on a client's socket before it counts as lagging and is dropped. */
export const SSE_MAX_BUFFERED_BYTES = 4 * 1024 * 1024

export interface SseQuery extends EventFilter {
  after?: number | undefined
}

/** Open streams, so that shutdown can end them. */
export class SseStreams {
  private readonly open = new Set<AbortController>()

  add(controller: AbortController): () => void {
    this.open.add(controller)
    return () => this.open.delete(controller)
  }

  closeAll(): void {
    for (const controller of this.open) controller.abort()
    this.open.clear()
  }
}

/** The reconnecting client's last sequence; malformed is 400, as `?after` is. */
function lastEventId(request: FastifyRequest): number | undefined {
  const header = request.headers['last-event-id']
  if (header === undefined || header === '') return undefined
  const sequence = typeof header === 'string' && /^\d+$/.test(header) ? Number(header) : NaN
  if (!Number.isSafeInteger(sequence)) {
    throw Invalid.field('Last-Event-ID', 'must be integer (a sequence in decimal digits)')
  }
  return sequence
}

export async function streamEvents(
  ctx: ServiceContext,
  streams: SseStreams,
  request: FastifyRequest<{ Querystring: SseQuery }>,
  reply: FastifyReply,
): Promise<void> {
  const query = request.query
  const resumeFrom = lastEventId(request)
  const after = query.after ?? resumeFrom ?? (await logHead(ctx.db.kysely))
  const controller = new AbortController()
  const forget = streams.add(controller)
  reply.hijack()
  const res = reply.raw
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  })
  res.write(': stream open\n\n')
  const stop = () => controller.abort()
  request.raw.on('close', stop)
  res.on('close', stop)
  const ping = setInterval(() => res.write(': ping\n\n'), SSE_PING_INTERVAL_MS)
  ping.unref()
  try {
    const events = followEvents({
      db: ctx.db.kysely,
      bus: ctx.bus,
      after,
      filter: { type: query.type, entity_type: query.entity_type, entity_id: query.entity_id },
      signal: controller.signal,
    })
    for await (const event of events) {
      const frame = `id: ${event.sequence}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`
      if (!res.write(frame)) {
        if (res.writableLength > SSE_MAX_BUFFERED_BYTES) {
          request.log.warn({ after: event.sequence }, 'SSE client lagging; dropped')
          break
        }
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done)
            controller.signal.removeEventListener('abort', done)
            resolve()
          }
          res.once('drain', done)
          controller.signal.addEventListener('abort', done, { once: true })
        })
      }
    }
  } catch (error) {
    request.log.error({ err: error }, 'SSE stream failed')
  } finally {
    clearInterval(ping)
    forget()
    request.raw.off('close', stop)
    if (!res.writableEnded) res.end()
  }
}

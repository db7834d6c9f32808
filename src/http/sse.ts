// The SSE tail of the event log (SPEC 4.6, CONTRACT 6): each frame carries the
// sequence as `id`, the type as `event`, and the envelope as `data`. Without
// `?after` only new events are sent. A client whose socket falls too far behind
// is dropped and reconnects with its last sequence (Last-Event-ID works too).
// Limits (docs/security.md): events.max_streams in all and
// events.max_streams_per_client per credential (429 beyond); a replay reads
// the log a page at a time (at most EVENT_PAGE_BYTES of event data, so a stream
// holds little however large the events), stops reading while the client's
// socket is full, yields to the event loop
// every SSE_YIELD_BYTES, and a client that stops reading is dropped after
// SSE_STALL_TIMEOUT_MS.
import type { ServerResponse } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { yieldToEventLoop } from '../clock.js'
import type { ServiceContext } from '../context.js'
import { Invalid, TooManyRequests } from '../errors.js'
import { followEvents } from '../events/follow.js'
import { eventJson } from '../events/json.js'
import { logHead, type EventFilter } from '../events/store.js'

export const SSE_PING_INTERVAL_MS = 25_000
/**
 * Bytes a stream writes before it lets the event loop turn (setImmediate). A
 * replay of thousands of events to a socket the kernel still accepts would
 * otherwise run as one long task, and 300 of them at once starve every other
 * request (issue 17: /healthz at 3.3 s).
 */
export const SSE_YIELD_BYTES = 64 * 1024
/**
 * How long a stream may wait for its client to read (a full socket buffer that
 * does not drain) before it is dropped; the client reconnects with its last
 * sequence (SPEC 4.6). Frees the slot a client that never reads would hold.
 */
export const SSE_STALL_TIMEOUT_MS = 60_000

/** How long an ended stream's connection may take to close before it is cut. */
export const SSE_END_GRACE_MS = 2_000

export interface SseQuery extends EventFilter {
  after?: number | undefined
}

export interface SseLimits {
  /** events.max_streams */
  total: number
  /** events.max_streams_per_client */
  perClient: number
}

/** One open stream, as tests and shutdown see it. */
export interface SseStream {
  readonly principal: string
  readonly controller: AbortController
  /** Frame bytes handed to the socket so far. */
  bytesWritten: number
  /** Bytes queued in the response, not yet taken by the kernel. */
  readonly buffered: () => number
  /** Whether the stream is waiting for its client to read. */
  stalled: boolean
}

/** Open streams: the caps of events.max_streams(_per_client), and shutdown. */
export class SseStreams {
  readonly open = new Set<SseStream>()
  private readonly perPrincipal = new Map<string, number>()

  constructor(
    private readonly limits: SseLimits = { total: Infinity, perClient: Infinity },
    private readonly metrics?: ServiceContext['metrics'],
  ) {}

  /** Takes a slot for `principal`, or throws the 429 that names the cap reached. */
  add(stream: SseStream): () => void {
    const mine = this.perPrincipal.get(stream.principal) ?? 0
    if (mine >= this.limits.perClient) {
      this.metrics?.sseRefused.inc({ limit: 'per_client' })
      throw new TooManyRequests(
        `this client (${stream.principal}) already has ${mine} open event streams, the most ` +
          `events.max_streams_per_client (${this.limits.perClient}) allows; close one first`,
        5,
      )
    }
    if (this.open.size >= this.limits.total) {
      this.metrics?.sseRefused.inc({ limit: 'total' })
      throw new TooManyRequests(
        `the service already has ${this.open.size} open event streams, the most ` +
          `events.max_streams (${this.limits.total}) allows; try again later or poll GET /api/v1/events`,
        5,
      )
    }
    this.open.add(stream)
    this.perPrincipal.set(stream.principal, mine + 1)
    this.metrics?.sseStreams.set(this.open.size)
    let removed = false
    return () => {
      if (removed) return
      removed = true
      this.open.delete(stream)
      const left = (this.perPrincipal.get(stream.principal) ?? 1) - 1
      if (left > 0) this.perPrincipal.set(stream.principal, left)
      else this.perPrincipal.delete(stream.principal)
      this.metrics?.sseStreams.set(this.open.size)
    }
  }

  closeAll(): void {
    for (const stream of this.open) stream.controller.abort()
  }

  /** Ends the streams of one credential (revoked: it may read nothing more). */
  closeFor(principal: string): void {
    for (const stream of this.open) if (stream.principal === principal) stream.controller.abort()
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

/** Resolves true when the response drains; false when the stream is aborted, or after `ms`. */
function drained(res: ServerResponse, signal: AbortSignal, ms: number): Promise<boolean> {
  // An abort listener added after the abort never fires: the wait would run its full `ms`.
  if (signal.aborted) return Promise.resolve(false)
  return new Promise<boolean>((resolve) => {
    const done = (value: boolean) => () => {
      clearTimeout(timer)
      res.off('drain', onDrain)
      signal.removeEventListener('abort', onAbort)
      resolve(value)
    }
    const onDrain = done(true)
    const onAbort = done(false)
    const timer = setTimeout(done(false), ms)
    timer.unref()
    res.once('drain', onDrain)
    signal.addEventListener('abort', onAbort, { once: true })
  })
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
  const res = reply.raw
  const stream: SseStream = {
    principal: request.principal,
    controller,
    bytesWritten: 0,
    buffered: () => res.writableLength,
    stalled: false,
  }
  // Throws the 429 problem before anything is written.
  const forget = streams.add(stream)
  reply.hijack()
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
    let sinceYield = 0
    for await (const event of events) {
      // The follower hands out the rest of a batch it read before an abort.
      if (controller.signal.aborted) break
      const frame = `id: ${event.sequence}\nevent: ${event.type}\ndata: ${eventJson(event)}\n\n`
      const bytes = Buffer.byteLength(frame)
      const accepted = res.write(frame)
      stream.bytesWritten += bytes
      sinceYield += bytes
      if (!accepted) {
        // Backpressure: read no further until the client has taken what is queued.
        stream.stalled = true
        const ok = await drained(res, controller.signal, SSE_STALL_TIMEOUT_MS)
        stream.stalled = false
        if (controller.signal.aborted) break
        if (!ok) {
          request.log.warn(
            { after: event.sequence, stalled_ms: SSE_STALL_TIMEOUT_MS },
            'SSE client stopped reading; dropped (it resumes with its last sequence)',
          )
          break
        }
      }
      if (sinceYield >= SSE_YIELD_BYTES) {
        // Let other requests in between chunks of a long replay. A drain is no
        // such turn: a socket that drains as fast as it is written can keep
        // the loop in its I/O phase for the whole replay.
        sinceYield = 0
        await yieldToEventLoop()
      }
    }
  } catch (error) {
    request.log.error({ err: error }, 'SSE stream failed')
  } finally {
    clearInterval(ping)
    forget()
    request.raw.off('close', stop)
    if (!res.writableEnded) res.end()
    // A client that does not read never takes the end of the stream either, and
    // its open connection would hold up shutdown (server.close waits for it).
    if (!res.destroyed) {
      const kill = setTimeout(() => res.destroy(), SSE_END_GRACE_MS)
      kill.unref()
      res.once('close', () => clearTimeout(kill))
    }
  }
}

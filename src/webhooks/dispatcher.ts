// The webhook dispatcher (SPEC 6.3, 8; CONTRACT 6). It reads the event log through
// followEvents from a cursor kept in the database, turns each event into one job
// per enabled webhook that subscribes to its type, and hands the jobs to 8
// workers through a queue of 256. A full queue drops the job without blocking
// (counted; missed pushes are recoverable by polling the log). A job makes up to
// webhooks.max_attempts attempts, stopping at the first 2xx, with a backoff of
// 500 ms doubling to 30 s between them; a job waiting for its retry keeps its
// place in the queue and frees its worker.
//
// Each webhook starts at the log head of its creation (targets.ts); one that the
// dispatcher learns of late is first sent the events it passed meanwhile.
//
// The stored cursor is a low-water mark: every event at or below it has been
// dealt with (delivered, given up on, dropped, or matched no webhook). A restart
// resumes there, so a job that was queued or in flight when the process stopped
// is delivered again (at least once; receivers dedupe on the event id), and
// nothing older is sent twice.
import type { ServiceContext } from '../context.js'
import { parseDuration, type Config } from '../config/index.js'
import { followEvents } from '../events/follow.js'
import { eventJson } from '../events/json.js'
import { logHead, readEventPage } from '../events/store.js'
import type { EventEnvelope } from '../events/types.js'
import { isoNow, startTimer } from '../clock.js'
import { loadCursor, saveCursor, Watermark } from './cursor.js'
import { attemptDelivery } from './delivery.js'
import { HealthRecorder } from './health.js'
import { JobQueue } from './queue.js'
import { subscribesTo } from './registry.js'
import { WebhookTargets, type Target } from './targets.js'

export const WEBHOOK_WORKERS = 8
export const WEBHOOK_QUEUE_JOBS = 256
export const BACKOFF_BASE_MS = 500
export const BACKOFF_CAP_MS = 30_000
/** How long stop() waits for attempts in flight before it aborts them. */
export const SHUTDOWN_GRACE_MS = 5_000
const CURSOR_SAVE_INTERVAL_MS = 1_000
const FOLLOW_RETRY_DELAY_MS = 1_000
const BACKFILL_PAGE_EVENTS = 500

/** SPEC 6.3: webhooks need both events.enabled and webhooks.enabled. */
export function deliveryEnabled(config: Config): boolean {
  return config.webhooks.enabled && config.events.enabled
}

/** The wait before the next attempt, after `failedAttempts` failures (1, 2, ...). */
export function backoffDelayMs(
  failedAttempts: number,
  baseMs = BACKOFF_BASE_MS,
  capMs = BACKOFF_CAP_MS,
): number {
  return Math.min(baseMs * 2 ** Math.max(0, failedAttempts - 1), capMs)
}

export interface DispatcherOptions {
  /** Tests shorten the backoff; production keeps SPEC 8's 500 ms. */
  backoffBaseMs?: number
  backoffCapMs?: number
  shutdownGraceMs?: number
}

interface Job {
  webhookId: string
  sequence: number
  type: string
  eventId: string
  /** The envelope serialized once: these bytes are signed and sent on every attempt. */
  body: string
  attempts: number
}

export class WebhookDispatcher {
  private readonly backoffBaseMs: number
  private readonly backoffCapMs: number
  private readonly shutdownGraceMs: number
  private readonly health: HealthRecorder
  private readonly targets: WebhookTargets
  private readonly queue: JobQueue<Job>
  private mark = new Watermark(0)
  private workers: Promise<void>[] = []
  private savedCursor = 0
  private saving: Promise<void> = Promise.resolve()

  private readonly followAbort = new AbortController()
  private readonly attemptAbort = new AbortController()
  private following: Promise<void> | null = null
  private saveTimer: NodeJS.Timeout | null = null
  private running = false
  private stopping = false

  constructor(
    private readonly ctx: ServiceContext,
    options: DispatcherOptions = {},
  ) {
    this.backoffBaseMs = options.backoffBaseMs ?? BACKOFF_BASE_MS
    this.backoffCapMs = options.backoffCapMs ?? BACKOFF_CAP_MS
    this.shutdownGraceMs = options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS
    this.health = new HealthRecorder(ctx.db.kysely, ctx.log)
    this.targets = new WebhookTargets(ctx)
    this.queue = new JobQueue<Job>(WEBHOOK_QUEUE_JOBS, ctx.clock)
  }

  /** Starts following the log; answers false when webhooks or events are turned off. */
  async start(): Promise<boolean> {
    const { config, db } = this.ctx
    if (!deliveryEnabled(config)) return false
    let cursor = await loadCursor(db.kysely)
    if (cursor === null) {
      // First run: start at the head, so that existing history is not pushed.
      cursor = await logHead(db.kysely)
      await saveCursor(db.kysely, cursor, isoNow(this.ctx.clock))
    }
    this.mark = new Watermark(cursor)
    this.savedCursor = cursor
    await this.targets.start()
    this.running = true
    for (let i = 0; i < WEBHOOK_WORKERS; i++) this.workers.push(this.work())
    this.following = this.followLog()
    this.saveTimer = setInterval(() => void this.saveProgress(), CURSOR_SAVE_INTERVAL_MS)
    this.saveTimer.unref()
    return true
  }

  /**
   * Stops following, abandons queued jobs and retries (the cursor stays below
   * them, so they are delivered after the restart), waits for attempts in flight
   * up to the grace period, then aborts them and saves the cursor.
   */
  async stop(): Promise<void> {
    if (!this.running) return
    this.running = false
    this.stopping = true
    this.followAbort.abort()
    await this.following
    this.queue.close()
    const workersDone = Promise.all(this.workers)
    let cancelGrace = () => {}
    const graceOver = new Promise<'timeout'>((resolve) => {
      cancelGrace = startTimer(this.ctx.clock, this.shutdownGraceMs, () => resolve('timeout'))
    })
    if ((await Promise.race([workersDone, graceOver])) === 'timeout') {
      this.ctx.log.warn('webhooks: attempts still in flight at shutdown were aborted')
      this.attemptAbort.abort()
      await workersDone
    }
    cancelGrace()
    if (this.saveTimer) clearInterval(this.saveTimer)
    await this.targets.stop()
    await this.health.flush()
    await this.saveProgress()
  }

  /** The highest sequence at or below which every event has been dealt with. */
  watermark(): number {
    return this.mark.value()
  }

  /** Resolves once every event up to `sequence` has been dealt with (tests, benchmarks). */
  whenSettled(sequence: number): Promise<void> {
    return this.mark.whenSettled(sequence)
  }

  private async followLog(): Promise<void> {
    const signal = this.followAbort.signal
    while (!signal.aborted) {
      try {
        const events = followEvents({
          db: this.ctx.db.kysely,
          bus: this.ctx.bus,
          after: this.mark.handled,
          signal,
        })
        for await (const event of events) await this.dispatch(event)
      } catch (error) {
        if (signal.aborted) return
        this.ctx.log.error({ err: error }, 'webhooks: reading the event log failed; retrying')
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, FOLLOW_RETRY_DELAY_MS)
          signal.addEventListener('abort', done, { once: true })
          function done() {
            clearTimeout(timer)
            signal.removeEventListener('abort', done)
            resolve()
          }
        })
      }
    }
  }

  private async dispatch(event: EventEnvelope): Promise<void> {
    const targets = await this.targets.current()
    for (const target of this.targets.takeNew()) await this.catchUp(target)
    this.admit(event, targets.values())
    this.mark.handledUpTo(event.sequence)
  }

  /** Queues one job per target that wants `event`; a full queue drops (SPEC 6.3, 8). */
  private admit(event: EventEnvelope, targets: Iterable<Target>): void {
    let admitted = 0
    let body: string | null = null
    for (const target of targets) {
      if (event.sequence <= target.startsAfter) continue
      if (!subscribesTo(target.eventTypes, event.type)) continue
      body ??= eventJson(event)
      const queued = this.queue.offer({
        webhookId: target.id,
        sequence: event.sequence,
        type: event.type,
        eventId: event.event_id,
        body,
        attempts: 0,
      })
      if (queued) admitted += 1
      else this.ctx.metrics.webhookDropped.inc()
    }
    this.mark.add(event.sequence, admitted)
  }

  /**
   * A webhook created (perhaps by another process) after this dispatcher passed
   * its start: send it the events from its start up to where the dispatcher is.
   */
  private async catchUp(target: Target): Promise<void> {
    let after = target.startsAfter
    const until = this.mark.handled
    while (after < until) {
      const { events, more } = await readEventPage(this.ctx.db.kysely, after, BACKFILL_PAGE_EVENTS)
      for (const event of events) {
        if (event.sequence > until) return
        this.admit(event, [target])
        after = event.sequence
      }
      if (!more) return
    }
  }

  private async work(): Promise<void> {
    for (;;) {
      const job = await this.queue.take()
      if (!job) return
      try {
        await this.run(job)
      } catch (error) {
        this.ctx.log.error({ err: error, webhook_id: job.webhookId }, 'webhooks: delivery failed')
        this.mark.settle(job.sequence)
      }
    }
  }

  private async run(job: Job): Promise<void> {
    const { config, clock, metrics, log } = this.ctx
    // Looked up at attempt time: a webhook disabled or deleted since receives
    // nothing, and a rotated secret signs from the next attempt on.
    const target = (await this.targets.current()).get(job.webhookId)
    if (!target) {
      this.mark.settle(job.sequence)
      return
    }
    const timeoutMs = parseDuration(config.webhooks.timeout)
    const result = await attemptDelivery(
      target,
      { type: job.type, event_id: job.eventId },
      job.body,
      { clock, timeoutMs, signal: this.attemptAbort.signal },
    )
    // Cut short by shutdown: left unsettled, so it is sent again after the restart.
    if (this.attemptAbort.signal.aborted) return
    job.attempts += 1
    metrics.webhookAttempts.inc()
    this.health.record(target.id, result, isoNow(clock))
    if (result.ok) {
      metrics.webhookDeliveries.inc({ outcome: 'delivered' })
      this.mark.settle(job.sequence)
      return
    }
    if (job.attempts >= config.webhooks.max_attempts) {
      metrics.webhookDeliveries.inc({ outcome: 'failed' })
      log.warn(
        {
          webhook_id: target.id,
          event_id: job.eventId,
          attempts: job.attempts,
          error: result.error,
        },
        'webhooks: delivery failed after the last attempt',
      )
      this.mark.settle(job.sequence)
      return
    }
    if (this.stopping) return
    this.queue.retryAfter(job, backoffDelayMs(job.attempts, this.backoffBaseMs, this.backoffCapMs))
  }

  /** Saves run one after another, so an older mark never overwrites a newer one. */
  private saveProgress(): Promise<void> {
    this.saving = this.saving.then(async () => {
      const mark = this.mark.value()
      if (mark === this.savedCursor) return
      try {
        await saveCursor(this.ctx.db.kysely, mark, isoNow(this.ctx.clock))
        this.savedCursor = mark
      } catch (error) {
        this.ctx.log.warn({ err: error }, 'webhooks: saving the cursor failed')
      }
    })
    return this.saving
  }
}

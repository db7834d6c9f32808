// The webhook dispatcher (SPEC 6.3, 8; CONTRACT 6). It reads the event log through
// followEvents from a cursor kept in the database, turns each event into one job
// per enabled webhook that subscribes to its type, and hands the jobs to 8
// workers through a queue of 256. A full queue drops the job without blocking
// (counted; missed pushes are recoverable by polling the log). A job makes up to
// webhooks.max_attempts attempts, stopping at the first 2xx, with a backoff of
// 500 ms doubling to 30 s between them; a job waiting for its retry keeps its
// place in the queue and frees its worker.
//
// The stored cursor is a low-water mark: every event at or below it has been
// dealt with (delivered, given up on, dropped, or matched no webhook). A restart
// resumes there, so a job that was queued or in flight when the process stopped
// is delivered again (at least once; receivers dedupe on the event id), and
// nothing older is sent twice.
import type { ServiceContext } from '../context.js'
import { parseDuration, type Config } from '../config/index.js'
import { followEvents } from '../events/follow.js'
import type { EventEnvelope } from '../events/types.js'
import { isoNow } from '../ledger/time.js'
import { logHead } from '../events/store.js'
import { loadCursor, saveCursor } from './cursor.js'
import { attemptDelivery } from './delivery.js'
import { HealthRecorder } from './health.js'
import { loadEnabledWebhooks, parseEventTypes, subscribesTo } from './registry.js'

export const WEBHOOK_WORKERS = 8
export const WEBHOOK_QUEUE_JOBS = 256
export const BACKOFF_BASE_MS = 500
export const BACKOFF_CAP_MS = 30_000
/** How long stop() waits for attempts in flight before it aborts them. */
export const SHUTDOWN_GRACE_MS = 5_000
const CURSOR_SAVE_INTERVAL_MS = 1_000
/** Another process sharing PostgreSQL may edit the registry; re-read it this often. */
const WEBHOOK_CACHE_TTL_MS = 5_000
const FOLLOW_RETRY_DELAY_MS = 1_000

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

interface Target {
  id: string
  url: string
  secret: string
  eventTypes: string[]
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

  private readonly ready: Job[] = []
  /** Jobs waiting for a retry; they count against the queue's capacity. */
  private delayed = 0
  private readonly retryTimers = new Set<NodeJS.Timeout>()
  private readonly idleWorkers: Array<(job: Job | null) => void> = []
  private workers: Promise<void>[] = []

  /** Unsettled jobs per event sequence, in sequence order. */
  private readonly outstanding = new Map<number, number>()
  private lastHandled = 0
  private savedCursor = 0
  private saving: Promise<void> = Promise.resolve()
  private settledWaiters: Array<{ sequence: number; resolve: () => void }> = []

  private targets: Map<string, Target> | null = null
  private targetsLoadedAt = 0
  private targetsGeneration = 0
  private loadingTargets: Promise<Map<string, Target>> | null = null

  private readonly followAbort = new AbortController()
  private readonly attemptAbort = new AbortController()
  private following: Promise<void> | null = null
  private saveTimer: NodeJS.Timeout | null = null
  private forgetChanges: (() => void) | null = null
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
    this.lastHandled = cursor
    this.savedCursor = cursor
    const reload = () => {
      this.targets = null
      this.targetsGeneration += 1
    }
    this.ctx.signals.on('webhooks.changed', reload)
    this.forgetChanges = () => this.ctx.signals.off('webhooks.changed', reload)
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
    for (const timer of this.retryTimers) clearTimeout(timer)
    this.retryTimers.clear()
    this.delayed = 0
    this.ready.length = 0
    for (const idle of this.idleWorkers.splice(0)) idle(null)
    const workersDone = Promise.all(this.workers)
    let grace: NodeJS.Timeout | undefined
    const graceOver = new Promise<'timeout'>((resolve) => {
      grace = setTimeout(() => resolve('timeout'), this.shutdownGraceMs)
    })
    if ((await Promise.race([workersDone, graceOver])) === 'timeout') {
      this.ctx.log.warn('webhooks: attempts still in flight at shutdown were aborted')
      this.attemptAbort.abort()
      await workersDone
    }
    clearTimeout(grace)
    if (this.saveTimer) clearInterval(this.saveTimer)
    this.forgetChanges?.()
    await this.health.flush()
    await this.saveProgress()
  }

  /** The highest sequence at or below which every event has been dealt with. */
  watermark(): number {
    const first = this.outstanding.keys().next()
    return first.done ? this.lastHandled : first.value - 1
  }

  /** Resolves once every event up to `sequence` has been dealt with (tests, benchmarks). */
  whenSettled(sequence: number): Promise<void> {
    if (this.watermark() >= sequence) return Promise.resolve()
    return new Promise((resolve) => this.settledWaiters.push({ sequence, resolve }))
  }

  private async followLog(): Promise<void> {
    const signal = this.followAbort.signal
    while (!signal.aborted) {
      try {
        const events = followEvents({
          db: this.ctx.db.kysely,
          bus: this.ctx.bus,
          after: this.lastHandled,
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
    const targets = await this.currentTargets()
    let admitted = 0
    let body: string | null = null
    for (const target of targets.values()) {
      if (!subscribesTo(target.eventTypes, event.type)) continue
      // SPEC 6.3, 8: a full queue drops the job without blocking the log.
      if (this.ready.length + this.delayed >= WEBHOOK_QUEUE_JOBS) {
        this.ctx.metrics.webhookDropped.inc()
        continue
      }
      body ??= JSON.stringify(event)
      admitted += 1
      this.enqueue({
        webhookId: target.id,
        sequence: event.sequence,
        type: event.type,
        eventId: event.event_id,
        body,
        attempts: 0,
      })
    }
    if (admitted > 0) this.outstanding.set(event.sequence, admitted)
    this.lastHandled = event.sequence
    this.wakeSettledWaiters()
  }

  /** The enabled webhooks, cached until the registry changes (or for a few seconds). */
  private async currentTargets(): Promise<Map<string, Target>> {
    const fresh = Date.now() - this.targetsLoadedAt < WEBHOOK_CACHE_TTL_MS
    if (this.targets && fresh) return this.targets
    this.loadingTargets ??= this.loadTargets().finally(() => {
      this.loadingTargets = null
    })
    return this.loadingTargets
  }

  private async loadTargets(): Promise<Map<string, Target>> {
    for (;;) {
      const generation = this.targetsGeneration
      const rows = await loadEnabledWebhooks(this.ctx.db.kysely)
      const targets = new Map<string, Target>(
        rows.map((row) => [
          row.id,
          {
            id: row.id,
            url: row.url,
            secret: row.secret,
            eventTypes: parseEventTypes(row.event_types),
          },
        ]),
      )
      // A change that landed while reading may be missing from these rows: read again.
      if (generation !== this.targetsGeneration) continue
      this.targets = targets
      this.targetsLoadedAt = Date.now()
      return targets
    }
  }

  private enqueue(job: Job, front = false): void {
    const idle = this.idleWorkers.shift()
    if (idle) idle(job)
    else if (front) this.ready.unshift(job)
    else this.ready.push(job)
  }

  private take(): Promise<Job | null> | Job | null {
    if (this.stopping) return null
    const job = this.ready.shift()
    if (job) return job
    return new Promise((resolve) => this.idleWorkers.push(resolve))
  }

  private async work(): Promise<void> {
    for (;;) {
      const job = await this.take()
      if (!job) return
      try {
        await this.run(job)
      } catch (error) {
        this.ctx.log.error({ err: error, webhook_id: job.webhookId }, 'webhooks: delivery failed')
        this.settle(job.sequence)
      }
    }
  }

  private async run(job: Job): Promise<void> {
    const { config, clock, metrics, log } = this.ctx
    // Looked up at attempt time: a webhook disabled or deleted since receives
    // nothing, and a rotated secret signs from the next attempt on.
    const target = (await this.currentTargets()).get(job.webhookId)
    if (!target) {
      this.settle(job.sequence)
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
      this.settle(job.sequence)
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
      this.settle(job.sequence)
      return
    }
    if (this.stopping) return
    this.delayed += 1
    const timer = setTimeout(
      () => {
        this.retryTimers.delete(timer)
        this.delayed -= 1
        this.enqueue(job, true)
      },
      backoffDelayMs(job.attempts, this.backoffBaseMs, this.backoffCapMs),
    )
    this.retryTimers.add(timer)
  }

  private settle(sequence: number): void {
    const left = (this.outstanding.get(sequence) ?? 1) - 1
    if (left > 0) this.outstanding.set(sequence, left)
    else this.outstanding.delete(sequence)
    this.wakeSettledWaiters()
  }

  private wakeSettledWaiters(): void {
    if (this.settledWaiters.length === 0) return
    const mark = this.watermark()
    const waiting: typeof this.settledWaiters = []
    for (const waiter of this.settledWaiters) {
      if (waiter.sequence <= mark) waiter.resolve()
      else waiting.push(waiter)
    }
    this.settledWaiters = waiting
  }

  /** Saves run one after another, so an older mark never overwrites a newer one. */
  private saveProgress(): Promise<void> {
    this.saving = this.saving.then(async () => {
      const mark = this.watermark()
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

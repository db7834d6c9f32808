// Persisted delivery health per webhook (SPEC 2.8, CONTRACT 6). The dispatcher may
// make thousands of attempts a second, so its results are coalesced per webhook
// and written a moment later in one statement each, instead of one write per
// attempt competing with the ledger's writer.
import type { Logger } from 'pino'
import type { DbExecutor } from '../db/schema.js'
import type { AttemptResult } from './delivery.js'

export const HEALTH_FLUSH_DELAY_MS = 200

/** What happened to one webhook since its health was last written. */
interface HealthDelta {
  status: number | null
  error: string | null
  attemptAt: string
  /** The time of the newest success in this window, if any. */
  successAt: string | null
  /** Failures after the newest success (or all of them, with no success). */
  failures: number
}

function emptyDelta(attemptAt: string): HealthDelta {
  return { status: null, error: null, attemptAt, successAt: null, failures: 0 }
}

function apply(delta: HealthDelta, result: AttemptResult, at: string): void {
  delta.status = result.status
  delta.error = result.error
  delta.attemptAt = at
  if (result.ok) {
    delta.successAt = at
    delta.failures = 0
  } else {
    delta.failures += 1
  }
}

/**
 * Writes a window's outcome, unless a newer attempt is already recorded: a test
 * delivery writes at once, so a dispatcher window flushed after it may be older
 * and must not put an earlier outcome back (RFC 3339 UTC text orders by time).
 */
async function writeDelta(db: DbExecutor, id: string, delta: HealthDelta): Promise<void> {
  await db
    .updateTable('webhooks')
    .set((eb) => ({
      last_status: delta.status,
      last_error: delta.error,
      last_attempt_at: delta.attemptAt,
      ...(delta.successAt !== null
        ? { last_success_at: delta.successAt, consecutive_failures: delta.failures }
        : { consecutive_failures: eb('consecutive_failures', '+', delta.failures) }),
    }))
    .where('id', '=', id)
    .where((eb) =>
      eb.or([eb('last_attempt_at', 'is', null), eb('last_attempt_at', '<=', delta.attemptAt)]),
    )
    .execute()
}

/** Writes one attempt's result at once (the synchronous test delivery). */
export async function recordAttempt(
  db: DbExecutor,
  id: string,
  result: AttemptResult,
  at: string,
): Promise<void> {
  const delta = emptyDelta(at)
  apply(delta, result, at)
  await writeDelta(db, id, delta)
}

export class HealthRecorder {
  private pending = new Map<string, HealthDelta>()
  private timer: NodeJS.Timeout | null = null
  private flushing: Promise<void> = Promise.resolve()

  constructor(
    private readonly db: DbExecutor,
    private readonly log: Logger,
  ) {}

  record(id: string, result: AttemptResult, at: string): void {
    let delta = this.pending.get(id)
    if (!delta) {
      delta = emptyDelta(at)
      this.pending.set(id, delta)
    }
    apply(delta, result, at)
    this.timer ??= setTimeout(() => void this.flush(), HEALTH_FLUSH_DELAY_MS)
  }

  /** Writes everything recorded so far; flushes run one after another. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    const batch = this.pending
    this.pending = new Map()
    this.flushing = this.flushing.then(async () => {
      for (const [id, delta] of batch) {
        try {
          await writeDelta(this.db, id, delta)
        } catch (error) {
          this.log.warn(
            { err: error, webhook_id: id },
            'webhooks: recording delivery health failed',
          )
        }
      }
    })
    return this.flushing
  }
}

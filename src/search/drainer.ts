// A background worker for a queue of derived data that writes leave behind in a
// table (the SQLite search documents of search_pending, the summary rollups of
// summary_pending): it drains the queue in short units whenever it holds
// something, polling, since another process (coffer sync) may fill it too.
import { yieldToEventLoop } from '../clock.js'
import type { ServiceContext } from '../context.js'

/** How often the queue is looked at; it also catches writes by other processes (coffer sync). */
const POLL_MS = 500

export interface QueueDrainerOptions {
  /** For the logs: "search documents". */
  name: string
  /** False where the engine keeps no such queue (PostgreSQL). */
  enabled: boolean
  /** Works off one batch in one unit of work: how many entries it took, and whether it took all it asked for (more may wait). */
  drainOnce: () => Promise<DrainedBatch>
  /** The log line of a pass that took more than one batch. */
  logged: string
  /** What an entry is, for the log line's count. */
  unit: string
  /**
   * While true, passes wait (at most HELD_PASS_MS since the last one): for a
   * queue whose entries the same writes keep queuing again, so that a pass now
   * would be redone moments later.
   */
  holdWhile?: () => boolean
}

/**
 * The longest a held drainer goes without a pass. A pass every 10 s still cost
 * a labelling plugin about a tenth of its catch-up after a 100k-row import, on
 * the one writer (docs/performance.md, Plugins).
 */
const HELD_PASS_MS = 60_000

export interface DrainedBatch {
  taken: number
  full: boolean
}

/** A drainOnce that takes a fixed `batch`: full when it took that many. */
export function fixedBatches(
  batch: number,
  drain: (batch: number) => Promise<number>,
): () => Promise<DrainedBatch> {
  return async () => {
    const taken = await drain(batch)
    return { taken, full: taken === batch }
  }
}

export class QueueDrainer {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<void> = Promise.resolve()
  private lastPass = 0

  constructor(
    private readonly ctx: ServiceContext,
    private readonly options: QueueDrainerOptions,
  ) {}

  /** Runs drainOnce until a batch comes back short; returns the entries taken and the batches. */
  static async drainAll(
    drainOnce: () => Promise<DrainedBatch>,
  ): Promise<{ taken: number; batches: number }> {
    let taken = 0
    for (let batches = 1; ; batches++) {
      const batch = await drainOnce()
      taken += batch.taken
      if (!batch.full) return { taken, batches }
      // Let requests and ledger writes in between batches.
      await yieldToEventLoop()
    }
  }

  start(): void {
    if (!this.options.enabled) return
    void this.run()
    this.timer = setInterval(() => void this.run(), POLL_MS)
    this.timer.unref()
  }

  /** One pass now; passes never overlap. */
  run(): Promise<void> {
    const { name, drainOnce, logged, unit, holdWhile } = this.options
    this.running = this.running.then(async () => {
      if (holdWhile?.() && Date.now() - this.lastPass < HELD_PASS_MS) return
      this.lastPass = Date.now()
      try {
        const started = Date.now()
        const { taken, batches } = await QueueDrainer.drainAll(drainOnce)
        if (batches > 1)
          this.ctx.log.info({ [unit]: taken, units: batches, ms: Date.now() - started }, logged)
      } catch (error) {
        this.ctx.log.error({ err: error }, `${name}: draining the queue failed`)
      }
    })
    return this.running
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    await this.running
  }
}

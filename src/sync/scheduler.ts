// The scheduled sync: one run every sync.interval ("0" turns it off). A changed
// setting applies live: the wait under way is started again at the new interval.
import { parseDuration } from '../config/index.js'
import type { ServiceContext } from '../context.js'
import type { SyncEngine } from './engine.js'

/** While the schedule is off, how often to look whether it was turned on. */
const OFF_RECHECK_MS = 60_000
/** setTimeout's ceiling (about 24.8 days); longer intervals wait in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1

export class SyncScheduler {
  private timer: NodeJS.Timeout | null = null
  private stopped = false
  /** A run the schedule started is under way: its end schedules the next. */
  private running = false
  private readonly onSettings = (keys: string[]) => {
    if (!keys.includes('sync.interval') || this.stopped || this.running) return
    if (this.timer) clearTimeout(this.timer)
    this.schedule()
  }

  constructor(
    private readonly ctx: ServiceContext,
    private readonly engine: SyncEngine,
  ) {}

  start(): void {
    this.stopped = false
    this.ctx.signals.on('settings.applied', this.onSettings)
    this.schedule()
  }

  stop(): void {
    this.stopped = true
    this.ctx.signals.off('settings.applied', this.onSettings)
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  private intervalMs(): number {
    try {
      return parseDuration(this.ctx.config.sync.interval)
    } catch {
      return 0 // the config loader validated it; a bad live value means "off"
    }
  }

  private schedule(): void {
    if (this.stopped) return
    const interval = this.intervalMs()
    const wait = interval === 0 ? OFF_RECHECK_MS : Math.min(interval, MAX_TIMER_MS)
    const due = interval !== 0 && interval <= MAX_TIMER_MS
    this.timer = setTimeout(() => void this.tick(due), wait)
    this.timer.unref()
  }

  private async tick(due: boolean): Promise<void> {
    this.timer = null
    if (due && !this.stopped) {
      this.running = true
      try {
        const started = await this.engine.trigger({ trigger: 'schedule', source: null })
        await started.done
      } catch (error) {
        this.ctx.log.warn({ err: error }, 'sync: scheduled run could not start')
      } finally {
        this.running = false
      }
    }
    this.schedule()
  }
}

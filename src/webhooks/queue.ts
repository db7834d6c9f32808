// The dispatcher's job queue (SPEC 6.3, 8): a bounded queue shared by the
// workers. A job waiting for its retry frees its worker but keeps its place
// against the capacity, and comes back to the front when its backoff is over.
// Backoff waits run on the context's clock, so tests move time by hand.
import { startTimer, type Clock } from '../clock.js'

export class JobQueue<Job> {
  private readonly ready: Job[] = []
  private readonly retries = new Set<() => void>()
  private readonly idle: Array<(job: Job | null) => void> = []
  private closed = false

  constructor(
    private readonly capacity: number,
    private readonly clock: Clock,
  ) {}

  /** Queued and waiting jobs, against the capacity. */
  get size(): number {
    return this.ready.length + this.retries.size
  }

  /** Adds a job; answers false, without blocking, when the queue is full. */
  offer(job: Job): boolean {
    if (this.closed || this.size >= this.capacity) return false
    this.hand(job, false)
    return true
  }

  /** Puts a job back after `delayMs`, at the front of the line. */
  retryAfter(job: Job, delayMs: number): void {
    if (this.closed) return
    const cancel = startTimer(this.clock, delayMs, () => {
      this.retries.delete(cancel)
      this.hand(job, true)
    })
    this.retries.add(cancel)
  }

  /** The next job, or null once the queue is closed. */
  take(): Promise<Job | null> | Job | null {
    if (this.closed) return null
    const job = this.ready.shift()
    if (job !== undefined) return job
    return new Promise((resolve) => this.idle.push(resolve))
  }

  /** Drops every queued and waiting job and releases idle workers. */
  close(): void {
    this.closed = true
    for (const cancel of this.retries) cancel()
    this.retries.clear()
    this.ready.length = 0
    for (const wake of this.idle.splice(0)) wake(null)
  }

  private hand(job: Job, front: boolean): void {
    const worker = this.idle.shift()
    if (worker) worker(job)
    else if (front) this.ready.unshift(job)
    else this.ready.push(job)
  }
}

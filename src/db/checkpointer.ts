// SQLite's checkpoints off the event loop. The writer's connection checkpoints
// by itself once the WAL holds wal_autocheckpoint pages, inside the COMMIT that
// passed it, syncing the WAL and the database file while the event loop (and
// the writes) stand still: during an import a copy of up to 256 MiB, 0.5-1.4 s,
// several times a minute; between manual writes about a fifth of each write's
// time. Here a thread with its own connection checkpoints instead, after each
// commit, beside the writer (connect.ts makes one for every SQLite file; the
// thread starts at the first commit): the writer's own checkpoint stays as the
// fallback should the thread fall behind, and rarely finds anything left to copy.
import type { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import { besideModule, startModuleWorker } from '../worker-module.js'

/** A message to the thread: checkpoint now, or close. */
export type CheckpointRequest = 'checkpoint' | 'close'
/** The thread's answer to a checkpoint: null, or why it cannot checkpoint. */
export interface CheckpointDone {
  error: string | null
}

export class BackgroundCheckpointer {
  private worker: Worker | null = null
  /** A commit landed while a checkpoint ran: one more once it is done. */
  private again = false
  private failed = false
  /** Closed with its database: nothing starts the thread again. */
  private closed = false
  /** Checkpoints posted to the thread, and answered, so far. */
  private posted = 0
  private answered = 0
  /** Callers waiting for the checkpoint numbered `upTo` to be answered. */
  private waiters: Array<{ upTo: number; resolve: () => void }> = []

  constructor(
    private readonly path: string,
    private readonly log?: Logger,
  ) {}

  /**
   * Resolves once a checkpoint has copied what was committed so far (a bulk
   * stretch's last units); answers whether it did (else the caller checkpoints).
   */
  async caughtUp(): Promise<boolean> {
    if (this.failed || this.closed) return false
    // The next checkpoint to start: one running now may have started before the
    // last commit. Only that one is waited for: another stretch's
    // commits (a plugin's backlog) may keep the thread busy for a long time.
    const upTo = this.posted + 1
    this.request()
    if (this.posted < upTo && !this.again) return false
    await this.answeredUpTo(upTo)
    return !this.failed
  }

  /** A unit of work committed: its pages are copied beside the next one. */
  afterCommit(): void {
    if (!this.failed && !this.closed) this.request()
  }

  async close(): Promise<void> {
    this.closed = true
    this.again = false
    await this.answeredUpTo(this.posted)
    const worker = this.worker
    this.worker = null
    if (!worker) return
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
    worker.ref()
    worker.postMessage('close' satisfies CheckpointRequest)
    await exited
  }

  /** A checkpoint posted and not answered yet. */
  private get inFlight(): boolean {
    return this.posted > this.answered
  }

  private request(): void {
    if (this.inFlight) {
      this.again = true
      return
    }
    const worker = this.started()
    if (!worker) return
    this.send(worker)
  }

  private send(worker: Worker): void {
    this.posted++
    // Held while a checkpoint runs: a caller may be waiting for it.
    worker.ref()
    worker.postMessage('checkpoint' satisfies CheckpointRequest)
  }

  private started(): Worker | null {
    if (this.worker || this.failed || this.closed) return this.worker
    const worker = startModuleWorker(besideModule(import.meta.url, 'checkpoint-worker'), {
      workerData: { path: this.path },
    })
    // A thread waiting for the next commit does not keep the process alive.
    worker.unref()
    worker.on('message', (done: CheckpointDone) => this.done(done))
    worker.on('error', (error) => this.fail(error.message))
    worker.on('exit', () => {
      if (this.worker === worker) this.fail('the checkpoint thread ended')
    })
    this.worker = worker
    return worker
  }

  private done(done: CheckpointDone): void {
    this.answered++
    if (done.error !== null) return this.fail(done.error)
    this.wake()
    if (this.again && this.worker) {
      this.again = false
      return this.send(this.worker)
    }
    this.worker?.unref()
  }

  private wake(everyone = false): void {
    const waiting = this.waiters
    this.waiters = []
    for (const waiter of waiting) {
      if (everyone || waiter.upTo <= this.answered) waiter.resolve()
      else this.waiters.push(waiter)
    }
  }

  /** The thread cannot checkpoint: the writer's own checkpoints do it all from now on. */
  private fail(reason: string): void {
    if (!this.failed)
      this.log?.warn(
        { reason },
        'db: the background checkpoint thread failed; the writer checkpoints',
      )
    this.failed = true
    // A checkpoint in flight on a failed thread gets no answer.
    this.answered = this.posted
    this.again = false
    const worker = this.worker
    this.worker = null
    void worker?.terminate()
    this.wake(true)
  }

  /** Resolves once every checkpoint asked for so far is done (tests). */
  settled(): Promise<void> {
    return this.answeredUpTo(this.posted + (this.again ? 1 : 0))
  }

  private answeredUpTo(upTo: number): Promise<void> {
    if (this.failed || this.answered >= upTo) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push({ upTo, resolve }))
  }
}

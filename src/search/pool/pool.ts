// The read pool (DESIGN "The event loop stays free"): SQLite calls are
// synchronous, so a broad search (hundreds of milliseconds of SQL and matching)
// would stall every other request of the process. The doors hand searches to
// this pool instead; it runs each in a worker thread (worker.ts) holding its own
// read-only connection to the same file (WAL lets readers run beside the
// writer). PostgreSQL is asynchronous already, and an in-memory SQLite database
// cannot be shared between connections: there, and with search.workers = 0,
// searches run in the calling thread as before.
import { availableParallelism } from 'node:os'
import type { Worker } from 'node:worker_threads'
import type { ServiceContext } from '../../context.js'
import { sharedSqliteFile } from '../../db/connect.js'
import { besideModule, startModuleWorker } from '../../worker-module.js'
import { ShuttingDown, Unavailable } from '../../errors.js'
import { parseQueryText } from '../parse.js'
import { searchTransactions, type SearchInput, type SearchResult } from '../service.js'
import {
  checkSummaryInput,
  summarizeTransactions,
  type SummaryInput,
  type SummaryJson,
} from '../summary.js'
import {
  rebuildError,
  type FromWorker,
  type ToWorker,
  type Work,
  type WorkerSetup,
} from './messages.js'

/** How long close() waits for workers to end their search and close their connection. */
const CLOSE_GRACE_MS = 2_000

// worker.js in dist/, worker.ts when the sources run under tsx (tests, `npm run bench`).
const WORKER_URL = besideModule(import.meta.url, 'worker')

function startWorker(setup: WorkerSetup): Worker {
  return startModuleWorker(WORKER_URL, { workerData: setup })
}

interface Job {
  id: number
  work: Work
  resolve(result: unknown): void
  reject(error: Error): void
}

interface Slot {
  worker: Worker
  /** The job it runs; null when idle. */
  job: Job | null
  /** Cancelled while closing: busy until it answers, its answer no longer awaited. */
  draining: boolean
}

/** How many workers search.workers asks for on this database (0: in the calling thread). */
export function searchPoolSize(ctx: ServiceContext): number {
  if (sharedSqliteFile(ctx.config.database) === null) return 0
  return Math.min(ctx.config.search.workers, availableParallelism())
}

/**
 * Runs searches (GET /transactions/search, the search_transactions tool) off
 * the main thread. Workers start on demand, up to `size`, and are replaced when
 * one dies; jobs wait in a queue for a free worker. When the service closes,
 * queued and running searches answer ShuttingDown (503) at once and close()
 * ends the workers.
 */
export class SearchPool {
  readonly size: number
  readonly #ctx: ServiceContext
  readonly #slots: Slot[] = []
  readonly #queue: Job[] = []
  #nextId = 1
  #closed = false

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx
    this.size = searchPoolSize(ctx)
    ctx.log.info(
      { workers: this.size },
      this.size > 0
        ? 'search: worker threads run searches (started on demand)'
        : 'search: searches run on the main thread',
    )
    ctx.signals.closing.addEventListener('abort', () => this.#cancelAll(), { once: true })
  }

  /** Worker threads running now (started on demand, up to size). */
  get workers(): number {
    return this.#slots.length
  }

  /** Searches waiting for a free worker. */
  get queued(): number {
    return this.#queue.length
  }

  /** One search, answered as searchTransactions answers it. */
  async run(input: SearchInput): Promise<SearchResult> {
    if (this.size === 0) return searchTransactions(this.#ctx, input)
    // A query that does not parse is the client's 400 (QueryError, naming the
    // offset), without waiting for a worker; parsing is cheap.
    parseQueryText(input.q ?? '')
    return this.#enqueue<SearchResult>({ kind: 'search', input })
  }

  /** One summary (GET /transactions/summary), answered as summarizeTransactions answers it. */
  async summarize(input: SummaryInput): Promise<SummaryJson> {
    if (this.size === 0) return summarizeTransactions(this.#ctx, input)
    checkSummaryInput(input)
    return this.#enqueue<SummaryJson>({ kind: 'summary', input })
  }

  #enqueue<T>(work: Work): Promise<T> {
    if (this.#closed || this.#ctx.signals.closing.aborted) throw new ShuttingDown()
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({
        id: this.#nextId++,
        work,
        resolve,
        reject,
      })
      this.#dispatch()
      this.#ctx.metrics.searchQueued.set(this.#queue.length)
    })
  }

  /** Ends every worker (each closes its connection); bounded by CLOSE_GRACE_MS. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#cancelAll()
    const slots = this.#slots.splice(0)
    await Promise.all(
      slots.map(async ({ worker }) => {
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
        this.#post(worker, { type: 'close' })
        let timer: NodeJS.Timeout | undefined
        const late = new Promise<'late'>((resolve) => {
          timer = setTimeout(() => resolve('late'), CLOSE_GRACE_MS)
        })
        // A worker inside one long SQL statement hears nothing until it returns.
        if ((await Promise.race([exited, late])) === 'late') await worker.terminate()
        clearTimeout(timer)
      }),
    )
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((s) => s.job === null && !s.draining)
      if (!slot) {
        if (this.#slots.length >= this.size) return
        slot = this.#spawn()
      }
      const job = this.#queue.shift()!
      this.#ctx.metrics.searchQueued.set(this.#queue.length)
      slot.job = job
      // A worker holds the process open only while it works for someone.
      slot.worker.ref()
      this.#post(slot.worker, { type: 'search', id: job.id, work: job.work })
    }
  }

  #spawn(): Slot {
    const worker = startWorker({ path: this.#ctx.config.database.path })
    const slot: Slot = { worker, job: null, draining: false }
    this.#slots.push(slot)
    worker.on('message', (message: FromWorker) => this.#heard(slot, message))
    worker.on('error', (error) => {
      this.#ctx.log.error({ err: error }, 'search: a worker failed; it is replaced')
    })
    worker.on('exit', (code) => this.#exited(slot, code))
    return slot
  }

  #heard(slot: Slot, message: FromWorker): void {
    if (message.type === 'log') {
      this.#ctx.log.error(message.fields, message.message)
      return
    }
    const job = slot.job
    if (slot.draining || job === null || job.id !== message.id) {
      // The answer to a search already answered ShuttingDown.
      slot.draining = false
      slot.job = null
      slot.worker.unref()
      return
    }
    slot.job = null
    slot.worker.unref()
    if (message.type === 'result') job.resolve(message.result)
    else job.reject(rebuildError(message.error))
    this.#dispatch()
  }

  #exited(slot: Slot, code: number): void {
    const index = this.#slots.indexOf(slot)
    if (index >= 0) this.#slots.splice(index, 1)
    const job = slot.job
    slot.job = null
    if (this.#closed) {
      job?.reject(new ShuttingDown())
      return
    }
    this.#ctx.log.error(
      { exit_code: code, search_in_flight: job !== null },
      'search: a worker stopped unexpectedly; the next search starts another',
    )
    job?.reject(new Unavailable('the search stopped unexpectedly; try again'))
    this.#dispatch()
  }

  /** Closing: every search waiting or running answers ShuttingDown now; workers stop theirs. */
  #cancelAll(): void {
    for (const job of this.#queue.splice(0)) job.reject(new ShuttingDown())
    this.#ctx.metrics.searchQueued.set(0)
    for (const slot of this.#slots) {
      if (slot.job === null) continue
      slot.job.reject(new ShuttingDown())
      this.#post(slot.worker, { type: 'cancel', id: slot.job.id })
      slot.job = null
      slot.draining = true
    }
  }

  #post(worker: Worker, message: ToWorker): void {
    worker.postMessage(message)
  }
}

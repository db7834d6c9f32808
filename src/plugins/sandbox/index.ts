// The main thread's handle on one plugin's sandbox (worker.ts): starts the
// thread, hands it one hook call or one batch of event hooks at a time (with the
// batch's transactions, whose reads and writes the worker answers itself),
// answers its other `coffer.*` calls through the host handler (which checks
// capabilities), and ends the thread when a call outlives its timeout by a grace
// period (a plugin stuck where the engine's interrupt cannot reach). A sandbox
// that hit its time or memory limit is `broken`: the manager starts a fresh one
// before the next call.
import type { Worker } from 'node:worker_threads'
import { besideModule, startModuleWorker, threadCpuMs } from '../../worker-module.js'
import type { TransactionJson } from '../../ledger/json.js'
import {
  CONTROL_CELLS,
  CONTROL_DONE,
  CONTROL_STOP,
  CONTROL_THREAD,
  hostAnswerJson,
  parsePluginJson,
  type BatchCall,
  type BatchOutcome,
  type BatchWrite,
  type CallStatus,
  type FromWorker,
  type SandboxSetup,
  type ToWorker,
} from './messages.js'

export type { BatchCall, BatchOutcome, BatchWrite, CallStatus, SandboxSetup } from './messages.js'

/** Does what a plugin asked with `coffer.<method>(...args)`; throws to reject in the plugin. */
export type HostHandler = (method: string, args: unknown[]) => Promise<unknown>

export type CallOutcome =
  { status: 'ok'; value: unknown } | { status: Exclude<CallStatus, 'ok'>; message: string }

/**
 * How a batch of event hooks ended: `ran`, with the outcomes of the calls that
 * ran (a prefix of the batch) and their writes; or `ended`, the thread ended
 * (stuck past its deadline, or crashed) during the call after the first
 * `completed` ones, whose writes went with it.
 */
export type BatchResult =
  | { status: 'ran'; outcomes: BatchOutcome[]; writes: BatchWrite[]; wantsKnown: boolean }
  | { status: 'ended'; completed: number; failure: Exclude<BatchOutcome, { status: 'ok' }> }
  /** The batch was to stop (a shutdown) and its hook in flight outlasted STOP_GRACE_MS: the thread was ended. */
  | { status: 'stopped' }

/** Past the timeout, how long the engine's own interrupt gets before the thread is ended. */
const KILL_GRACE_MS = 2_000
const WATCH_MS = 250
/**
 * A thread whose CPU time cannot be read is ended by the clock instead; one whose
 * CPU time can, by the clock too when it passes this many times the limit
 * without finishing a call (stuck without running: nothing known does that).
 */
const CLOCK_BACKSTOP = 10
/**
 * Once a batch is asked to stop (the service is closing), how long its hook in
 * flight gets before the thread is ended. Nothing is lost: the batch's writes
 * are not written and the cursor stays before its events, which run again at
 * the next start. Without it, a hook with CPU time left (a busy machine gives a
 * plugin thread little of a core) would hold up the shutdown's 10 s bound.
 */
const STOP_GRACE_MS = 1_000

export class SandboxLoadError extends Error {
  override name = 'SandboxLoadError'
  constructor(
    readonly status: Exclude<CallStatus, 'ok'>,
    message: string,
  ) {
    super(message)
  }
}

const WORKER_URL = besideModule(import.meta.url, 'worker')

export class PluginSandbox {
  private nextId = 1
  /** The call or batch the worker is running, ended by its answer, the watchdog or an exit. */
  private current: { id: number; answer: (message: FromWorker) => void; exit: () => void } | null =
    null
  private turn: Promise<unknown> = Promise.resolve()
  private exited = false
  private hostCallsInFlight = 0
  broken = false

  private readonly control: Int32Array

  private constructor(
    private readonly worker: Worker,
    private readonly setup: SandboxSetup,
    private readonly host: HostHandler,
  ) {
    this.control = new Int32Array(setup.control)
  }

  /** Starts the thread and evaluates the plugin; answers its exported function names. */
  static async start(
    options: Omit<SandboxSetup, 'control'>,
    host: HostHandler,
  ): Promise<{ sandbox: PluginSandbox; exports: string[] }> {
    const setup: SandboxSetup = {
      ...options,
      control: new SharedArrayBuffer(CONTROL_CELLS * Int32Array.BYTES_PER_ELEMENT),
    }
    const worker = startModuleWorker(WORKER_URL, {
      workerData: setup,
      // The engine's own heap is capped by its limit; this caps the thread's.
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
    })
    const sandbox = new PluginSandbox(worker, setup, host)
    const exports = await new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          void worker.terminate()
          reject(new SandboxLoadError('timeout', `loading ran longer than ${setup.timeoutMs} ms`))
        },
        setup.timeoutMs + KILL_GRACE_MS + 5_000,
      )
      const onMessage = (message: FromWorker) => {
        if (message.type !== 'ready' && message.type !== 'failed') return
        clearTimeout(timer)
        worker.off('message', onMessage)
        if (message.type === 'ready') resolve(message.exports)
        else {
          void worker.terminate()
          reject(new SandboxLoadError(message.status, message.message))
        }
      }
      worker.on('message', onMessage)
      worker.once('error', (error) => {
        clearTimeout(timer)
        reject(new SandboxLoadError('error', `the sandbox failed: ${error.message}`))
      })
    })
    worker.on('message', (message: FromWorker) => sandbox.onMessage(message))
    worker.on('error', () => undefined)
    worker.once('exit', () => sandbox.onExit())
    return { sandbox, exports }
  }

  /** Calls one exported hook with `arg` (one call at a time, in order). */
  call(hook: string, arg: unknown): Promise<CallOutcome> {
    return this.inTurn(() => this.callNow(hook, arg))
  }

  /**
   * Runs event hooks in order in the worker, handing it `known` transactions
   * whose reads and writes it answers itself; it stops after `sliceMs`, at a
   * call that broke a limit, after a hook that wanted `known` when it was not
   * sent, or (after the hook in flight) once `signal` aborts.
   */
  runBatch(
    calls: BatchCall[],
    known: Array<[id: string, transaction: TransactionJson | null]> | null,
    sliceMs: number,
    signal: AbortSignal,
  ): Promise<BatchResult> {
    return this.inTurn(() => this.runBatchNow(calls, known, sliceMs, signal))
  }

  private inTurn<T>(run: () => Promise<T>): Promise<T> {
    const result = this.turn.then(run)
    this.turn = result.catch(() => undefined)
    return result
  }

  private callNow(hook: string, arg: unknown): Promise<CallOutcome> {
    if (this.exited) {
      return Promise.resolve({ status: 'error', message: 'the sandbox has stopped' })
    }
    return new Promise<CallOutcome>((resolve) => {
      const timeout = `ran longer than ${this.setup.timeoutMs} ms`
      const id = this.begin<CallOutcome>(resolve, {
        answer: (message) => {
          if (message.type !== 'done') return null
          if (message.status !== 'ok') return { status: message.status, message: message.message }
          let value: unknown = null
          try {
            value = message.json === null ? null : parsePluginJson(message.json)
          } catch {
            value = null
          }
          return { status: 'ok', value }
        },
        killed: () => ({ status: 'timeout', message: timeout }),
        exited: () => ({ status: 'error', message: 'the sandbox stopped' }),
      })
      this.post({ type: 'call', id, hook, arg: JSON.stringify(arg ?? null) })
    }).then((outcome) => {
      if (outcome.status === 'timeout' || outcome.status === 'memory') this.broken = true
      return outcome
    })
  }

  private runBatchNow(
    calls: BatchCall[],
    known: Array<[id: string, transaction: TransactionJson | null]> | null,
    sliceMs: number,
    signal: AbortSignal,
  ): Promise<BatchResult> {
    if (this.exited || signal.aborted) {
      return Promise.resolve({ status: 'ran', outcomes: [], writes: [], wantsKnown: false })
    }
    const stop = () => Atomics.store(this.control, CONTROL_STOP, 1)
    Atomics.store(this.control, CONTROL_STOP, 0)
    signal.addEventListener('abort', stop)
    const ended = (failure: Exclude<BatchOutcome, { status: 'ok' }>) => (): BatchResult => ({
      status: 'ended',
      completed: Atomics.load(this.control, CONTROL_DONE),
      failure,
    })
    return new Promise<BatchResult>((resolve) => {
      const id = this.begin<BatchResult>(resolve, {
        answer: (message) =>
          message.type === 'batch-done'
            ? {
                status: 'ran',
                outcomes: message.outcomes,
                writes: message.writes,
                wantsKnown: message.wantsKnown,
              }
            : null,
        killed: ended({ status: 'timeout', message: `ran longer than ${this.setup.timeoutMs} ms` }),
        exited: ended({ status: 'error', message: 'the sandbox stopped' }),
        stopped: () => ({ status: 'stopped' }),
      })
      this.post({ type: 'batch', id, calls, known, sliceMs })
    }).then((result) => {
      signal.removeEventListener('abort', stop)
      if (result.status !== 'ran') this.broken = true
      else if (result.outcomes.some((o) => o.status === 'timeout' || o.status === 'memory'))
        this.broken = true
      return result
    })
  }

  /**
   * Makes `id` the current call and watches it: the engine stops itself when its
   * budget is spent (budget.ts), and this ends the thread when it does not, by
   * the thread's CPU time where it can be read. The clock's time waiting on a
   * host call is not counted; a batch's clock starts again at each call it
   * finishes. A batch asked to stop (`stopped`) is ended STOP_GRACE_MS after.
   */
  private begin<T>(
    resolve: (value: T) => void,
    ends: {
      answer: (message: FromWorker) => T | null
      killed: () => T
      exited: () => T
      stopped?: () => T
    },
  ): number {
    const id = this.nextId++
    Atomics.store(this.control, CONTROL_DONE, 0)
    const thread = Atomics.load(this.control, CONTROL_THREAD)
    const cpu = () => (thread === 0 ? null : threadCpuMs(thread))
    // Read at the first tick, not here: most batches end well before it, and a
    // read (a file of /proc) at every batch of five no-op plugins was 63 ms of
    // the 474 ms they added to the main thread in the plugins bench's write
    // window. The first tick is charged whole, as if the thread had been on the
    // CPU throughout: the thread is ended at most WATCH_MS early, still well
    // past the engine's own interrupt (KILL_GRACE_MS).
    let cpuFrom: number | null | undefined
    let clockSpent = 0
    let progress = 0
    let stopWaited = 0
    const limit = this.setup.timeoutMs + KILL_GRACE_MS
    const end = (value: T) => {
      this.broken = true
      void this.worker.terminate()
      finish(value)
    }
    const timer = setInterval(() => {
      if (ends.stopped && Atomics.load(this.control, CONTROL_STOP) !== 0) {
        stopWaited += WATCH_MS
        if (stopWaited >= STOP_GRACE_MS) return end(ends.stopped())
      }
      const done = Atomics.load(this.control, CONTROL_DONE)
      // One reading a tick (none once the thread's CPU time proved unreadable).
      const cpuNow = cpuFrom === null ? null : cpu()
      if (cpuFrom === undefined) cpuFrom = cpuNow === null ? null : cpuNow - WATCH_MS
      if (done !== progress) {
        progress = done
        clockSpent = 0
        cpuFrom = cpuNow
      } else if (this.hostCallsInFlight === 0) clockSpent += WATCH_MS
      const stuck =
        cpuNow === null || cpuFrom === null
          ? clockSpent >= limit
          : cpuNow - cpuFrom >= limit || clockSpent >= limit * CLOCK_BACKSTOP
      if (stuck) end(ends.killed())
    }, WATCH_MS)
    const finish = (value: T) => {
      clearInterval(timer)
      if (this.current?.id === id) this.current = null
      resolve(value)
    }
    this.current = {
      id,
      answer: (message) => {
        const value = ends.answer(message)
        if (value !== null) finish(value)
      },
      exit: () => finish(ends.exited()),
    }
    return id
  }

  async close(): Promise<void> {
    this.exited = true
    await this.worker.terminate()
  }

  private post(message: ToWorker): void {
    if (!this.exited) this.worker.postMessage(message)
  }

  private onMessage(message: FromWorker): void {
    if (message.type === 'done' || message.type === 'batch-done') {
      if (this.current?.id === message.id) this.current.answer(message)
    } else if (message.type === 'host') {
      void this.answerHost(message.callId, message.method, message.args)
    }
  }

  private async answerHost(callId: number, method: string, argsJson: string): Promise<void> {
    let reply: ToWorker
    this.hostCallsInFlight++
    try {
      const args = parsePluginJson(argsJson)
      const value = await this.host(method, Array.isArray(args) ? args : [])
      const json = hostAnswerJson(method, value)
      reply = { type: 'host-result', callId, ok: true, json }
    } catch (error) {
      reply = {
        type: 'host-result',
        callId,
        ok: false,
        message: error instanceof Error ? error.message : String(error),
      }
    } finally {
      this.hostCallsInFlight--
    }
    this.post(reply)
  }

  private onExit(): void {
    this.exited = true
    this.broken = true
    this.current?.exit()
  }
}

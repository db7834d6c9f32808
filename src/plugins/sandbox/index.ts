// The main thread's handle on one plugin's sandbox (worker.ts): starts the
// thread, hands it one hook call at a time, answers its `coffer.*` calls through
// the host handler (which checks capabilities), and ends the thread when a call
// outlives its timeout by a grace period (a plugin stuck where the engine's
// interrupt cannot reach). A sandbox that hit its time or memory limit is
// `broken`: the manager starts a fresh one before the next call.
import sjson from 'secure-json-parse'
import type { Worker } from 'node:worker_threads'
import { besideModule, startModuleWorker } from '../../worker-module.js'
import {
  HOST_VALUE_MAX_BYTES,
  type CallStatus,
  type FromWorker,
  type SandboxSetup,
  type ToWorker,
} from './messages.js'

export type { CallStatus, SandboxSetup } from './messages.js'

/** Does what a plugin asked with `coffer.<method>(...args)`; throws to reject in the plugin. */
export type HostHandler = (method: string, args: unknown[]) => Promise<unknown>

export type CallOutcome =
  { status: 'ok'; value: unknown } | { status: Exclude<CallStatus, 'ok'>; message: string }

/** Past the timeout, how long the engine's own interrupt gets before the thread is ended. */
const KILL_GRACE_MS = 2_000
const WATCH_MS = 250

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

/** JSON from plugin code: `__proto__` keys are dropped, never turned into prototypes. */
function parsePluginJson(text: string): unknown {
  return sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' })
}

export class PluginSandbox {
  private nextId = 1
  private current: { id: number; done: (outcome: CallOutcome) => void } | null = null
  private turn: Promise<unknown> = Promise.resolve()
  private exited = false
  private hostCallsInFlight = 0
  broken = false

  private constructor(
    private readonly worker: Worker,
    private readonly setup: SandboxSetup,
    private readonly host: HostHandler,
  ) {}

  /** Starts the thread and evaluates the plugin; answers its exported function names. */
  static async start(
    setup: SandboxSetup,
    host: HostHandler,
  ): Promise<{ sandbox: PluginSandbox; exports: string[] }> {
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
    const run = this.turn.then(() => this.callNow(hook, arg))
    this.turn = run.catch(() => undefined)
    return run
  }

  private callNow(hook: string, arg: unknown): Promise<CallOutcome> {
    if (this.exited) {
      return Promise.resolve({ status: 'error', message: 'the sandbox has stopped' })
    }
    const id = this.nextId++
    return new Promise<CallOutcome>((resolve) => {
      // The engine stops itself at its deadline; this ends the thread when it does
      // not. Time the plugin waits on a host call is not counted, as in the engine.
      let spent = 0
      const limit = this.setup.timeoutMs + KILL_GRACE_MS
      const timer = setInterval(() => {
        if (this.hostCallsInFlight === 0) spent += WATCH_MS
        if (spent < limit) return
        this.broken = true
        void this.worker.terminate()
        finish({ status: 'timeout', message: `ran longer than ${this.setup.timeoutMs} ms` })
      }, WATCH_MS)
      const finish = (outcome: CallOutcome) => {
        clearInterval(timer)
        if (this.current?.id === id) this.current = null
        if (outcome.status === 'timeout' || outcome.status === 'memory') this.broken = true
        resolve(outcome)
      }
      this.current = { id, done: finish }
      this.post({ type: 'call', id, hook, arg: JSON.stringify(arg ?? null) })
    })
  }

  async close(): Promise<void> {
    this.exited = true
    await this.worker.terminate()
  }

  private post(message: ToWorker): void {
    if (!this.exited) this.worker.postMessage(message)
  }

  private onMessage(message: FromWorker): void {
    if (message.type === 'done') {
      if (this.current?.id !== message.id) return
      if (message.status === 'ok') {
        let value: unknown = null
        try {
          value = message.json === null ? null : parsePluginJson(message.json)
        } catch {
          value = null
        }
        this.current.done({ status: 'ok', value })
      } else {
        this.current.done({ status: message.status, message: message.message })
      }
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
      const json = value === undefined ? null : JSON.stringify(value)
      if (json !== null && json.length > HOST_VALUE_MAX_BYTES)
        throw new Error(`coffer.${method}: the answer is over ${HOST_VALUE_MAX_BYTES} bytes`)
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
    this.current?.done({ status: 'error', message: 'the sandbox stopped' })
  }
}

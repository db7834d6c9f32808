// One plugin's sandbox (CONTRACT 9): a QuickJS engine compiled to WebAssembly,
// in a worker thread of its own so that a plugin that spins or thrashes costs
// the service's event loop nothing. The engine has no filesystem, process,
// network or module loader; its only door out is `coffer`, whose calls become
// messages to the main thread, which checks capabilities and does the work.
// CPU time is bounded by an interrupt handler, memory by the engine's limit,
// recursion by its stack limit; the main thread ends the whole thread as a last
// resort (index.ts).
import { parentPort, workerData } from 'node:worker_threads'
import {
  newQuickJSWASMModule,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSRuntime,
  type VmCallResult,
} from 'quickjs-emscripten'
import { NotFound } from '../../errors.js'
import { lowerThisThreadPriority, thisThreadId, threadCpuMs } from '../../worker-module.js'
import type { TransactionJson } from '../../ledger/json.js'
import { changeOf, isWriteMethod, PendingChanges, WRITE_METHODS, writeAnswer } from '../changes.js'
import { CallBudget } from './budget.js'
import {
  CONTROL_DONE,
  CONTROL_STOP,
  CONTROL_THREAD,
  HOST_VALUE_MAX_BYTES,
  hostAnswerJson,
  parsePluginJson,
  RESULT_MAX_BYTES,
  type BatchOutcome,
  type BatchWrite,
  type CallStatus,
  type FromWorker,
  type SandboxSetup,
  type ToWorker,
} from './messages.js'

const setup = workerData as SandboxSetup
const port = parentPort!
const control = new Int32Array(setup.control)
const send = (message: FromWorker) => port.postMessage(message)
/** This thread's kernel id: its CPU time is read by it and by the main thread's watchdog. */
const threadId = thisThreadId()
const threadCpu = (): number | null => (threadId === null ? null : threadCpuMs(threadId))

/**
 * Plugins run below the service: when a sandbox and the main thread want the
 * same core, the main thread (requests, writes) goes first. Five no-op plugins
 * at the same priority took the core from the writer hundreds of times a
 * second (docs/performance.md, Plugins).
 */
const PLUGIN_THREAD_NICE = 10

/** The shortest wait on a pending promise before its budget is looked at again. */
const MIN_WAIT_MS = 1

/** The engine's stack: deep recursion ends as an error well before the thread's own stack. */
const STACK_BYTES = 256 * 1024

// Evaluated before the plugin: builds the frozen `coffer` global over the one
// native door, with JSON captured here so that a plugin replacing JSON.stringify
// only fools itself.
const PRELUDE = `(() => {
  const host = globalThis.__coffer_host
  delete globalThis.__coffer_host
  const { stringify, parse } = JSON
  const freeze = (value) => {
    if (value && typeof value === 'object') { Object.values(value).forEach(freeze); Object.freeze(value) }
    return value
  }
  let config = freeze(parse(globalThis.__coffer_config))
  delete globalThis.__coffer_config
  const call = (method) => async (...args) => {
    const text = await host(method, stringify(args) ?? '[]')
    return text === undefined || text === null ? undefined : parse(text)
  }
  const setConfig = call('setConfig')
  const coffer = {
    get config() { return config },
    log: (level, message, fields) => { host('log', stringify([level, String(message), fields ?? null]) ?? '[]') },
    async setConfig(changes) { config = freeze(await setConfig(changes)); return config },
    getTransaction: call('getTransaction'),
    search: call('search'),
    applyLabels: call('applyLabels'),
    removeLabels: call('removeLabels'),
    setExtension: call('setExtension'),
    removeExtension: call('removeExtension'),
    fetch: call('fetch'),
  }
  Object.defineProperty(globalThis, 'coffer', { value: Object.freeze(coffer), enumerable: true })
})()`

/** A failure the worker itself decides (a deadline passed, a result too large). */
class SandboxFailure extends Error {
  constructor(name: string, message: string) {
    super(message)
    this.name = name
  }
}

/**
 * The transactions of a batch's events, as the main thread read them when it
 * handed the batch over, with the batch's writes kept over them: the worker
 * answers reads and writes of these itself, so a labelling hook costs no round
 * trip to the main thread. Anything else is asked of the main thread.
 */
interface LocalTransactions {
  /** null: the batch came without them, and every read and write is asked of the main thread. */
  known: Map<string, TransactionJson | null> | null
  pending: PendingChanges
  writes: BatchWrite[]
  /** A hook read or wrote a transaction while `known` was null. */
  wantsKnown: boolean
}

type LocalAnswer = { ok: true; json: string | null } | { ok: false; message: string }

interface Failure {
  status: Exclude<CallStatus, 'ok'>
  message: string
}

/** Sorts an engine error into CONTRACT 9's statuses. */
function failureOf(error: unknown): Failure {
  const { name, message } =
    typeof error === 'object' && error !== null
      ? (error as { name?: unknown; message?: unknown })
      : { name: undefined, message: error }
  const text = typeof message === 'string' ? message : String(message)
  if (name === 'InternalError' && text === 'interrupted')
    return { status: 'timeout', message: `ran longer than ${setup.timeoutMs} ms` }
  if (name === 'InternalError' && text === 'out of memory')
    return { status: 'memory', message: `used more than ${setup.memoryBytes / 1024 / 1024} MiB` }
  const label = typeof name === 'string' && name !== '' ? `${name}: ` : ''
  return { status: 'error', message: `${label}${text}`.slice(0, 2000) }
}

class Sandbox {
  private readonly budget = new CallBudget(setup.timeoutMs, threadCpu)
  private nextCallId = 1
  private readonly hostCalls = new Map<number, QuickJSDeferredPromise>()
  /** Woken when a host call answers, so that a waiting hook looks at its promise again. */
  private wake: (() => void) | null = null
  private ns: QuickJSHandle | null = null
  private local: LocalTransactions | null = null
  private stringify!: QuickJSHandle
  private parse!: QuickJSHandle

  constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly vm: QuickJSContext,
  ) {
    runtime.setMemoryLimit(setup.memoryBytes)
    runtime.setMaxStackSize(STACK_BYTES)
    runtime.setInterruptHandler(() => this.budget.spent())
  }

  /** Runs the prelude and the plugin's module; answers its exported names. */
  async load(): Promise<string[]> {
    const { vm } = this
    const json = vm.getProp(vm.global, 'JSON')
    this.stringify = vm.getProp(json, 'stringify')
    this.parse = vm.getProp(json, 'parse')
    json.dispose()
    const door = vm.newFunction('__coffer_host', (method, args) => this.hostCall(method, args))
    vm.setProp(vm.global, '__coffer_host', door)
    door.dispose()
    const config = vm.newString(setup.config)
    vm.setProp(vm.global, '__coffer_config', config)
    config.dispose()
    this.budget.start()
    vm.unwrapResult(vm.evalCode(PRELUDE, 'prelude.js')).dispose()

    const evaluated = vm.evalCode(setup.code, setup.filename, { type: 'module' })
    if (evaluated.error) throw this.take(evaluated.error)
    // A module with top-level await answers a promise of its namespace.
    this.ns = await this.settle(evaluated.value)
    const keys = vm.unwrapResult(
      vm.evalCode('(ns) => Object.keys(ns).filter((k) => typeof ns[k] === "function")'),
    )
    const names = vm.unwrapResult(vm.callFunction(keys, vm.undefined, this.ns))
    keys.dispose()
    const exported = vm.dump(names) as string[]
    names.dispose()
    this.budget.stop()
    return exported
  }

  /** Calls a hook; answers its result as JSON text (checked against RESULT_MAX_BYTES). */
  async call(hook: string, arg: string): Promise<string | null> {
    const { vm } = this
    this.budget.start()
    try {
      const fn = vm.getProp(this.ns!, hook)
      const text = vm.newString(arg)
      const parsed = vm.callFunction(this.parse, vm.undefined, text)
      text.dispose()
      if (parsed.error) throw this.take(parsed.error)
      const returned = vm.callFunction(fn, vm.undefined, parsed.value)
      fn.dispose()
      parsed.value.dispose()
      if (returned.error) throw this.take(returned.error)
      const value = await this.settle(returned.value)
      return this.serialize(value)
    } finally {
      this.budget.stop()
    }
  }

  /**
   * Runs event hooks in order until they are done, the slice of time has
   * passed, one broke a limit (the engine is not to be trusted after), or the
   * main thread asked to stop.
   */
  async runBatch(
    message: Extract<ToWorker, { type: 'batch' }>,
  ): Promise<Omit<Extract<FromWorker, { type: 'batch-done' }>, 'type' | 'id'>> {
    const local: LocalTransactions = {
      known: message.known ? new Map(message.known) : null,
      pending: new PendingChanges(),
      writes: [],
      wantsKnown: false,
    }
    this.local = local
    const outcomes: BatchOutcome[] = []
    const started = Date.now()
    try {
      for (const { hook, arg } of message.calls) {
        if (Atomics.load(control, CONTROL_STOP) !== 0) break
        if (outcomes.length > 0 && Date.now() - started >= message.sliceMs) break
        try {
          // An event hook's result is not used, but one too large is still its error.
          await this.call(hook, arg)
          outcomes.push({ status: 'ok' })
        } catch (error) {
          const failure = failureOf(error)
          outcomes.push(failure)
          if (failure.status !== 'error') break
        } finally {
          Atomics.store(control, CONTROL_DONE, outcomes.length)
        }
        // The rest of the batch runs with its transactions in hand (messages.ts).
        if (local.wantsKnown) break
      }
      return { outcomes, writes: local.writes, wantsKnown: local.wantsKnown }
    } finally {
      this.local = null
    }
  }

  /**
   * Answers a read or a write of a transaction this batch knows, as the host
   * would (the same checks, the same messages); null when the host must answer.
   */
  private answerLocally(method: string, argsJson: string): LocalAnswer | null {
    const local = this.local
    if (!local) return null
    const capability =
      method === 'getTransaction'
        ? 'transactions:read'
        : isWriteMethod(method)
          ? WRITE_METHODS[method]
          : null
    // Without the capability the host answers, with its own message.
    if (!capability || !setup.capabilities.includes(capability)) return null
    if (!local.known) {
      local.wantsKnown = true
      return null
    }
    let args: unknown
    try {
      args = parsePluginJson(argsJson)
    } catch {
      return null
    }
    if (!Array.isArray(args) || typeof args[0] !== 'string' || !local.known.has(args[0]))
      return null
    const id = args[0]
    const current = local.known.get(id) ?? null
    try {
      let value: unknown
      if (method === 'getTransaction') {
        value = current && local.pending.overlay(current)
      } else if (isWriteMethod(method)) {
        if (!current) throw new NotFound(`transaction ${id} not found`)
        const change = changeOf(method, args)
        const after = local.pending.add(current, change)
        local.writes.push({ id, change })
        value = writeAnswer(change, after)
      }
      const json = hostAnswerJson(method, value)
      return { ok: true, json }
    } catch (error) {
      return { ok: false, message: error instanceof Error ? error.message : String(error) }
    }
  }

  /** The JSON text of a hook's result, refused when it passes RESULT_MAX_BYTES. */
  private serialize(value: QuickJSHandle): string | null {
    const { vm } = this
    if (vm.typeof(value) === 'undefined') {
      value.dispose()
      return null
    }
    const out = vm.callFunction(this.stringify, vm.undefined, value)
    value.dispose()
    if (out.error) throw this.take(out.error)
    if (vm.typeof(out.value) !== 'string') {
      out.value.dispose()
      return null
    }
    if (this.lengthOf(out.value) > RESULT_MAX_BYTES) {
      out.value.dispose()
      throw new SandboxFailure('Error', `the hook returned more than ${RESULT_MAX_BYTES} bytes`)
    }
    const json = vm.getString(out.value)
    out.value.dispose()
    return json
  }

  /** A string's length, read inside the engine before any of it is copied out. */
  private lengthOf(text: QuickJSHandle): number {
    const length = this.vm.getProp(text, 'length')
    const value = this.vm.getNumber(length)
    length.dispose()
    return value
  }

  /** Waits for a promise handle (running the engine's jobs as host calls answer). */
  private async settle(handle: QuickJSHandle): Promise<QuickJSHandle> {
    const { vm, runtime } = this
    const first = vm.getPromiseState(handle)
    if (first.type === 'fulfilled' && first.notAPromise) return handle
    for (;;) {
      const jobs = runtime.executePendingJobs()
      if (jobs.error) throw this.take(jobs.error)
      const state = vm.getPromiseState(handle)
      if (state.type === 'fulfilled') {
        handle.dispose()
        return state.value
      }
      if (state.type === 'rejected') {
        handle.dispose()
        throw this.take(state.error)
      }
      if (this.budget.spent()) throw new SandboxFailure('InternalError', 'interrupted')
      // Pending: only a host call's answer can move it. Time spent waiting for the
      // host is not the plugin's (the host bounds its own calls, a fetch at 10 s);
      // waiting on nothing (a promise that never settles) is (budget.ts).
      const waitingOnHost = this.hostCalls.size > 0
      const waitedFrom = Date.now()
      await new Promise<void>((resolve) => {
        const timer = waitingOnHost
          ? null
          : setTimeout(resolve, Math.max(this.budget.msLeft, MIN_WAIT_MS))
        this.wake = () => {
          if (timer) clearTimeout(timer)
          resolve()
        }
      })
      const waited = Date.now() - waitedFrom
      if (waitingOnHost) this.budget.waitedOnHost(waited)
      else this.budget.waitedOnPlugin(waited)
      this.wake = null
    }
  }

  /** The plugin called `coffer.<method>(...)`: ask the main thread, answer with a promise. */
  private hostCall(
    methodHandle: QuickJSHandle,
    argsHandle: QuickJSHandle,
  ): QuickJSHandle | VmCallResult<QuickJSHandle> {
    const { vm } = this
    const method = vm.getString(methodHandle)
    if (this.lengthOf(argsHandle) > HOST_VALUE_MAX_BYTES)
      return {
        error: vm.newError(`coffer.${method}: arguments over ${HOST_VALUE_MAX_BYTES} bytes`),
      }
    const args = vm.getString(argsHandle)
    // Answered here, as a plain value or a throw: the prelude awaits either like a promise.
    const local = this.answerLocally(method, args)
    if (local) {
      if (!local.ok) return { error: vm.newError(local.message) }
      return local.json === null ? vm.undefined : vm.newString(local.json)
    }
    const deferred = vm.newPromise()
    const callId = this.nextCallId++
    this.hostCalls.set(callId, deferred)
    send({ type: 'host', callId, method, args })
    return deferred.handle
  }

  answer(message: Extract<ToWorker, { type: 'host-result' }>): void {
    const deferred = this.hostCalls.get(message.callId)
    if (!deferred) return
    this.hostCalls.delete(message.callId)
    this.settleDeferred(deferred, message)
    this.wake?.()
  }

  private settleDeferred(
    deferred: QuickJSDeferredPromise,
    message: Extract<ToWorker, { type: 'host-result' }>,
  ): void {
    const { vm } = this
    if (message.ok) {
      const value = message.json === null ? vm.undefined : vm.newString(message.json)
      deferred.resolve(value)
      if (message.json !== null) value.dispose()
    } else {
      const error = vm.newError(message.message)
      deferred.reject(error)
      error.dispose()
    }
    // Settling frees the resolvers; the promise's handle went to the engine when
    // the host function returned it.
  }

  private memoryNearLimit(): boolean {
    const usage = this.runtime.computeMemoryUsage()
    try {
      const used = (this.vm.dump(usage) as { memory_used_size?: number }).memory_used_size ?? 0
      return used >= setup.memoryBytes * 0.8
    } catch {
      return true
    } finally {
      usage.dispose()
    }
  }

  /**
   * Copies an engine error out (and frees its handle). Name and message are read
   * one by one: right after an out-of-memory error, a whole dump may not fit.
   */
  private take(handle: QuickJSHandle): unknown {
    try {
      return this.read(handle)
    } finally {
      handle.dispose()
    }
  }

  /** take() without freeing the handle (one the engine lends a host function). */
  private read(handle: QuickJSHandle): unknown {
    const { vm } = this
    if (vm.typeof(handle) !== 'object') return vm.dump(handle)
    // An engine that ran out of memory may have no room left for the error and throw null.
    if (vm.dump(handle) === null && this.memoryNearLimit())
      return { name: 'InternalError', message: 'out of memory' }
    const read = (key: string) => {
      const value = vm.getProp(handle, key)
      const text = vm.typeof(value) === 'string' ? vm.getString(value) : undefined
      value.dispose()
      return text
    }
    return { name: read('name'), message: read('message') ?? (vm.dump(handle) as unknown) }
  }
}

async function main(): Promise<void> {
  if (threadId !== null) Atomics.store(control, CONTROL_THREAD, threadId)
  lowerThisThreadPriority(PLUGIN_THREAD_NICE)
  const module = await newQuickJSWASMModule()
  const runtime = module.newRuntime()
  const sandbox = new Sandbox(runtime, runtime.newContext())
  try {
    send({ type: 'ready', exports: await sandbox.load() })
  } catch (error) {
    send({ type: 'failed', ...failureOf(error) })
    return
  }
  // One hook at a time, in arrival order: the main thread sends the next when one is done.
  let turn = Promise.resolve()
  port.on('message', (message: ToWorker) => {
    if (message.type === 'host-result') {
      sandbox.answer(message)
      return
    }
    if (message.type === 'batch') {
      turn = turn.then(async () => {
        send({ type: 'batch-done', id: message.id, ...(await sandbox.runBatch(message)) })
      })
      return
    }
    turn = turn.then(async () => {
      try {
        const json = await sandbox.call(message.hook, message.arg)
        send({ type: 'done', id: message.id, status: 'ok', json })
      } catch (error) {
        send({ type: 'done', id: message.id, ...failureOf(error) })
      }
    })
  })
}

await main()

// What the plugin sandbox's worker thread (worker.ts) and its handle on the
// main thread (index.ts) say to each other. Values cross as JSON text: nothing of
// the host is ever shared with plugin code, so nothing of it can be reached or
// polluted from inside.
import sjson from 'secure-json-parse'
import type { TransactionJson } from '../../ledger/json.js'
import type { KeyedChange } from '../changes.js'

/** How a hook call ended: CONTRACT 9's `last_status` values. */
export type CallStatus = 'ok' | 'error' | 'timeout' | 'memory'

export interface SandboxSetup {
  name: string
  /** The entrypoint as an ES module (TypeScript already transpiled). */
  code: string
  filename: string
  /** The plugin's effective `coffer.config`, as JSON text. */
  config: string
  memoryBytes: number
  /** CPU time of one hook call (and of the module's first evaluation). */
  timeoutMs: number
  /** The manifest's capabilities: the worker answers only what the plugin may ask. */
  capabilities: string[]
  /** Int32 cells shared with the main thread, at the CONTROL_* indexes. */
  control: SharedArrayBuffer
}

/** control[CONTROL_STOP] ≠ 0: end the batch after the hook in flight (a shutdown). */
export const CONTROL_STOP = 0
/** control[CONTROL_DONE]: how many calls of the batch have finished (the watchdog's progress). */
export const CONTROL_DONE = 1
/** control[CONTROL_THREAD]: the worker thread's kernel id (0: unknown), whose CPU time the watchdog reads. */
export const CONTROL_THREAD = 2
export const CONTROL_CELLS = 3

/** One event hook call of a batch; `arg` is JSON text. */
export interface BatchCall {
  hook: string
  arg: string
}

export type BatchOutcome = { status: 'ok' } | { status: Exclude<CallStatus, 'ok'>; message: string }

/** A write the worker checked and answered; the main thread writes it. */
export interface BatchWrite {
  id: string
  change: KeyedChange
}

/** Host calls may carry at most this much JSON (arguments and results alike). */
export const HOST_VALUE_MAX_BYTES = 1024 * 1024
/** A hook's return value, as JSON, at most this long. */
export const RESULT_MAX_BYTES = 1024 * 1024

export type ToWorker =
  | { type: 'call'; id: number; hook: string; arg: string }
  /**
   * Event hooks to run in order, until they are done, `sliceMs` has passed, a
   * call broke a limit, or control[CONTROL_STOP] is set. `known`: the
   * transactions of those events as they stand (null: there is none), whose
   * reads and writes the worker answers itself; null when not sent, for a
   * plugin that has not read or written one yet (see `wantsKnown`).
   */
  | {
      type: 'batch'
      id: number
      calls: BatchCall[]
      known: Array<[id: string, transaction: TransactionJson | null]> | null
      sliceMs: number
    }
  | { type: 'host-result'; callId: number; ok: true; json: string | null }
  | { type: 'host-result'; callId: number; ok: false; message: string }

export type FromWorker =
  | { type: 'ready'; exports: string[] }
  | { type: 'failed'; status: Exclude<CallStatus, 'ok'>; message: string }
  | { type: 'done'; id: number; status: 'ok'; json: string | null }
  | { type: 'done'; id: number; status: Exclude<CallStatus, 'ok'>; message: string }
  /**
   * `wantsKnown`: the batch came without `known` and a hook read or wrote a
   * transaction; the batch stopped after that hook, so that the rest run with them.
   */
  | {
      type: 'batch-done'
      id: number
      outcomes: BatchOutcome[]
      writes: BatchWrite[]
      wantsKnown: boolean
    }
  | { type: 'host'; callId: number; method: string; args: string }

/** JSON from plugin code: `__proto__` keys are dropped, never turned into prototypes. */
export function parsePluginJson(text: string): unknown {
  return sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' })
}

/** A host call's answer as the JSON text the plugin gets (null: undefined); refused past HOST_VALUE_MAX_BYTES. */
export function hostAnswerJson(method: string, value: unknown): string | null {
  const json = value === undefined ? null : JSON.stringify(value)
  if (json !== null && json.length > HOST_VALUE_MAX_BYTES)
    throw new Error(`coffer.${method}: the answer is over ${HOST_VALUE_MAX_BYTES} bytes`)
  return json
}

// What the plugin sandbox's worker thread (worker.ts) and its handle on the
// main thread (index.ts) say to each other. Values cross as JSON text: nothing of
// the host is ever shared with plugin code, so nothing of it can be reached or
// polluted from inside.

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
}

/** Host calls may carry at most this much JSON (arguments and results alike). */
export const HOST_VALUE_MAX_BYTES = 1024 * 1024
/** A hook's return value, as JSON, at most this long. */
export const RESULT_MAX_BYTES = 1024 * 1024

export type ToWorker =
  | { type: 'call'; id: number; hook: string; arg: string }
  | { type: 'host-result'; callId: number; ok: true; json: string | null }
  | { type: 'host-result'; callId: number; ok: false; message: string }

export type FromWorker =
  | { type: 'ready'; exports: string[] }
  | { type: 'failed'; status: Exclude<CallStatus, 'ok'>; message: string }
  | { type: 'done'; id: number; status: 'ok'; json: string | null }
  | { type: 'done'; id: number; status: Exclude<CallStatus, 'ok'>; message: string }
  | { type: 'host'; callId: number; method: string; args: string }

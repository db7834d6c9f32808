// In-process notices from one part of the service to another, carried on the
// service context (so that two services in one process, as in tests, stay apart),
// and the service's "closing" signal: long work checks it between its steps.
import { EventEmitter } from 'node:events'
import { ShuttingDown } from './errors.js'

interface SignalArgs {
  /** A webhook was created, edited, rotated or deleted: the dispatcher reloads. */
  'webhooks.changed': []
  /** Stored settings that apply at once changed the running configuration (their keys). */
  'settings.applied': [keys: string[]]
  /** A credential was revoked or replaced: what it holds open (event streams) ends. */
  'credential.revoked': [principal: string]
}

export class Signals extends EventEmitter<SignalArgs> {
  readonly #closing = new AbortController()

  /**
   * Aborted when the service begins to close (app.ts, first thing on SIGTERM):
   * a long read (a search's page loop, a rules run's read phase) or a sync
   * stops at its next step with ShuttingDown (503); what committed stays.
   */
  get closing(): AbortSignal {
    return this.#closing.signal
  }

  beginClosing(): void {
    this.#closing.abort(new ShuttingDown())
  }
}

/** Throws ShuttingDown (503) once `signal` is aborted; long work calls it between steps. */
export function throwIfClosing(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ShuttingDown()
}

// In-process notices from one part of the service to another, carried on the
// service context (so that two services in one process, as in tests, stay apart).
import { EventEmitter } from 'node:events'

interface SignalArgs {
  /** A webhook was created, edited, rotated or deleted: the dispatcher reloads. */
  'webhooks.changed': []
}

export class Signals extends EventEmitter<SignalArgs> {}

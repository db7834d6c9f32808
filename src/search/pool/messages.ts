// What the search pool (pool.ts) and its workers (worker.ts) say to each other,
// and how an error crosses the thread boundary: structured clone keeps an
// Error's message but not its class or fields, so a worker sends the fields the
// doors read (status, errors, code) and the pool rebuilds an error they map alike.
import {
  Conflict,
  Forbidden,
  Invalid,
  NotFound,
  ServiceError,
  ShuttingDown,
  Unauthorized,
  Unavailable,
  type FieldError,
} from '../../errors.js'
import type { SearchInput, SearchResult } from '../service.js'
import type { SummaryInput, SummaryJson } from '../summary.js'

/** What a worker is started with (workerData). */
export interface WorkerSetup {
  /** The SQLite file the worker opens read-only. */
  path: string
}

/** The work a worker does: a search, or a summary (src/search/summary.ts). */
export type Work = { kind: 'search'; input: SearchInput } | { kind: 'summary'; input: SummaryInput }

/** What each kind of work answers. */
export interface WorkResult {
  search: SearchResult
  summary: SummaryJson
}

export type ToWorker =
  | { type: 'search'; id: number; work: Work }
  /** The service is closing: the search ends at its next page with ShuttingDown. */
  | { type: 'cancel'; id: number }
  /** Stop: cancel what runs, close the connection, end the thread. */
  | { type: 'close' }

export type FromWorker =
  | { type: 'result'; id: number; result: WorkResult[Work['kind']] }
  | { type: 'error'; id: number; error: SentError }
  | { type: 'log'; fields: Record<string, unknown>; message: string }

/** An error as a worker sends it. */
export interface SentError {
  name: string
  message: string
  stack?: string | undefined
  /** A ServiceError's status (its class is chosen by it, see rebuildError). */
  status?: number | undefined
  errors?: FieldError[] | undefined
  /** A database error's code (SQLITE_BUSY …): db/faults.ts reads it. */
  code?: string | undefined
}

export function sendableError(error: unknown): SentError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) }
  const code = (error as { code?: unknown }).code
  return {
    name: error.name,
    message: error.message,
    stack: error.stack,
    ...(error instanceof ServiceError ? { status: error.status, errors: error.errors } : {}),
    ...(typeof code === 'string' ? { code } : {}),
  }
}

type ServiceErrorClass = new (message: string, errors?: FieldError[]) => ServiceError

const BY_STATUS = new Map<number, ServiceErrorClass>([
  [400, Invalid],
  [401, Unauthorized],
  [403, Forbidden],
  [404, NotFound],
  [409, Conflict],
  [503, Unavailable],
])

/**
 * The error a worker sent, as the doors map it: a service error of the class of
 * its status with its message and fields (so a 400 stays that 400), a database
 * error with its code (a busy file stays a 503), anything else a plain Error.
 */
export function rebuildError(sent: SentError): Error {
  if (sent.name === 'ShuttingDown') return new ShuttingDown()
  const Class = sent.status === undefined ? undefined : BY_STATUS.get(sent.status)
  const error = Class ? new Class(sent.message, sent.errors) : new Error(sent.message)
  if (!Class) error.name = sent.name
  if (sent.code !== undefined) Object.assign(error, { code: sent.code })
  if (sent.stack !== undefined) error.stack = sent.stack
  return error
}

// Messages between parse-in-worker.ts (main thread) and parse-worker.ts.
import type { CsvMapping } from '../../config/index.js'
import type { IngestTransaction } from '../../ledger/ingest.js'
import type { FileReport } from './read-file.js'

export interface WorkerInput {
  mapping: CsvMapping
  accountId: string
}

/** Steps of rows the worker may post ahead of the main thread (each up to 1000 rows). */
export const MAX_UNACKED = 4

export type FromMain =
  | { type: 'chunk'; bytes: Uint8Array }
  | { type: 'end' }
  | { type: 'error'; message: string }
  /** One step of rows taken: the worker may post another. */
  | { type: 'ack' }

export type ToMain =
  /** The parser wants the next chunk of the file. */
  | { type: 'pull' }
  | { type: 'rows'; rows: IngestTransaction[] }
  | { type: 'done'; report: FileReport }
  | { type: 'failed'; message: string; fileError: boolean; report: FileReport }

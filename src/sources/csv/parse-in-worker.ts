// Large CSV files are parsed on a worker thread (parse-worker.ts) while the main
// thread merges the rows already parsed: on a re-sync, parsing, hashing and date
// handling cost as much CPU as the database work, and the two now overlap. The
// rows, their order and every error are those of readCsvRows in the main thread.
import type { Readable } from 'node:stream'
import type { Worker } from 'node:worker_threads'
import type { IngestTransaction } from '../../ledger/ingest.js'
import { besideModule, startModuleWorker } from '../../worker-module.js'
import type { FromMain, ToMain, WorkerInput } from './parse-protocol.js'
import { CsvFileError, type FileReport } from './read-file.js'

/** Files at least this large go to a worker; a smaller one is not worth a thread's start-up. */
export const WORKER_MIN_BYTES = 1024 * 1024

const WORKER_URL = besideModule(import.meta.url, 'parse-worker')

export interface WorkerParseOptions extends WorkerInput {
  report: FileReport
  /** Sees the thread as it starts (tests check that a reader leaving part-way ends it). */
  onWorker?: (worker: Worker) => void
}

/**
 * The rows of one file, parsed on a worker thread. However the caller stops
 * reading (the end, an error, a `break`), the worker has exited and `input` is
 * destroyed by the time the generator returns.
 */
export async function* readCsvRowsInWorker(
  input: Readable,
  options: WorkerParseOptions,
): AsyncGenerator<IngestTransaction[]> {
  const { report, onWorker, ...data } = options
  const worker = startModuleWorker(WORKER_URL, { workerData: data })
  onWorker?.(worker)
  const send = (message: FromMain, transfer?: ArrayBuffer[]) =>
    worker.postMessage(message, transfer)
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>
  const inbox: ToMain[] = []
  let wake: (() => void) | null = null
  const deliver = (message: ToMain) => {
    inbox.push(message)
    wake?.()
  }

  const feed = async () => {
    try {
      const next = await chunks.next()
      if (next.done) return send({ type: 'end' })
      // A copy of its own, so that the buffer can move to the worker without a second copy.
      const bytes = new Uint8Array(next.value)
      send({ type: 'chunk', bytes }, [bytes.buffer])
    } catch (error) {
      send({ type: 'error', message: error instanceof Error ? error.message : String(error) })
    }
  }
  worker.on('message', (message: ToMain) => {
    if (message.type === 'pull') void feed()
    else deliver(message)
  })
  worker.on('error', (error) =>
    deliver({ type: 'failed', message: error.message, fileError: false, report }),
  )
  worker.on('exit', () =>
    deliver({ type: 'failed', message: 'the CSV parser stopped', fileError: false, report }),
  )

  try {
    for (;;) {
      const message = inbox.shift()
      if (message === undefined) {
        await new Promise<void>((resolve) => (wake = resolve))
        wake = null
        continue
      }
      if (message.type === 'pull') continue
      if (message.type === 'rows') {
        send({ type: 'ack' })
        yield message.rows
        continue
      }
      Object.assign(report, message.report)
      if (message.type === 'done') return
      throw message.fileError ? new CsvFileError(message.message) : new Error(message.message)
    }
  } finally {
    await worker.terminate()
    input.destroy()
  }
}

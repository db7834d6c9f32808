// One search worker thread (pool.ts starts them): its own read-only connection
// to the service's SQLite file, one search at a time, each in one read
// transaction so that its count and its page see the same snapshot. The result
// goes back as searchWith returns it.
import { parentPort, workerData } from 'node:worker_threads'
import type { Logger } from 'pino'
import { openSqliteReader } from '../../db/connect.js'
import { ShuttingDown } from '../../errors.js'
import { searchWith } from '../service.js'
import { summarizeWith } from '../summary.js'
import {
  sendableError,
  type FromWorker,
  type ToWorker,
  type Work,
  type WorkerSetup,
  type WorkResult,
} from './messages.js'

const port = parentPort!
const { path } = workerData as WorkerSetup
const db = openSqliteReader(path)

function send(message: FromWorker): void {
  port.postMessage(message)
}

/** Lines go to the service's logger, in the main thread. */
const log = {
  error(fields: Record<string, unknown>, message: string) {
    send({ type: 'log', fields, message })
  },
} as Pick<Logger, 'error'>

/** The searches under way, each with the signal that ends it (ShuttingDown). */
const running = new Map<number, { cancel: AbortController; done: Promise<void> }>()

async function search(id: number, work: Work, cancel: AbortController): Promise<void> {
  try {
    // A deferred BEGIN: one snapshot for the whole search, no write lock.
    const result = await db
      .transaction()
      .execute((trx): Promise<WorkResult[Work['kind']]> =>
        work.kind === 'search'
          ? searchWith({ db: trx, log, closing: cancel.signal }, work.input)
          : summarizeWith({ db: trx, closing: cancel.signal }, work.input),
      )
    send({ type: 'result', id, result })
  } catch (error) {
    send({ type: 'error', id, error: sendableError(error) })
  }
}

async function close(): Promise<void> {
  for (const { cancel } of running.values()) cancel.abort(new ShuttingDown())
  await Promise.all([...running.values()].map((r) => r.done))
  await db.destroy()
  port.close()
}

// A search yields to the event loop between its pages, so a cancel is heard mid-search.
port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'search': {
      const cancel = new AbortController()
      const done = search(message.id, message.work, cancel).finally(() =>
        running.delete(message.id),
      )
      running.set(message.id, { cancel, done })
      break
    }
    case 'cancel':
      running.get(message.id)?.cancel.abort(new ShuttingDown())
      break
    case 'close':
      void close()
      break
  }
})

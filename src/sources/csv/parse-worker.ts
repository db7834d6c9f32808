// The worker side of parse-in-worker.ts: runs readCsvRows on a file whose bytes
// the main thread hands over on request, and posts the rows back in steps. Pull
// on both sides keeps memory flat: a chunk is asked for only when the parser
// wants one, and at most MAX_UNACKED steps of rows wait for the main thread.
import { Readable } from 'node:stream'
import { parentPort, workerData } from 'node:worker_threads'
import { guessingParser, layoutParser } from './date-layout.js'
import type { FromMain, ToMain, WorkerInput } from './parse-protocol.js'
import { MAX_UNACKED } from './parse-protocol.js'
import { CsvFileError, readCsvRows, type FileReport } from './read-file.js'

const port = parentPort!
const { mapping, accountId } = workerData as WorkerInput
const post = (message: ToMain, transfer?: ArrayBuffer[]) => port.postMessage(message, transfer)

const input = new Readable({
  read: () => post({ type: 'pull' }),
})
let unacked = 0
let onAck: (() => void) | null = null

port.on('message', (message: FromMain) => {
  switch (message.type) {
    case 'chunk':
      input.push(Buffer.from(message.bytes))
      break
    case 'end':
      input.push(null)
      break
    case 'error':
      input.destroy(new Error(message.message))
      break
    case 'ack':
      unacked--
      onAck?.()
      break
  }
})

const report: FileReport = { skipped: 0, examples: [] }
try {
  const rows = readCsvRows(input, {
    mapping,
    accountId,
    // As in the main thread: a parser per file, the guessing one learns the file's layout.
    parseDate: mapping.date_format === null ? guessingParser() : layoutParser(mapping.date_format),
    report,
  })
  for await (const step of rows) {
    post({ type: 'rows', rows: step })
    unacked++
    while (unacked >= MAX_UNACKED) await new Promise<void>((resolve) => (onAck = resolve))
    onAck = null
  }
  post({ type: 'done', report })
} catch (error) {
  post({
    type: 'failed',
    message: error instanceof Error ? error.message : String(error),
    fileError: error instanceof CsvFileError,
    report,
  })
}

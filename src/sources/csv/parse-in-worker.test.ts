// The worker path must be indistinguishable from parsing in the main thread:
// same rows in the same steps' order, same skipped count and examples, same errors.
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { test } from 'node:test'
import type { Worker } from 'node:worker_threads'
import type { CsvMapping } from '../../config/index.js'
import type { IngestTransaction } from '../../ledger/ingest.js'
import { guessingParser, layoutParser } from './date-layout.js'
import { readCsvRowsInWorker } from './parse-in-worker.js'
import { readCsvRows, type FileReport } from './read-file.js'

const AUTO: CsvMapping = {
  has_header: true,
  delimiter: ',',
  date_column: null,
  amount_column: null,
  debit_column: null,
  credit_column: null,
  description_column: null,
  payee_column: null,
  memo_column: null,
  date_format: null,
}

/** Small chunks, so that records and quoted newlines straddle chunk boundaries. */
function chunked(bytes: Buffer): Readable {
  const parts: Buffer[] = []
  for (let at = 0; at < bytes.length; at += 4096) parts.push(bytes.subarray(at, at + 4096))
  return Readable.from(parts)
}

interface Outcome {
  rows: IngestTransaction[]
  report: FileReport
  error: string | null
}

async function collect(rows: AsyncGenerator<IngestTransaction[]>, report: FileReport) {
  const outcome: Outcome = { rows: [], report, error: null }
  try {
    for await (const step of rows) outcome.rows.push(...step)
  } catch (error) {
    outcome.error = `${(error as Error).name}: ${(error as Error).message}`
  }
  return outcome
}

async function bothWays(bytes: Buffer, mapping: CsvMapping = AUTO) {
  const inThreadReport: FileReport = { skipped: 0, examples: [] }
  const inThread = await collect(
    readCsvRows(chunked(bytes), {
      mapping,
      accountId: 'csv:test',
      parseDate:
        mapping.date_format === null ? guessingParser() : layoutParser(mapping.date_format),
      report: inThreadReport,
    }),
    inThreadReport,
  )
  const workerReport: FileReport = { skipped: 0, examples: [] }
  const inWorker = await collect(
    readCsvRowsInWorker(chunked(bytes), { mapping, accountId: 'csv:test', report: workerReport }),
    workerReport,
  )
  return { inThread, inWorker }
}

test('a worker parses exactly as the main thread: quotes, newlines, BOM, CRLF, bad rows', async () => {
  const lines = ['\uFEFFDate,Description,Payee,Amount\r\n']
  for (let i = 0; i < 30_000; i++) {
    if (i % 1000 === 7) lines.push(`not a date,"Bad row ${i}",Shop,1.00\r\n`)
    else if (i % 1000 === 9) lines.push(`2024-02-03,"Bad amount ${i}",Shop,twelve\r\n`)
    else if (i % 500 === 3)
      lines.push(`03/04/2024,"Two\nlines, ""quoted"" ${i}",Café,"(1,234.50)"\r\n`)
    else
      lines.push(
        `2024-01-${String((i % 28) + 1).padStart(2, '0')},Purchase ${i},Shop ${i % 7},-${i}.25\r\n`,
      )
  }
  const { inThread, inWorker } = await bothWays(Buffer.from(lines.join('')))
  assert.equal(inThread.error, null)
  assert.equal(inThread.rows.length, 30_000 - 60)
  assert.equal(inThread.report.skipped, 60)
  assert.deepEqual(inWorker, inThread)
})

test('a worker reports a bad file as the main thread does', async () => {
  const binary = Buffer.concat([Buffer.from('Date,Amount\n2024-01-01,1\n'), Buffer.alloc(64)])
  const nul = await bothWays(binary)
  assert.equal(nul.inThread.error, 'CsvFileError: not a text file')
  assert.deepEqual(nul.inWorker, nul.inThread)

  const noHeader = await bothWays(Buffer.from('foo,bar\n1,2\n'))
  assert.match(noHeader.inThread.error ?? '', /^CsvFileError: /)
  assert.deepEqual(noHeader.inWorker, noHeader.inThread)

  const dayFirst = await bothWays(Buffer.from('Date,Amount\n13.02.2024,1\n31.12.2023,-2\n'), {
    ...AUTO,
    date_format: '02.01.2006',
  })
  assert.equal(dayFirst.inThread.rows.length, 2)
  assert.deepEqual(dayFirst.inWorker, dayFirst.inThread)
})

test('a reader left part-way stops its worker and releases the file', async (t) => {
  let body = 'Date,Amount\n'
  for (let i = 0; i < 50_000; i++) body += `2024-01-01,${i}\n`
  const input = chunked(Buffer.from(body))
  const report: FileReport = { skipped: 0, examples: [] }
  let worker: Worker | null = null
  let exited = false
  let seen = 0
  for await (const step of readCsvRowsInWorker(input, {
    mapping: AUTO,
    accountId: 'csv:test',
    report,
    onWorker: (started) => {
      worker = started
      // Should the code under test leak the thread, the test still ends (and fails).
      t.after(() => started.terminate())
      started.once('exit', () => (exited = true))
    },
  })) {
    seen += step.length
    assert.equal(exited, false, 'the worker exited while rows were still being read')
    if (seen >= 2000) break
  }
  assert.ok(seen >= 2000 && seen < 50_000)
  assert.ok(worker !== null, 'the rows did not come from a worker')
  // Leaving the loop returns the generator, whose cleanup ends the thread before it resolves.
  assert.equal(exited, true, 'the worker thread still runs after the reader left')
  assert.equal(input.destroyed, true, 'the file is still open after the reader left')
})

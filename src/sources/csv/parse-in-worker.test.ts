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
  encoding: 'utf-8',
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

test('an encoding other than UTF-8 is decoded; a file that is not UTF-8 says so, in a worker too', async () => {
  const lines = ['Date,Description,Amount\n']
  for (let i = 0; i < 3_000; i++) lines.push(`2024-01-02,Café Müller ${i} – crème,-3.50\n`)
  const text = lines.join('')
  // Windows-1252, as many banks write: é, ü and – are one byte each.
  const cp1252 = Buffer.from([...text].map((c) => (c === '–' ? 0x96 : c.charCodeAt(0))))
  const decoded = await bothWays(cp1252, { ...AUTO, encoding: 'windows-1252' })
  assert.equal(decoded.inThread.error, null)
  assert.equal(decoded.inThread.rows.length, 3_000)
  assert.equal(decoded.inThread.rows[0]!.description, 'Café Müller 0 – crème')
  assert.equal(decoded.inThread.report.notUtf8, undefined)
  assert.deepEqual(decoded.inWorker, decoded.inThread)

  // The same bytes read as UTF-8 (the default): imported, and flagged.
  const flagged = await bothWays(cp1252)
  assert.equal(flagged.inThread.rows.length, 3_000)
  assert.equal(flagged.inThread.rows[0]!.description, 'Caf\uFFFD M\uFFFDller 0 \uFFFD cr\uFFFDme')
  assert.equal(flagged.inThread.report.notUtf8, true)
  assert.deepEqual(flagged.inWorker, flagged.inThread)

  // UTF-8 whose characters straddle the 4 KiB chunks: not flagged.
  const utf8 = await bothWays(Buffer.from(text))
  assert.equal(utf8.inThread.rows[2_999]!.description, 'Café Müller 2999 – crème')
  assert.equal(utf8.inThread.report.notUtf8, undefined)
  assert.deepEqual(utf8.inWorker, utf8.inThread)

  // UTF-16 with its BOM: NUL bytes are its text, not a binary file.
  const utf16 = await bothWays(
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
    {
      ...AUTO,
      encoding: 'utf-16le',
    },
  )
  assert.equal(utf16.inThread.error, null)
  assert.deepEqual(utf16.inThread.rows, utf8.inThread.rows)
  assert.deepEqual(utf16.inWorker, utf16.inThread)
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

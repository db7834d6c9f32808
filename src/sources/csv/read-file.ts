// Reads one CSV file as a stream of ledger rows (SPEC 1.3). A well-kept streaming
// parser (csv-parse) handles quotes, embedded newlines, a BOM and CRLF; records
// are pulled one at a time, so memory stays flat whatever the file's size.
// Rows with an unparseable date or amount are counted and skipped (rule 3);
// anything that makes the file unreadable throws a CsvFileError.
import type { Readable } from 'node:stream'
import { parse, type Parser } from 'csv-parse'
import type { CsvMapping } from '../../config/index.js'
import type { IngestTransaction } from '../../ledger/ingest.js'
import { syncedText } from '../../ledger/fields.js'
import { amountProblem, cleanAmount, creditMinusDebit, pairProblem, quoted } from './amount.js'
import { planColumns, type ColumnPlan } from './columns.js'
import type { DateParser } from './date-layout.js'
import { decodingToUtf8, holdsNulBytes, Utf8Check } from './encoding.js'
import { csvRowId } from './row-id.js'

/** Examples of skipped rows quoted in a file's warning. */
const SKIP_EXAMPLES = 3

export class CsvFileError extends Error {
  override name = 'CsvFileError'
}

export interface FileReport {
  skipped: number
  /** "line 4: unparseable date \"yesterday\"" for the first few skipped rows. */
  examples: string[]
  /** A file read as UTF-8 held bytes that are not: they were read as U+FFFD. */
  notUtf8?: boolean
}

export interface ReadOptions {
  mapping: CsvMapping
  accountId: string
  parseDate: DateParser
  report: FileReport
}

/** Records handed on per step: enough to amortise the async hop, small enough to stay flat. */
const RECORDS_PER_STEP = 1000

export async function* readCsvRows(
  input: Readable,
  options: ReadOptions,
): AsyncGenerator<IngestTransaction[]> {
  const { mapping, accountId, parseDate, report } = options
  const parser = parse({
    delimiter: mapping.delimiter,
    bom: true,
    relax_column_count: true,
    relax_quotes: true,
    // Blank lines come through as one empty cell and are passed over below, so
    // that counting lines here stays exact (csv-parse's own `info` costs a lot).
    skip_empty_lines: false,
  })
  let first = true
  const utf8 = mapping.encoding === 'utf-8' ? new Utf8Check() : null
  input.on('data', (chunk: Buffer) => {
    // A NUL byte in the first bytes: not a text file.
    if (first && !holdsNulBytes(mapping.encoding) && chunk.subarray(0, 8192).includes(0)) {
      parser.destroy(new CsvFileError('not a text file'))
    }
    first = false
    utf8?.feed(chunk)
  })
  input.on('end', () => {
    if (utf8 && !utf8.end()) report.notUtf8 = true
  })
  input.on('error', (error) => parser.destroy(error))
  const decoded = utf8 ? null : decodingToUtf8(mapping.encoding)
  if (decoded) {
    decoded.on('error', (error) => parser.destroy(error))
    input.pipe(decoded).pipe(parser)
  } else input.pipe(parser)

  let plan: ColumnPlan | null = mapping.has_header ? null : fixedPlan(mapping)
  let nextLine = 1
  try {
    for await (const records of recordBatches(parser)) {
      const rows: IngestTransaction[] = []
      for (const record of records) {
        const line = nextLine
        nextLine += 1 + embeddedNewlines(record)
        if (record.every((cell) => cell.trim() === '')) continue
        if (plan === null) {
          const planned = planColumns(mapping, record)
          if (typeof planned === 'string') throw new CsvFileError(planned)
          plan = planned
          continue
        }
        const row = toRow(record, plan, accountId, parseDate)
        if (typeof row === 'string') {
          report.skipped++
          if (report.examples.length < SKIP_EXAMPLES) report.examples.push(`line ${line}: ${row}`)
          continue
        }
        rows.push(row)
      }
      if (rows.length > 0) yield rows
    }
  } catch (error) {
    if (error instanceof CsvFileError) throw error
    // csv-parse errors name the line and the problem, never more than a snippet.
    throw new CsvFileError(error instanceof Error ? error.message : String(error))
  } finally {
    input.unpipe()
    input.destroy()
    decoded?.destroy()
    parser.destroy()
  }
}

function embeddedNewlines(record: readonly string[]): number {
  let count = 0
  for (const value of record) {
    for (let at = value.indexOf('\n'); at >= 0; at = value.indexOf('\n', at + 1)) count++
  }
  return count
}

/** The parser's records in steps of up to RECORDS_PER_STEP, as they become readable. */
async function* recordBatches(parser: Parser): AsyncGenerator<string[][]> {
  let ended = false
  const state: { failure: Error | null } = { failure: null }
  let wake: (() => void) | null = null
  parser.on('readable', () => wake?.())
  parser.on('end', () => {
    ended = true
    wake?.()
  })
  parser.on('error', (error: Error) => {
    state.failure = error
    wake?.()
  })
  for (;;) {
    if (state.failure !== null) throw state.failure
    const batch: string[][] = []
    let record: string[] | null
    while (
      batch.length < RECORDS_PER_STEP &&
      (record = parser.read() as string[] | null) !== null
    ) {
      batch.push(record)
    }
    if (batch.length > 0) {
      yield batch
      continue
    }
    if (ended) return
    await new Promise<void>((resolve) => (wake = resolve))
    wake = null
  }
}

function fixedPlan(mapping: CsvMapping): ColumnPlan {
  const planned = planColumns(mapping, null)
  if (typeof planned === 'string') throw new CsvFileError(planned)
  return planned
}

function cell(record: readonly string[], index: number | null): string {
  if (index === null) return ''
  // PostgreSQL text cannot hold NUL; it has no business in a CSV cell anyway.
  return (record[index] ?? '').replaceAll('\0', '')
}

function text(record: readonly string[], index: number | null): string | null {
  return syncedText(cell(record, index))
}

/** The row, or why it is skipped. */
function toRow(
  record: readonly string[],
  plan: ColumnPlan,
  accountId: string,
  parseDate: DateParser,
): IngestTransaction | string {
  const dateCell = cell(record, plan.date)
  const date = parseDate(dateCell)
  if (date === null)
    return dateCell.trim() === ''
      ? 'no date: the cell is blank'
      : `unparseable date ${quoted(dateCell.trim())}`
  let amount: string | null
  if (plan.amount !== null) {
    const shown = cell(record, plan.amount)
    amount = cleanAmount(shown)
    if (amount === null) return amountProblem(shown)
  } else {
    const credit = cell(record, plan.credit)
    const debit = cell(record, plan.debit)
    amount = creditMinusDebit(credit, debit)
    if (amount === null) return pairProblem(credit, debit)
  }
  const fields = {
    account_id: accountId,
    date,
    amount,
    description: text(record, plan.description),
    payee: text(record, plan.payee),
    memo: text(record, plan.memo),
  }
  return { id: csvRowId(fields), ...fields, pending: false }
}

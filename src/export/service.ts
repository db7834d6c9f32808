// Export (docs/export.md): the transactions that match a query and a date
// range, oldest first, as CSV, JSON lines, an hledger journal or a beancount
// file. One service for `coffer export` and GET /api/v1/export: the input is
// checked before the first byte, then the text streams page by page from the
// database (keyset pages of the search stream), so memory stays flat however
// large the ledger.
import { yieldToEventLoop } from '../clock.js'
import type { DbExecutor } from '../db/schema.js'
import { Invalid } from '../errors.js'
import { accountsWithOrganizations } from '../ledger/accounts.js'
import { resolveDateRange, transactionFilterOf } from '../ledger/transaction-query.js'
import { parseQuery } from '../search/index.js'
import { matchingPages } from '../search/stream.js'
import { EXPORT_FORMATS, formatWriter, type ExportAccount, type ExportFormat } from './formats.js'
import { accountComponent, ledgerAccountNames } from './names.js'

export { EXPORT_FORMATS, type ExportFormat } from './formats.js'

export interface ExportInput {
  format: string
  /** Search language (docs/search.md); empty or absent exports every transaction. */
  q?: string | undefined
  /** Inclusive, as GET /transactions takes them. */
  since?: string | undefined
  until?: string | undefined
}

export interface ExportDeps {
  db: DbExecutor
  /** The service's closing signal: a long export ends (503 before the first byte) once aborted. */
  closing?: AbortSignal | undefined
  /** The day the file name carries (YYYY-MM-DD). */
  today: string
}

export interface ExportStream {
  format: ExportFormat
  contentType: string
  /** `coffer-export-<day>.<ext>`, for Content-Disposition. */
  filename: string
  /** The export's text, a page of transactions per chunk. */
  chunks: AsyncIterable<string>
}

/** Transactions read per database page. */
export const EXPORT_PAGE_SIZE = 1000

function isFormat(format: string): format is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(format)
}

/** Checks the whole input (a bad query, date or format is Invalid, 400) and returns the stream. */
export function exportTransactions(deps: ExportDeps, input: ExportInput): ExportStream {
  if (!isFormat(input.format))
    throw Invalid.field('format', `must be one of ${EXPORT_FORMATS.join(', ')}`)
  const query = parseQuery(input.q ?? '')
  const filter = transactionFilterOf({ since: input.since, until: input.until })
  resolveDateRange(filter)
  const writer = formatWriter(input.format)
  async function* chunks(): AsyncIterable<string> {
    const accounts = await accountTable(deps.db)
    const account = (id: string): ExportAccount =>
      accounts.get(id) ?? { currency: '', ledger_name: `Assets:Unknown:${accountComponent(id)}` }
    yield writer.start()
    for await (const page of matchingPages(deps.db, query, filter, {
      order: 'asc',
      pageSize: EXPORT_PAGE_SIZE,
      // SQLite reads are synchronous: other requests run between pages.
      pause: yieldToEventLoop,
      signal: deps.closing,
    })) {
      yield writer.page(page, account)
    }
  }
  return {
    format: input.format,
    contentType: writer.contentType,
    filename: `coffer-export-${deps.today}.${writer.extension}`,
    chunks: chunks(),
  }
}

async function accountTable(db: DbExecutor): Promise<Map<string, ExportAccount>> {
  const rows = await accountsWithOrganizations(db)
  const names = ledgerAccountNames(rows.map((r) => ({ ...r, org_name: r.org_name ?? '' })))
  return new Map(rows.map((r) => [r.id, { currency: r.currency, ledger_name: names.get(r.id)! }]))
}

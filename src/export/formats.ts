// The export formats (docs/export.md): each turns transactions, one page at a
// time, into text. A writer holds only what it must remember across pages
// (the accounts beancount has opened), never the transactions.
import { stringify } from 'csv-stringify/sync'
import { formatScaledKeepingScale, parseDecimal } from '../decimal.js'
import { canonicalJson, type TransactionJson } from '../ledger/json.js'
import {
  beancountCommodity,
  beancountMetaKeys,
  counterAccount,
  hledgerCommentText,
  hledgerCommodity,
  hledgerTagName,
  hledgerTagValue,
  oneLine,
} from './names.js'

export const EXPORT_FORMATS = ['csv', 'jsonl', 'ledger', 'beancount'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

/** What a writer knows of an account: its currency and its ledger account name. */
export interface ExportAccount {
  currency: string
  ledger_name: string
}

export interface FormatWriter {
  /** Media type of the whole export, for Content-Type. */
  readonly contentType: string
  /** File name extension, for Content-Disposition and the CLI. */
  readonly extension: string
  /** Text before the first transaction. */
  start(): string
  /** Text for one page of transactions, in date order. */
  page(transactions: readonly TransactionJson[], account: (id: string) => ExportAccount): string
}

export function formatWriter(format: ExportFormat): FormatWriter {
  switch (format) {
    case 'csv':
      return new CsvWriter()
    case 'jsonl':
      return new JsonlWriter()
    case 'ledger':
      return new LedgerWriter()
    case 'beancount':
      return new BeancountWriter()
  }
}

const CSV_COLUMNS = [
  'id',
  'date',
  'account_id',
  'amount',
  'currency',
  'description',
  'payee',
  'memo',
  'pending',
  'source',
  'synced_at',
  'labels',
  'extensions',
] as const

/**
 * CRLF between records; a field holding a lone '\r' or '\n' is quoted too (with
 * `record_delimiter` set, csv-stringify would quote only "\r\n").
 */
const CSV_OPTIONS = { record_delimiter: 'windows', quote_record_delimiter: true } as const

/** RFC 4180: CRLF between records, quotes only where needed; labels and extensions as JSON. */
class CsvWriter implements FormatWriter {
  readonly contentType = 'text/csv; charset=utf-8'
  readonly extension = 'csv'

  start(): string {
    return stringify([[...CSV_COLUMNS]], CSV_OPTIONS)
  }

  page(transactions: readonly TransactionJson[], account: (id: string) => ExportAccount): string {
    const records = transactions.map((t) => [
      t.id,
      t.date,
      t.account_id,
      t.amount,
      account(t.account_id).currency,
      t.description ?? '',
      t.payee ?? '',
      t.memo ?? '',
      t.pending ? 'true' : 'false',
      t.source,
      t.synced_at ?? '',
      canonicalJson(t.labels),
      canonicalJson(t.extensions),
    ])
    return stringify(records, CSV_OPTIONS)
  }
}

/** One transaction per line, in the API's shape (GET /transactions/:id). */
class JsonlWriter implements FormatWriter {
  readonly contentType = 'application/x-ndjson'
  readonly extension = 'jsonl'

  start(): string {
    return ''
  }

  page(transactions: readonly TransactionJson[]): string {
    return transactions.map((t) => `${JSON.stringify(t)}\n`).join('')
  }
}

/**
 * An amount as journals write it: the same value and the same fraction digits
 * ("5." is 5, ".50" is 0.50), never through a float.
 */
function journalAmount(amount: string): string {
  return formatScaledKeepingScale(parseDecimal(amount))
}

/** The day of a transaction (UTC), YYYY-MM-DD. */
function day(t: TransactionJson): string {
  return t.date.slice(0, 10)
}

/**
 * An hledger (and Ledger) journal: a transaction per entry, the Coffer account's
 * posting with the exact amount, the counter posting left for hledger to
 * balance; labels as tags, extensions as `coffer-ext-<key>` tags with JSON values.
 */
class LedgerWriter implements FormatWriter {
  readonly contentType = 'text/plain; charset=utf-8'
  readonly extension = 'journal'

  start(): string {
    return '; Coffer export (hledger journal, docs/export.md)\n\n'
  }

  page(transactions: readonly TransactionJson[], account: (id: string) => ExportAccount): string {
    return transactions.map((t) => this.entry(t, account(t.account_id))).join('')
  }

  private entry(t: TransactionJson, account: ExportAccount): string {
    // A ';' would start a comment (and tags) inside the description.
    const title = [t.payee, t.description]
      .filter((s): s is string => s !== null && s !== '')
      .map((s) => oneLine(s).replace(/;/g, ','))
      .join(' | ')
    // hledger reads a leading '(…)' as a transaction code: an empty code `()`
    // in front keeps such a title whole.
    const header = /^\s*\(/.test(title) ? `() ${title}` : title
    const lines = [`${day(t)}${t.pending ? ' !' : ' *'}${header ? ` ${header}` : ''}`]
    lines.push(`    ; coffer-id: ${oneLine(t.id).replace(/,/g, ' ')}`)
    if (t.memo) lines.push(`    ; memo ${hledgerCommentText(t.memo)}`)
    for (const [key, value] of Object.entries(t.labels)) {
      lines.push(`    ; ${hledgerTagName(key)}: ${oneLine(value).replace(/,/g, ' ')}`)
    }
    for (const [key, value] of Object.entries(t.extensions)) {
      lines.push(
        `    ; coffer-ext-${hledgerTagName(key)}: ${hledgerTagValue(canonicalJson(value))}`,
      )
    }
    const commodity = hledgerCommodity(account.currency)
    lines.push(
      `    ${account.ledger_name}    ${journalAmount(t.amount)}${commodity ? ` ${commodity}` : ''}`,
    )
    lines.push(`    ${counterAccount(t.amount)}`)
    return `${lines.join('\n')}\n\n`
  }
}

/** Beancount refuses a string of more lines than this. */
const BEANCOUNT_STRING_MAX_LINES = 64

/**
 * A beancount string: backslash and double quote escaped; line breaks are
 * kept up to beancount's line limit, the later ones become spaces.
 */
function beanString(text: string): string {
  let lineBreaks = 0
  const fitting = text.replace(/\r?\n/g, (lineBreak) =>
    ++lineBreaks < BEANCOUNT_STRING_MAX_LINES ? lineBreak : ' ',
  )
  return `"${fitting.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}

/**
 * A beancount file: an `open` for each account on the day of its first
 * transaction (the export runs oldest first), both postings written out (no
 * interpolation), labels as `label-<key>` and extensions as `ext-<key>`
 * metadata strings.
 */
class BeancountWriter implements FormatWriter {
  readonly contentType = 'text/plain; charset=utf-8'
  readonly extension = 'beancount'
  private readonly opened = new Set<string>()

  start(): string {
    return '; Coffer export (beancount, docs/export.md)\n\n'
  }

  page(transactions: readonly TransactionJson[], account: (id: string) => ExportAccount): string {
    return transactions.map((t) => this.entry(t, account(t.account_id))).join('')
  }

  private open(date: string, name: string): string {
    if (this.opened.has(name)) return ''
    this.opened.add(name)
    return `${date} open ${name}\n\n`
  }

  private entry(t: TransactionJson, account: ExportAccount): string {
    const date = day(t)
    const counter = counterAccount(t.amount)
    const opens = this.open(date, account.ledger_name) + this.open(date, counter)
    const commodity = beancountCommodity(account.currency)
    const amount = journalAmount(t.amount)
    const lines = [
      `${date} ${t.pending ? '!' : '*'} ${beanString(t.payee ?? '')} ${beanString(t.description ?? '')}`,
      `  coffer-id: ${beanString(t.id)}`,
    ]
    if (t.memo) lines.push(`  memo: ${beanString(t.memo)}`)
    const labelKeys = Object.keys(t.labels)
    beancountMetaKeys('label-', labelKeys).forEach((key, i) => {
      lines.push(`  ${key}: ${beanString(t.labels[labelKeys[i]!]!)}`)
    })
    const extensionKeys = Object.keys(t.extensions)
    beancountMetaKeys('ext-', extensionKeys).forEach((key, i) => {
      lines.push(`  ${key}: ${beanString(canonicalJson(t.extensions[extensionKeys[i]!]!))}`)
    })
    lines.push(`  ${account.ledger_name}  ${amount} ${commodity}`)
    lines.push(`  ${counter}  ${negateKeepingScale(amount)} ${commodity}`)
    return `${opens}${lines.join('\n')}\n\n`
  }
}

/** The negated amount with the same fraction digits ("0" stays "0"). */
function negateKeepingScale(amount: string): string {
  const { units, scale } = parseDecimal(amount)
  return units === 0n ? amount : formatScaledKeepingScale({ units: -units, scale })
}

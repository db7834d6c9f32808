// The id of a CSV row (SPEC 1.3 rule 2): the dedup key, so it must never change
// between versions. docs/csv.md states the exact recipe; row-id.test.ts pins it.
import { hash } from 'node:crypto'
import { formatScaled, parseDecimal } from '../../decimal.js'

export interface RowIdentity {
  account_id: string
  /** As stored: fixed-width UTC, e.g. 2024-03-05T00:00:00Z. */
  date: string
  /** As stored (a valid amount). */
  amount: string
  description: string | null
  payee: string | null
  memo: string | null
}

/** Text as the hash sees it: NFC, trimmed, runs of white space as one space. */
function canonicalText(text: string | null): string {
  if (text === null) return ''
  // Most cells are printable ASCII words separated by single spaces: already canonical.
  if (CANONICAL_ASCII.test(text)) return text
  return text.normalize('NFC').trim().replace(/\s+/g, ' ')
}

const CANONICAL_ASCII = /^(?:[\x21-\x7e]+(?: [\x21-\x7e]+)*)?$/

/**
 * csv:<first 32 hex digits of SHA-256> over the UTF-8 of the JSON array
 * [account_id, date, canonical amount, description, payee, memo]. The amount is
 * canonical ("12.50" and "12.5" hash alike, so a re-export that writes it
 * differently updates the row instead of adding one).
 */
export function csvRowId(row: RowIdentity): string {
  const key = JSON.stringify([
    row.account_id,
    row.date,
    formatScaled(parseDecimal(row.amount)),
    canonicalText(row.description),
    canonicalText(row.payee),
    canonicalText(row.memo),
  ])
  // One-shot hash: a Hash object per row costs more than the digest itself.
  return `csv:${hash('sha256', key, 'hex').slice(0, 32)}`
}

// Field checks shared by every door that writes ledger rows: the schema checks
// JSON types, these check the values (CONTRACT 6 amount syntax, SPEC 2.2 dates).
import { Invalid } from '../errors.js'
import { normalizeAmount } from '../decimal.js'
import { parseInstant } from './time.js'

export const TEXT_FIELD_MAX = 4096
export const NAME_MAX = 200

export function requireAmount(field: string, input: string): string {
  const amount = normalizeAmount(input)
  if (amount === null) {
    throw Invalid.field(
      field,
      'must be a decimal string such as "-12.34" (optional sign, digits, optional fraction; at most 64 characters)',
    )
  }
  return amount
}

export function requireDate(field: string, input: string | number): string {
  const date = parseInstant(input)
  if (date === null) {
    throw Invalid.field(
      field,
      'must be a calendar date YYYY-MM-DD, an RFC 3339 timestamp, or unix seconds',
    )
  }
  return date
}

const CURRENCY_PATTERN = /^[A-Za-z0-9]{1,16}$/

/** Currency codes are stored upper-case (ISO 4217 style: USD, ETH). */
export function requireCurrency(field: string, input: string): string {
  if (!CURRENCY_PATTERN.test(input)) {
    throw Invalid.field(
      field,
      'must be a currency code of 1 to 16 letters or digits, such as "USD"',
    )
  }
  return input.toUpperCase()
}

// A name is one line: no control characters at all. Free text (description,
// payee, memo) may keep tabs and line breaks, but no other control character.
// eslint-disable-next-line no-control-regex
const NAME_CONTROL_CHARS = /[\u0000-\u001f\u007f]/
// eslint-disable-next-line no-control-regex
const TEXT_CONTROL_CHARS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/

/** Whether `text` holds a control character, which no name or id may. */
export function holdsControlChars(text: string): boolean {
  return NAME_CONTROL_CHARS.test(text)
}

export function requireName(field: string, input: string): string {
  const name = input.trim()
  if (name.length === 0) throw Invalid.field(field, 'must not be blank')
  if (name.length > NAME_MAX) throw Invalid.field(field, `must be at most ${NAME_MAX} characters`)
  if (NAME_CONTROL_CHARS.test(name))
    throw Invalid.field(field, 'must not contain control characters')
  return name
}

/** Free text: at most `max` characters, no control characters but tab, LF and CR. */
export function requireText(field: string, input: string, max: number): string {
  if (input.length > max) throw Invalid.field(field, `must be at most ${max} characters`)
  if (TEXT_CONTROL_CHARS.test(input)) {
    throw Invalid.field(field, 'must not contain control characters (tab and line breaks are fine)')
  }
  return input
}

/**
 * A source's text as the ledger keeps it, whatever the source sends: trimmed,
 * without NUL (PostgreSQL's text cannot hold it), at most `max` characters and
 * never half of a surrogate pair; null when nothing is left. A synced row is not
 * refused for its text, as a client's would be: the bank wrote it.
 */
export function syncedText(value: unknown, max: number = TEXT_FIELD_MAX): string | null {
  if (typeof value !== 'string') return null
  let text = value.includes('\0') ? value.replaceAll('\0', '') : value
  text = text.trim()
  if (text.length > max) {
    // A high surrogate at the cut would be left without its pair.
    const end =
      text.charCodeAt(max - 1) >= 0xd800 && text.charCodeAt(max - 1) <= 0xdbff ? max - 1 : max
    text = text.slice(0, end).trimEnd()
  }
  return text === '' ? null : text
}

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

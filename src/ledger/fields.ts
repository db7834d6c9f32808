// Field checks shared by every door that writes ledger rows: the schema checks
// JSON types, these check the values (CONTRACT 6 amount syntax, SPEC 2.2 dates).
import { Invalid } from '../errors.js'
import { normalizeAmount } from './decimal.js'
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

export function requireName(field: string, input: string): string {
  const name = input.trim()
  if (name.length === 0) throw Invalid.field(field, 'must not be blank')
  if (name.length > NAME_MAX) throw Invalid.field(field, `must be at most ${NAME_MAX} characters`)
  return name
}

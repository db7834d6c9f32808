// CSV amounts (SPEC 1.3 rules 5 and 6). The text of a cell is cleaned, never
// converted: '$', thousands separators (',': the decimal separator is '.') and
// '+' are stripped, surrounding parentheses mean negative, and every other
// character is kept ("12.50" stays "12.50"). Debit and credit combine with exact
// decimal arithmetic (ledger/decimal.ts), never a float.
import { normalizeAmount, parseDecimal } from '../../ledger/decimal.js'

/** The stored amount of one cell, or null when it is not an amount. */
export function cleanAmount(cell: string): string | null {
  let text = cell.trim()
  let negative = false
  if (text.startsWith('(') && text.endsWith(')')) {
    negative = true
    text = text.slice(1, -1).trim()
  }
  text = text.replace(/[$,+]/g, '')
  if (text.startsWith('-')) {
    // "(-5)" is a contradiction, not a double negative.
    if (negative) return null
    negative = true
    text = text.slice(1)
  }
  if (text === '' || text.startsWith('-')) return null
  const amount = normalizeAmount(text)
  if (amount === null) return null
  return negative ? `-${amount}` : amount
}

/**
 * Credit minus debit (SPEC 1.3 rule 6). A blank cell counts as zero; null when
 * both are blank or either is not an amount. With one side blank the other is
 * kept as written (negated for a debit); with both set the result keeps the
 * larger number of fraction digits ("10.00" - "2.5" = "7.50").
 */
export function creditMinusDebit(creditCell: string, debitCell: string): string | null {
  const creditBlank = creditCell.trim() === ''
  const debitBlank = debitCell.trim() === ''
  if (creditBlank && debitBlank) return null
  const credit = creditBlank ? null : cleanAmount(creditCell)
  const debit = debitBlank ? null : cleanAmount(debitCell)
  if ((!creditBlank && credit === null) || (!debitBlank && debit === null)) return null
  if (debit === null) return credit
  if (credit === null) return negate(debit)
  const a = parseDecimal(credit)
  const b = parseDecimal(debit)
  const scale = Math.max(a.scale, b.scale)
  const units = a.units * 10n ** BigInt(scale - a.scale) - b.units * 10n ** BigInt(scale - b.scale)
  return formatFixed(units, scale)
}

function negate(amount: string): string {
  return amount.startsWith('-') ? amount.slice(1) : `-${amount}`
}

/** units / 10^scale with exactly `scale` fraction digits. */
function formatFixed(units: bigint, scale: number): string {
  const negative = units < 0n
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0')
  const int = digits.slice(0, digits.length - scale)
  const frac = digits.slice(digits.length - scale)
  return `${negative ? '-' : ''}${int}${scale > 0 ? `.${frac}` : ''}`
}

// CSV amounts (SPEC 1.3 rules 5 and 6). The text of a cell is cleaned, never
// converted: '$', thousands separators (',': the decimal separator is '.') and
// '+' are stripped, surrounding parentheses mean negative, and every other
// character is kept ("12.50" stays "12.50"). Debit and credit combine with exact
// decimal arithmetic (decimal.ts), never a float.
import { normalizeAmount, subtractDecimalKeepingScale } from '../../decimal.js'

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
  // The sign counts toward the ledger's length bound: "-" and 64 digits is not an amount.
  return normalizeAmount(negative ? `-${text}` : text)
}

/**
 * Credit minus debit (SPEC 1.3 rule 6). A blank cell counts as zero; null when
 * both are blank, either is not an amount, or the result is longer than an
 * amount may be. With one side blank the other is kept as written (negated for
 * a debit); with both set the result keeps the larger number of fraction digits
 * ("10.00" - "2.5" = "7.50").
 */
export function creditMinusDebit(creditCell: string, debitCell: string): string | null {
  const creditBlank = creditCell.trim() === ''
  const debitBlank = debitCell.trim() === ''
  if (creditBlank && debitBlank) return null
  const credit = creditBlank ? null : cleanAmount(creditCell)
  const debit = debitBlank ? null : cleanAmount(debitCell)
  if ((!creditBlank && credit === null) || (!debitBlank && debit === null)) return null
  if (debit === null) return credit
  // A negated debit or a difference at the wider precision can pass the ledger's
  // length bound (64 characters); such a result is not an amount either.
  if (credit === null) return normalizeAmount(negate(debit))
  return normalizeAmount(subtractDecimalKeepingScale(credit, debit))
}

function negate(amount: string): string {
  return amount.startsWith('-') ? amount.slice(1) : `-${amount}`
}

// CSV amounts (SPEC 1.3 rules 5 and 6). The text of a cell is cleaned, never
// converted: '$', thousands separators (',': the decimal separator is '.') and
// '+' are stripped, surrounding parentheses mean negative, and every other
// character is kept ("12.50" stays "12.50"). Debit and credit combine with exact
// decimal arithmetic (decimal.ts), never a float.
import {
  AMOUNT_MAX_LENGTH,
  AMOUNT_PATTERN,
  normalizeAmount,
  subtractDecimalKeepingScale,
} from '../../decimal.js'

/** The stored amount of one cell, or null when it is not an amount. */
export function cleanAmount(cell: string): string | null {
  const text = cleaned(cell)
  // The sign counts toward the ledger's length bound: "-" and 64 digits is not an amount.
  return text === null ? null : normalizeAmount(text)
}

/** Why a cell is not an amount (cleanAmount gave null), for the file's warning. */
export function amountProblem(cell: string): string {
  const text = cleaned(cell)
  if (cell.trim() === '') return 'no amount: the cell is blank'
  if (text !== null && AMOUNT_PATTERN.test(text))
    return `amount longer than ${AMOUNT_MAX_LENGTH} characters ${quoted(cell.trim())}`
  return `unparseable amount ${quoted(cell.trim())}`
}

/** The cell with '$', ',' and '+' stripped and its sign applied; null when its form is not a number's. */
function cleaned(cell: string): string | null {
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
  return negative ? `-${text}` : text
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

/** Why a debit and credit pair is not an amount (creditMinusDebit gave null), for the file's warning. */
export function pairProblem(creditCell: string, debitCell: string): string {
  const credit = creditCell.trim()
  const debit = debitCell.trim()
  if (credit === '' && debit === '') return 'no amount: debit and credit are blank'
  const cells = `credit ${quoted(credit)}, debit ${quoted(debit)}`
  // Both are amounts, so what failed is the length of their difference.
  if ([credit, debit].every((c) => c === '' || cleanAmount(c) !== null))
    return `amount longer than ${AMOUNT_MAX_LENGTH} characters: ${cells}`
  return `unparseable amount: ${cells}`
}

/** A cell quoted in a warning: never more than 40 characters of it. */
export function quoted(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
}

function negate(amount: string): string {
  return amount.startsWith('-') ? amount.slice(1) : `-${amount}`
}

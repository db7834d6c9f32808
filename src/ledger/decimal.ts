// Exact decimal money as text. An amount never passes through a JS number: its
// digits go straight into a BigInt scaled by a power of ten, so there is no
// rounding anywhere between the request body and the database.

/** Plain decimal notation only: no exponent, no grouping, no whitespace, ASCII digits. */
export const AMOUNT_PATTERN = /^[+-]?(\d+(\.\d*)?|\.\d+)$/

/** Bounds storage and the width of decimalSortKey; checked before the regex runs. */
export const AMOUNT_MAX_LENGTH = 64

/**
 * The stored form of an amount, or null when the text is not an amount. Only a
 * leading '+' is dropped; everything else is kept verbatim ("12.340", "5.", ".5")
 * so the ledger records exactly what the client sent.
 */
export function normalizeAmount(input: string): string | null {
  if (typeof input !== 'string' || input.length > AMOUNT_MAX_LENGTH) return null
  if (!AMOUNT_PATTERN.test(input)) return null
  return input.startsWith('+') ? input.slice(1) : input
}

/** value = units / 10^scale. scale is the number of fraction digits (>= 0). */
export interface Scaled {
  units: bigint
  scale: number
}

interface Parts {
  negative: boolean
  int: string
  frac: string
}

// Caller has already matched AMOUNT_PATTERN, so this only splits.
function splitParts(text: string): Parts {
  const negative = text.startsWith('-')
  const body = text.startsWith('-') || text.startsWith('+') ? text.slice(1) : text
  const dot = body.indexOf('.')
  return dot < 0
    ? { negative, int: body, frac: '' }
    : { negative, int: body.slice(0, dot), frac: body.slice(dot + 1) }
}

// Error messages echo the input, but never an unbounded amount of it.
function describe(text: unknown): string {
  const shown = typeof text === 'string' ? text : String(text)
  return JSON.stringify(shown.length > 80 ? `${shown.slice(0, 80)}…` : shown)
}

/** Parses anything normalizeAmount accepts (a leading '+' included); RangeError otherwise. */
export function parseDecimal(text: string): Scaled {
  const normalized = normalizeAmount(text)
  if (normalized === null) throw new RangeError(`invalid amount: ${describe(text)}`)
  const { negative, int, frac } = splitParts(normalized)
  // The pattern guarantees at least one digit in int + frac.
  const magnitude = BigInt(int + frac)
  return { units: negative ? -magnitude : magnitude, scale: frac.length }
}

function checkScaled(s: Scaled): void {
  if (typeof s.units !== 'bigint' || !Number.isSafeInteger(s.scale) || s.scale < 0) {
    throw new RangeError(`invalid scaled decimal: scale ${String(s.scale)}`)
  }
}

/** Canonical text: no trailing fraction zeros, no trailing dot, "0" for zero, "-" only below zero. */
export function formatScaled(s: Scaled): string {
  checkScaled(s)
  if (s.units === 0n) return '0'
  const negative = s.units < 0n
  const digits = (negative ? -s.units : s.units).toString().padStart(s.scale + 1, '0')
  const int = digits.slice(0, digits.length - s.scale)
  // Trim trailing zeros by hand: a /0+$/ regex backtracks quadratically on long runs.
  let end = digits.length
  while (end > int.length && digits.charCodeAt(end - 1) === 48) end--
  const frac = digits.slice(int.length, end)
  return `${negative ? '-' : ''}${int}${frac === '' ? '' : `.${frac}`}`
}

/** Integer base units to canonical text, e.g. wei -> ETH with decimals 18. */
export function formatUnits(units: bigint, decimals: number): string {
  return formatScaled({ units, scale: decimals })
}

// Both values rescaled to the larger scale, so their units compare and add directly.
function align(a: Scaled, b: Scaled): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale)
  return [a.units * 10n ** BigInt(scale - a.scale), b.units * 10n ** BigInt(scale - b.scale), scale]
}

export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const [x, y] = align(parseDecimal(a), parseDecimal(b))
  return x < y ? -1 : x > y ? 1 : 0
}

/** Numeric equality: "0.1" equals "0.10", "-0" equals "0". */
export function equalDecimal(a: string, b: string): boolean {
  return compareDecimal(a, b) === 0
}

export function addDecimal(a: string, b: string): string {
  const [x, y, scale] = align(parseDecimal(a), parseDecimal(b))
  return formatScaled({ units: x + y, scale })
}

export function subtractDecimal(a: string, b: string): string {
  const [x, y, scale] = align(parseDecimal(a), parseDecimal(b))
  return formatScaled({ units: x - y, scale })
}

export function negateDecimal(a: string): string {
  const { units, scale } = parseDecimal(a)
  return formatScaled({ units: -units, scale })
}

/** Sum in one pass over a running Scaled, so the total is never re-parsed (or length-checked). */
export function sumDecimal(values: Iterable<string>): string {
  let total: Scaled = { units: 0n, scale: 0 }
  for (const value of values) {
    const [x, y, scale] = align(total, parseDecimal(value))
    total = { units: x + y, scale }
  }
  return formatScaled(total)
}

/** Strictly below zero: "-0" is not negative. */
export function isNegative(a: string): boolean {
  return parseDecimal(a).units < 0n
}

const KEY_INT_DIGITS = 64
const KEY_FRAC_DIGITS = 64

/** Every key from decimalSortKey has exactly this many characters. */
export const DECIMAL_SORT_KEY_LENGTH = 1 + KEY_INT_DIGITS + KEY_FRAC_DIGITS

// 9 - d for each digit: reverses the order of equal-width digit strings.
function ninesComplement(digits: string): string {
  let out = ''
  for (let i = 0; i < digits.length; i++) out += String.fromCharCode(105 - digits.charCodeAt(i))
  return out
}

/**
 * A fixed-width key whose byte order is the numeric order of the amount, for a
 * database index (ORDER BY amount_key, range scans on the key).
 *
 * Encoding (129 ASCII digits, nothing else):
 *   [class][64 integer digits][64 fraction digits]
 *   class: '0' negative, '1' zero, '2' positive.
 *   The magnitude is the integer part without leading zeros, left-padded with
 *   zeros to 64, then the fraction without trailing zeros, right-padded to 64.
 *   Positive: the magnitude as is. Zero (also "-0", "0.000"): all zeros.
 *   Negative: the nines' complement of the magnitude (each digit d -> 9 - d),
 *   so a larger magnitude gives a smaller key.
 * Equal values ("1", "1.0", "+1", "001.") give identical keys. Digits only, so
 * no collation can reorder them by ignoring punctuation or case.
 *
 * Accepts anything matching AMOUNT_PATTERN whose value fits 64 significant
 * integer and 64 significant fraction digits: every stored amount, and canonical
 * sums of them within that range. Throws RangeError otherwise.
 */
export function decimalSortKey(text: string): string {
  if (typeof text !== 'string' || !AMOUNT_PATTERN.test(text)) {
    throw new RangeError(`invalid amount: ${describe(text)}`)
  }
  const { negative, int, frac } = splitParts(text)
  let start = 0
  while (start < int.length && int.charCodeAt(start) === 48) start++
  let end = frac.length
  while (end > 0 && frac.charCodeAt(end - 1) === 48) end--
  const sigInt = int.slice(start)
  const sigFrac = frac.slice(0, end)
  if (sigInt.length > KEY_INT_DIGITS || sigFrac.length > KEY_FRAC_DIGITS) {
    throw new RangeError(`amount out of sort key range: ${describe(text)}`)
  }
  const magnitude = sigInt.padStart(KEY_INT_DIGITS, '0') + sigFrac.padEnd(KEY_FRAC_DIGITS, '0')
  if (sigInt === '' && sigFrac === '') return `1${magnitude}`
  return negative ? `0${ninesComplement(magnitude)}` : `2${magnitude}`
}

// Exact decimal money as text. An amount never passes through a JS number: its
// digits go straight into a BigInt scaled by a power of ten, so there is no
// rounding anywhere between the request body and the database.

import { DECIMAL_INPUT_MAX_CHARS, DECIMAL_INPUT_PATTERN } from './schemas/limits.js'

/** Plain decimal notation only: no exponent, no grouping, no whitespace, ASCII digits. */
export const AMOUNT_PATTERN = new RegExp(DECIMAL_INPUT_PATTERN)

/** Bounds storage; checked before the regex runs. */
export const AMOUNT_MAX_LENGTH = DECIMAL_INPUT_MAX_CHARS

/**
 * The stored form of an amount, or null when the text is not an amount. Only a
 * leading '+' is dropped; everything else is kept verbatim ("12.340", "5.", ".5")
 * so the ledger records exactly what the client sent.
 */
export function normalizeAmount(input: string): string | null {
  return normalizeWithin(input, AMOUNT_MAX_LENGTH)
}

/**
 * The longest total the service reads back: a sum of amounts (a summary's
 * inflow, a day of its rollups, a chart's total) may be longer than an amount,
 * a million amounts of 63 digits adding up to 70. 256 characters hold the sum
 * of any ledger's rows and keep the BigInt work of a bad text bounded.
 */
export const TOTAL_MAX_LENGTH = 256

function normalizeWithin(input: string, maxLength: number): string | null {
  if (typeof input !== 'string' || input.length > maxLength) return null
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
  return parseWithin(text, AMOUNT_MAX_LENGTH)
}

/**
 * Parses an amount or a total the service computed (a sum, a difference of
 * sums), which may pass an amount's 64 characters (up to TOTAL_MAX_LENGTH);
 * RangeError otherwise. The arithmetic below takes either.
 */
export function parseTotal(text: string): Scaled {
  return parseWithin(text, TOTAL_MAX_LENGTH)
}

function parseWithin(text: string, maxLength: number): Scaled {
  const normalized = normalizeWithin(text, maxLength)
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

// Powers of ten as BigInt, computed once: summing many groups rescales often.
const POWERS_OF_TEN = Array.from({ length: 40 }, (_, n) => 10n ** BigInt(n))

function powerOfTen(n: number): bigint {
  return POWERS_OF_TEN[n] ?? 10n ** BigInt(n)
}

/** `units` (at `from` fraction digits) rescaled to `to` >= from digits. */
function rescale(units: bigint, from: number, to: number): bigint {
  return from === to ? units : units * powerOfTen(to - from)
}

// Both values rescaled to the larger scale, so their units compare and add directly.
function align(a: Scaled, b: Scaled): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale)
  return [rescale(a.units, a.scale, scale), rescale(b.units, b.scale, scale), scale]
}

/** a + b, exactly, at the larger of their scales. */
export function addScaled(a: Scaled, b: Scaled): Scaled {
  const [x, y, scale] = align(a, b)
  return { units: x + y, scale }
}

export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const [x, y] = align(parseTotal(a), parseTotal(b))
  return x < y ? -1 : x > y ? 1 : 0
}

/** Numeric equality: "0.1" equals "0.10", "-0" equals "0". */
export function equalDecimal(a: string, b: string): boolean {
  return compareDecimal(a, b) === 0
}

export function addDecimal(a: string, b: string): string {
  const [x, y, scale] = align(parseTotal(a), parseTotal(b))
  return formatScaled({ units: x + y, scale })
}

export function subtractDecimal(a: string, b: string): string {
  const [x, y, scale] = align(parseTotal(a), parseTotal(b))
  return formatScaled({ units: x - y, scale })
}

/**
 * a - b with as many fraction digits as the more precise of the two, zeros kept
 * ("10.00" - "2.5" = "7.50"): for a source that stores the precision its file
 * writes (SPEC 1.3 rule 6), where subtractDecimal would give the canonical "7.5".
 */
export function subtractDecimalKeepingScale(a: string, b: string): string {
  const [x, y, scale] = align(parseTotal(a), parseTotal(b))
  return formatScaledKeepingScale({ units: x - y, scale })
}

/** Text with every fraction digit of the scale, zeros kept: {units: 30n, scale: 2} is "0.30". */
export function formatScaledKeepingScale({ units, scale }: Scaled): string {
  const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0')
  const int = digits.slice(0, digits.length - scale)
  const frac = digits.slice(digits.length - scale)
  return `${units < 0n ? '-' : ''}${int}${scale > 0 ? `.${frac}` : ''}`
}

export function negateDecimal(a: string): string {
  const { units, scale } = parseTotal(a)
  return formatScaled({ units: -units, scale })
}

/** Sum in one pass over a running Scaled, so the total is never re-parsed (or length-checked). */
export function sumDecimal(values: Iterable<string>): string {
  let total: Scaled = { units: 0n, scale: 0 }
  for (const value of values) {
    const [x, y, scale] = align(total, parseTotal(value))
    total = { units: x + y, scale }
  }
  return formatScaled(total)
}

/** Strictly below zero: "-0" is not negative. */
export function isNegative(a: string): boolean {
  return parseTotal(a).units < 0n
}

/** Amounts of at most this many digits add up as doubles (exact below 2^53), the rest as BigInt. */
const SMALL_DIGITS = 15
/** A double running sum is moved into the BigInt before it passes this (each addend is below 10^15). */
const SMALL_FLUSH_AT = 2 ** 52

/**
 * An exact running sum of decimal amounts, split by sign (inflow: the positive
 * amounts, outflow: the negative ones; a zero, "-0" included, adds nothing to
 * either). Built for summing a million amounts fast: an amount of up to 15
 * digits is read with a char loop into a double and added to a double sum kept
 * per scale (exact: every partial stays below 2^53), which moves into a BigInt
 * before it could lose a digit; longer amounts, and totals such as a day of the
 * summary rollups, go through parseTotal. Throws RangeError on text that is not
 * a decimal, as parseTotal does.
 */
export class DecimalSum {
  count = 0
  readonly #small = [
    new Array<number>(SMALL_DIGITS + 1).fill(0),
    new Array<number>(SMALL_DIGITS + 1).fill(0),
  ]
  readonly #big: [Scaled, Scaled] = [
    { units: 0n, scale: 0 },
    { units: 0n, scale: 0 },
  ]

  add(text: string): void {
    this.count++
    const negative = text.charCodeAt(0) === 45 // '-'
    let units = 0
    let scale = -1
    let digits = 0
    let i = negative || text.charCodeAt(0) === 43 ? 1 : 0 // '+'
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c === 46 && scale < 0) {
        scale = 0
        continue
      }
      if (c < 48 || c > 57 || ++digits > SMALL_DIGITS) break
      units = units * 10 + (c - 48)
      if (scale >= 0) scale++
    }
    if (i < text.length || digits === 0) {
      const parsed = parseTotal(text)
      this.#addBig(
        parsed.units < 0n ? 1 : 0,
        parsed.units < 0n ? -parsed.units : parsed.units,
        parsed.scale,
      )
      return
    }
    const side = negative ? 1 : 0
    const sums = this.#small[side]!
    const scaleIndex = scale < 0 ? 0 : scale
    const next = sums[scaleIndex]! + units
    if (next < SMALL_FLUSH_AT) sums[scaleIndex] = next
    else {
      sums[scaleIndex] = 0
      this.#addBig(side, BigInt(next), scaleIndex)
    }
  }

  /** Adds another sum's amounts (and count) to this one. */
  merge(other: DecimalSum): void {
    this.count += other.count
    for (const side of [0, 1] as const) {
      const { units, scale } = other.#total(side)
      this.#addBig(side, units, scale)
    }
  }

  /** The sum of the positive amounts. */
  get inflow(): Scaled {
    return this.#total(0)
  }

  /** The sum of the negative amounts (zero or below). */
  get outflow(): Scaled {
    const { units, scale } = this.#total(1)
    return { units: -units, scale }
  }

  /** Every amount added. */
  get sum(): Scaled {
    const [x, y, scale] = align(this.inflow, this.outflow)
    return { units: x + y, scale }
  }

  /** The magnitude summed on one side (0: inflow, 1: outflow), at the largest scale added. */
  #total(side: 0 | 1): Scaled {
    const big = this.#big[side]
    const small = this.#small[side]!
    let scale = big.scale
    for (let s = scale + 1; s <= SMALL_DIGITS; s++) if (small[s] !== 0) scale = s
    let units = rescale(big.units, big.scale, scale)
    for (let s = 0; s <= SMALL_DIGITS; s++) {
      const part = small[s]!
      if (part !== 0) units += rescale(BigInt(part), s, scale)
    }
    return { units, scale }
  }

  #addBig(side: 0 | 1, units: bigint, scale: number): void {
    const [x, y, s] = align(this.#big[side], { units, scale })
    this.#big[side] = { units: x + y, scale: s }
  }
}

// Pixel geometry for the charts: a linear scale, "nice" axis ticks and evenly
// spaced bands. Only positions are floats here; the amounts a person reads stay
// exact decimal strings and never pass through these functions.
import { groupDigits } from '../components/format.js'

/** Maps a value of [d0, d1] onto [r0, r1] (a degenerate domain maps to r0). */
export function linearScale(
  [d0, d1]: readonly [number, number],
  [r0, r1]: readonly [number, number],
): (value: number) => number {
  const span = d1 - d0
  if (span === 0) return () => r0
  return (value) => r0 + ((value - d0) / span) * (r1 - r0)
}

export interface Ticks {
  /** The tick values, from the lowest up, 0 among them when the domain spans it. */
  values: number[]
  /** Each tick written for reading, from its exact decimal value (see tickText). */
  labels: string[]
  /** The domain widened to whole ticks. */
  domain: [number, number]
  /** Fraction digits that write every tick exactly. */
  decimals: number
}

/** Past this many integer digits (or fraction zeros) a tick is written compactly, 5e29. */
const COMPACT_DIGITS = 15

/**
 * The tick `n × 10^power` written from its digits, never from the float (whose
 * 5 × 10^29 reads 4.9999999999999994e+29): digits grouped, `decimals` fraction
 * digits as toFixed would write them; a very large or very small one compactly
 * (`5e29`, `1.5e-20`).
 */
export function tickText(n: number, power: number, decimals = Math.max(0, -power)): string {
  if (n === 0) return decimals > 0 && decimals <= COMPACT_DIGITS ? `0.${'0'.repeat(decimals)}` : '0'
  const sign = n < 0 ? '-' : ''
  const whole = String(Math.abs(n))
  // Significant digits and their exponent: value = significant × 10^exponent.
  const significant = whole.replace(/0+$/, '') || '0'
  const exponent = power + (whole.length - significant.length)
  const magnitude = significant.length + exponent - 1
  if (magnitude >= COMPACT_DIGITS || magnitude < -COMPACT_DIGITS) {
    const mantissa =
      significant.length > 1 ? `${significant[0]}.${significant.slice(1)}` : significant
    return `${sign === '-' ? '−' : ''}${mantissa}e${magnitude}`
  }
  let text: string
  if (power >= 0) {
    text = whole + '0'.repeat(power)
  } else {
    const padded = whole.padStart(-power + 1, '0')
    text = `${padded.slice(0, power)}.${padded.slice(power)}`
  }
  const [int = '0', fraction = ''] = text.split('.')
  const shown = decimals > 0 ? `${int}.${fraction.padEnd(decimals, '0').slice(0, decimals)}` : int
  return groupDigits(sign + shown)
}

/** About `count` round ticks (1, 2 or 5 × 10^n apart) covering [min, max] and 0. */
export function niceTicks(min: number, max: number, count = 5): Ticks {
  let lo = Math.min(min, 0)
  let hi = Math.max(max, 0)
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) lo = hi = 0
  if (lo === hi) hi = lo + 1
  const raw = (hi - lo) / Math.max(1, count)
  let power = Math.floor(Math.log10(raw))
  const base = 10 ** power
  let multiple = [1, 2, 5, 10].find((m) => m * base >= raw) ?? 10
  const step = multiple * base
  // A step of 10 × 10^n is 1 × 10^(n+1): one fraction digit fewer to write.
  if (multiple === 10) [multiple, power] = [1, power + 1]
  const first = Math.floor(lo / step)
  const last = Math.ceil(hi / step)
  const decimals = Math.max(0, -power)
  const values: number[] = []
  const labels: string[] = []
  for (let i = first; i <= last; i++) {
    values.push(i * step)
    labels.push(tickText(i * multiple, power, decimals))
  }
  return {
    values,
    labels,
    domain: [first * step, last * step],
    decimals,
  }
}

/**
 * A tick value written for reading, from the float itself: rounded to its own
 * precision, digits grouped, compactly past 15 digits with the float's noise
 * rounded away (4.9999999999999994e+29 reads 5e29). niceTicks' labels are
 * written from exact digits instead; this is for a value alone.
 */
export function tickLabel(value: number, decimals: number): string {
  if (Math.abs(value) >= 10 ** COMPACT_DIGITS) {
    const [mantissa = '', exponent = ''] = value.toExponential(COMPACT_DIGITS - 1).split('e')
    return `${mantissa.replace(/\.?0+$/, '').replace('-', '−')}e${Number(exponent)}`
  }
  const text = value.toFixed(decimals)
  return groupDigits(/^-0(\.0*)?$/.test(text) ? text.slice(1) : text)
}

export interface Bands {
  /** Left edge of band i. */
  x(i: number): number
  /** Centre of band i. */
  center(i: number): number
  /** Width of a band's bar (the band less its padding). */
  bar: number
  /** Width of a whole band. */
  step: number
}

/** `n` equal bands across [x0, x1], each bar `padding` (0–1) narrower than its band. */
export function bands(n: number, [x0, x1]: readonly [number, number], padding = 0.25): Bands {
  const step = n > 0 ? (x1 - x0) / n : 0
  const bar = step * (1 - padding)
  return {
    x: (i) => x0 + i * step + (step - bar) / 2,
    center: (i) => x0 + i * step + step / 2,
    bar,
    step,
  }
}

/** Every k-th label, so that labels about `labelWidth` wide do not overlap. */
export function labelEvery(n: number, step: number, labelWidth: number): number {
  if (step <= 0) return Math.max(1, n)
  return Math.max(1, Math.ceil(labelWidth / step))
}

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
  /** The domain widened to whole ticks. */
  domain: [number, number]
  /** Fraction digits that write every tick exactly. */
  decimals: number
}

/** About `count` round ticks (1, 2 or 5 × 10^n apart) covering [min, max] and 0. */
export function niceTicks(min: number, max: number, count = 5): Ticks {
  let lo = Math.min(min, 0)
  let hi = Math.max(max, 0)
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) lo = hi = 0
  if (lo === hi) hi = lo + 1
  const raw = (hi - lo) / Math.max(1, count)
  const power = Math.floor(Math.log10(raw))
  const base = 10 ** power
  const step = [1, 2, 5, 10].map((m) => m * base).find((s) => s >= raw) ?? 10 * base
  const first = Math.floor(lo / step)
  const last = Math.ceil(hi / step)
  const values: number[] = []
  for (let i = first; i <= last; i++) values.push(i * step)
  return {
    values,
    domain: [first * step, last * step],
    decimals: Math.max(0, -power),
  }
}

/** A tick written for reading: rounded to its own precision, digits grouped. */
export function tickLabel(value: number, decimals: number): string {
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

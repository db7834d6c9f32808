// Properties of the exact decimals (decimal.ts), checked against plain BigInt
// arithmetic on scaled integers: a value is units / 10^scale, and two values are
// equal when their cross products are, so no oracle here shares decimal.ts's code.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { holds } from '../test/helpers/property.js'
import {
  AMOUNT_MAX_LENGTH,
  addDecimal,
  compareDecimal,
  DecimalSum,
  equalDecimal,
  formatScaled,
  formatUnits,
  isNegative,
  negateDecimal,
  normalizeAmount,
  parseDecimal,
  subtractDecimal,
  subtractDecimalKeepingScale,
  sumDecimal,
  type Scaled,
} from './decimal.js'

const DIGIT = fc.constantFrom(...'0123456789')
const digits = (minLength: number, maxLength: number) =>
  fc.string({ unit: DIGIT, minLength, maxLength })

/** An amount as a client may write it, with the value it means. */
interface Written {
  text: string
  value: Scaled
}

// The three shapes of the input syntax: "12", "12." / "12.5", ".5"; a sign or none.
const written: fc.Arbitrary<Written> = fc
  .tuple(
    fc.constantFrom('', '+', '-'),
    fc.oneof(
      digits(1, 40).map((int) => ({ int, dot: false, frac: '' })),
      fc.tuple(digits(1, 30), digits(0, 30)).map(([int, frac]) => ({ int, dot: true, frac })),
      digits(1, 40).map((frac) => ({ int: '', dot: true, frac })),
    ),
  )
  .filter(([sign, p]) => sign.length + p.int.length + (p.dot ? 1 : 0) + p.frac.length <= 64)
  .map(([sign, { int, dot, frac }]) => {
    const magnitude = BigInt(int + frac)
    return {
      text: `${sign}${int}${dot ? '.' : ''}${frac}`,
      value: { units: sign === '-' ? -magnitude : magnitude, scale: frac.length },
    }
  })

const scaled: fc.Arbitrary<Scaled> = fc.record({
  units: fc.bigInt({ min: -(10n ** 70n), max: 10n ** 70n }),
  scale: fc.nat({ max: 40 }),
})

const pow10 = (n: number) => 10n ** BigInt(n)

function sameValue(a: Scaled, b: Scaled): boolean {
  return a.units * pow10(b.scale) === b.units * pow10(a.scale)
}

function sum(a: Scaled, b: Scaled): Scaled {
  return { units: a.units * pow10(b.scale) + b.units * pow10(a.scale), scale: a.scale + b.scale }
}

function negated(a: Scaled): Scaled {
  return { units: -a.units, scale: a.scale }
}

// Reads any plain decimal text, of any length: results may be longer than an input may.
function readAny(text: string): Scaled {
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text)
  assert.ok(match && `${match[2]}${match[3] ?? ''}` !== '', `not a decimal: ${text}`)
  const magnitude = BigInt(`${match[2]}${match[3] ?? ''}`)
  return { units: match[1] === '-' ? -magnitude : magnitude, scale: (match[3] ?? '').length }
}

/** No '+', no leading zeros, no trailing fraction zeros or dot, no "-0". */
const CANONICAL = /^(?!-0$)-?(0|[1-9]\d*)(\.\d*[1-9])?$/

function assertCanonical(text: string, expected: Scaled): void {
  assert.match(text, CANONICAL)
  assert.ok(
    sameValue(readAny(text), expected),
    `${text} is not ${String(expected.units)}e-${expected.scale}`,
  )
}

test('normalizeAmount keeps every written amount verbatim but a leading "+"; parseDecimal reads its value', () => {
  holds(
    fc.property(written, ({ text, value }) => {
      assert.equal(normalizeAmount(text), text.startsWith('+') ? text.slice(1) : text)
      assert.deepEqual(parseDecimal(text), value)
    }),
  )
})

test('normalizeAmount accepts exactly the amount syntax of 64 characters at most; parseDecimal throws only RangeError', () => {
  // Near misses (signs, dots, exponents, separators) as well as any text.
  const nearMiss = fc.string({ unit: fc.constantFrom(...'0123456789.+-e, ٣'), maxLength: 70 })
  const independent = (s: string) => s.length <= 64 && /^[+-]?(\d+\.?\d*|\.\d+)$/.test(s)
  holds(
    fc.property(fc.oneof(nearMiss, fc.string({ unit: 'binary', maxLength: 70 })), (text) => {
      const normalized = normalizeAmount(text)
      assert.equal(normalized !== null, independent(text), JSON.stringify(text))
      if (normalized === null) assert.throws(() => parseDecimal(text), RangeError)
      else assert.ok(sameValue(parseDecimal(text), readAny(normalized)))
    }),
  )
})

test('formatScaled writes the canonical text of the value', () => {
  holds(
    fc.property(scaled, (value) => {
      const text = formatScaled(value)
      assertCanonical(text, value)
      if (text.length <= AMOUNT_MAX_LENGTH) assert.ok(sameValue(parseDecimal(text), value))
    }),
  )
})

test('format(parse(x)) is x canonical, and formatting is idempotent', () => {
  holds(
    fc.property(written, ({ text, value }) => {
      const canonical = formatScaled(parseDecimal(text))
      assertCanonical(canonical, value)
      assert.equal(formatScaled(readAny(canonical)), canonical)
      assert.ok(equalDecimal(text, text))
      if (canonical.length <= AMOUNT_MAX_LENGTH) {
        assert.equal(formatScaled(parseDecimal(canonical)), canonical)
        assert.ok(equalDecimal(text, canonical))
      }
    }),
  )
})

test('compareDecimal and equalDecimal agree with BigInt comparison', () => {
  holds(
    fc.property(written, written, (a, b) => {
      const x = a.value.units * pow10(b.value.scale)
      const y = b.value.units * pow10(a.value.scale)
      const expected = x < y ? -1 : x > y ? 1 : 0
      assert.equal(compareDecimal(a.text, b.text), expected)
      assert.equal(compareDecimal(b.text, a.text), -expected)
      assert.equal(equalDecimal(a.text, b.text), expected === 0)
      assert.equal(isNegative(a.text), a.value.units < 0n)
    }),
  )
})

test('addDecimal, subtractDecimal and negateDecimal equal the BigInt results, canonical', () => {
  holds(
    fc.property(written, written, (a, b) => {
      assertCanonical(addDecimal(a.text, b.text), sum(a.value, b.value))
      assertCanonical(subtractDecimal(a.text, b.text), sum(a.value, negated(b.value)))
      assertCanonical(negateDecimal(a.text), negated(a.value))
      assert.equal(addDecimal(a.text, b.text), addDecimal(b.text, a.text))
    }),
  )
})

test('subtractDecimalKeepingScale equals the BigInt difference, with the larger fraction width', () => {
  holds(
    fc.property(written, written, (a, b) => {
      const text = subtractDecimalKeepingScale(a.text, b.text)
      const result = readAny(text)
      const scale = Math.max(a.value.scale, b.value.scale)
      assert.equal(result.scale, scale, text)
      assert.ok(sameValue(result, sum(a.value, negated(b.value))), text)
      // No leading zeros, a dot only with fraction digits, and no "-0".
      assert.match(text, /^-?(0|[1-9]\d*)(\.\d+)?$/)
      if (result.units === 0n) assert.ok(!text.startsWith('-'), text)
    }),
  )
})

test('sumDecimal equals the BigInt sum of the list', () => {
  holds(
    fc.property(fc.array(written, { maxLength: 20 }), (list) => {
      const expected = list.reduce((acc, w) => sum(acc, w.value), { units: 0n, scale: 0 })
      assertCanonical(sumDecimal(list.map((w) => w.text)), expected)
    }),
  )
})

test('formatUnits reads integer base units at a number of decimals', () => {
  holds(
    fc.property(
      fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }),
      fc.nat({ max: 36 }),
      (units, decimals) => {
        assertCanonical(formatUnits(units, decimals), { units, scale: decimals })
      },
    ),
  )
})

// Short amounts take DecimalSum's double path, long ones its BigInt path: mix both.
const shortWritten: fc.Arbitrary<Written> = fc
  .tuple(fc.constantFrom('', '+', '-'), digits(0, 9), fc.boolean(), digits(0, 8))
  .filter(([, int, dot, frac]) => int.length + frac.length > 0 && (dot || frac === ''))
  .map(([sign, int, dot, frac]) => {
    const magnitude = BigInt(int + frac)
    return {
      text: `${sign}${int}${dot ? '.' : ''}${frac}`,
      value: { units: sign === '-' ? -magnitude : magnitude, scale: frac.length },
    }
  })

test('DecimalSum: count, inflow, outflow and sum equal the BigInt sums; merge adds two sums', () => {
  const zero: Scaled = { units: 0n, scale: 0 }
  holds(
    fc.property(
      fc.array(fc.oneof(shortWritten, shortWritten, written), { maxLength: 40 }),
      fc.nat({ max: 40 }),
      (list, cut) => {
        const [left, right] = [new DecimalSum(), new DecimalSum()]
        list.forEach((w, i) => (i < cut ? left : right).add(w.text))
        left.merge(right)
        const positive = list.filter((w) => w.value.units > 0n).map((w) => w.value)
        const negative = list.filter((w) => w.value.units < 0n).map((w) => w.value)
        assert.equal(left.count, list.length)
        assert.ok(sameValue(left.inflow, positive.reduce(sum, zero)))
        assert.ok(sameValue(left.outflow, negative.reduce(sum, zero)))
        assert.ok(sameValue(left.sum, list.map((w) => w.value).reduce(sum, zero)))
      },
    ),
  )
})

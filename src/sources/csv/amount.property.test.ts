// Properties of CSV amount cleaning (amount.ts): a written amount dressed as
// statements dress it ($, thousands separators, +, parentheses, spaces) cleans to
// its digits with its sign; every result is an amount the ledger stores; debit and
// credit combine exactly, checked against BigInt arithmetic.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { holds } from '../../../test/helpers/property.js'
import { normalizeAmount } from '../../decimal.js'
import { cleanAmount, creditMinusDebit } from './amount.js'

const DIGIT = fc.constantFrom(...'0123456789')
const digits = (minLength: number, maxLength: number) =>
  fc.string({ unit: DIGIT, minLength, maxLength })

/** An unsigned amount as a file writes it: "12", "12.", "12.50", ".5"; up to 64 characters. */
interface Magnitude {
  int: string
  frac: string
  dot: boolean
}

// fast-check keeps strings short by default; the long ones reach the 64-character bound.
const magnitude: fc.Arbitrary<Magnitude> = fc.oneof(
  digits(1, 20).map((int) => ({ int, frac: '', dot: false })),
  fc.tuple(digits(1, 20), digits(0, 20)).map(([int, frac]) => ({ int, frac, dot: true })),
  digits(1, 20).map((frac) => ({ int: '', frac, dot: true })),
  digits(60, 66).map((int) => ({ int, frac: '', dot: false })),
  fc.tuple(digits(30, 33), digits(28, 33)).map(([int, frac]) => ({ int, frac, dot: true })),
)

const plain = (m: Magnitude) => `${m.int}${m.dot ? '.' : ''}${m.frac}`

/** "1234567" → "1,234,567". */
function grouped(int: string): string {
  let out = ''
  for (let i = 0; i < int.length; i++) {
    if (i > 0 && (int.length - i) % 3 === 0) out += ','
    out += int[i]
  }
  return out
}

interface Cell {
  text: string
  /** What the cell means: sign and digits, before the ledger's length bound. */
  meaning: string
}

const cell: fc.Arbitrary<Cell> = fc
  .record({
    m: magnitude,
    sign: fc.constantFrom('none', 'plus', 'minus', 'parens', 'dollar-minus'),
    dollar: fc.boolean(),
    group: fc.boolean(),
    before: fc.constantFrom('', ' ', '  ', '\t'),
    after: fc.constantFrom('', ' ', '\t '),
  })
  .map(({ m, sign, dollar, group, before, after }) => {
    const body = `${group ? grouped(m.int) : m.int}${m.dot ? '.' : ''}${m.frac}`
    const d = dollar ? '$' : ''
    const dressed = {
      none: `${d}${body}`,
      plus: `+${d}${body}`,
      minus: `-${d}${body}`,
      parens: `(${d}${body})`,
      'dollar-minus': `$-${body}`,
    }[sign]
    const negative = sign === 'minus' || sign === 'parens' || sign === 'dollar-minus'
    return { text: `${before}${dressed}${after}`, meaning: `${negative ? '-' : ''}${plain(m)}` }
  })

/** The stored form of a meaning: itself when the ledger accepts it (64 characters at most). */
const stored = (meaning: string) => (meaning.length <= 64 ? meaning : null)

// Value of a plain decimal text as units / 10^scale.
function read(text: string): { units: bigint; scale: number } {
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text)
  assert.ok(match, `not a decimal: ${text}`)
  const magnitude = BigInt(`${match[2]}${match[3] ?? ''}`)
  return { units: match[1] === '-' ? -magnitude : magnitude, scale: (match[3] ?? '').length }
}

/** units / 10^scale written with exactly `scale` fraction digits. */
function withScale(units: bigint, scale: number): string {
  const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0')
  const int = digits.slice(0, digits.length - scale)
  return `${units < 0n ? '-' : ''}${int}${scale > 0 ? `.${digits.slice(int.length)}` : ''}`
}

test('cleanAmount turns a dressed amount into its sign and digits, or null past 64 characters', () => {
  holds(
    fc.property(cell, ({ text, meaning }) => {
      assert.equal(cleanAmount(text), stored(meaning), JSON.stringify(text))
    }),
  )
})

test('cleanAmount never throws, and whatever it returns the ledger accepts as it is', () => {
  const nearMiss = fc.string({ unit: fc.constantFrom(...'0123456789.,+-$() e'), maxLength: 70 })
  holds(
    fc.property(
      fc.oneof(
        nearMiss,
        fc.string({ unit: 'binary', maxLength: 70 }),
        cell.map((c) => c.text),
      ),
      (text) => {
        const amount = cleanAmount(text)
        if (amount !== null) assert.equal(normalizeAmount(amount), amount, JSON.stringify(text))
      },
    ),
  )
})

test('creditMinusDebit is credit minus debit exactly, keeps the written precision, and stays storable', () => {
  const side = fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom('', '  ').map((text) => ({ text, meaning: '' })) },
    { weight: 4, arbitrary: cell },
  )
  holds(
    fc.property(side, side, (credit, debit) => {
      const result = creditMinusDebit(credit.text, debit.text)
      const label = `${JSON.stringify(credit.text)} - ${JSON.stringify(debit.text)}`
      if (credit.meaning === '' && debit.meaning === '') {
        assert.equal(result, null, label)
        return
      }
      if (
        (credit.meaning !== '' && stored(credit.meaning) === null) ||
        (debit.meaning !== '' && stored(debit.meaning) === null)
      ) {
        assert.equal(result, null, label)
        return
      }
      const c = read(credit.meaning === '' ? '0' : credit.meaning)
      const d = read(debit.meaning === '' ? '0' : debit.meaning)
      // One side blank: the other as written; both set: the wider precision.
      const scale =
        credit.meaning === ''
          ? d.scale
          : debit.meaning === ''
            ? c.scale
            : Math.max(c.scale, d.scale)
      const at = (v: { units: bigint; scale: number }) => v.units * 10n ** BigInt(scale - v.scale)
      const difference = at(c) - at(d)
      if (result === null) {
        // Only a difference too long to store is refused.
        assert.ok(withScale(difference, scale).length > 64, label)
        return
      }
      assert.equal(normalizeAmount(result), result, label)
      if (debit.meaning === '') assert.equal(result, credit.meaning, label)
      const r = read(result)
      assert.equal(r.scale, scale, `${label} = ${result}`)
      assert.equal(r.units, difference, `${label} = ${result}`)
    }),
  )
})

test('creditMinusDebit never throws on any two cells', () => {
  const text = fc.oneof(
    cell.map((c) => c.text),
    fc.string({ unit: fc.constantFrom(...'0123456789.,+-$() '), maxLength: 70 }),
    fc.string({ maxLength: 20 }),
  )
  holds(
    fc.property(text, text, (credit, debit) => {
      const result = creditMinusDebit(credit, debit)
      if (result !== null) assert.equal(normalizeAmount(result), result)
    }),
  )
})

import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  DecimalSum,
  AMOUNT_MAX_LENGTH,
  addDecimal,
  compareDecimal,
  equalDecimal,
  formatScaled,
  formatUnits,
  isNegative,
  negateDecimal,
  normalizeAmount,
  parseDecimal,
  parseTotal,
  subtractDecimal,
  subtractDecimalKeepingScale,
  sumDecimal,
  TOTAL_MAX_LENGTH,
} from './decimal.js'

// [input, stored form]
const accepted: [string, string][] = [
  ['0', '0'],
  ['12', '12'],
  ['+12', '12'],
  ['-12', '-12'],
  ['12.340', '12.340'],
  ['-0.000000000000000001', '-0.000000000000000001'],
  ['1234567890123456789.123456789', '1234567890123456789.123456789'],
  ['5.', '5.'],
  ['.5', '.5'],
  ['+.5', '.5'],
  ['-.5', '-.5'],
  ['-0', '-0'],
  ['007.00', '007.00'],
  ['1'.repeat(64), '1'.repeat(64)],
  [`-${'9'.repeat(63)}`, `-${'9'.repeat(63)}`],
  [`+${'9'.repeat(63)}`, '9'.repeat(63)],
  [`.${'1'.repeat(63)}`, `.${'1'.repeat(63)}`],
  [`${'1'.repeat(32)}.${'2'.repeat(31)}`, `${'1'.repeat(32)}.${'2'.repeat(31)}`],
]

const rejected: string[] = [
  '1'.repeat(65),
  `+${'1'.repeat(64)}`,
  `-${'1'.repeat(64)}`,
  `.${'1'.repeat(64)}`,
  '1e5',
  '1E5',
  ' 1',
  '1 ',
  '1\n',
  '1,000',
  '1_000',
  '--1',
  '+-1',
  '-+1',
  '',
  '.',
  '+',
  '-',
  '-.',
  '+.',
  '1.2.3',
  '0x10',
  'Infinity',
  'NaN',
  '\u0661', // ARABIC-INDIC DIGIT ONE: \d is ASCII only
  '\uff11', // FULLWIDTH DIGIT ONE
]

test('AMOUNT_MAX_LENGTH is 64', () => {
  assert.equal(AMOUNT_MAX_LENGTH, 64)
})

for (const [input, stored] of accepted) {
  void test(`normalizeAmount accepts ${JSON.stringify(input)}`, () => {
    assert.equal(normalizeAmount(input), stored)
  })
}

for (const input of rejected) {
  void test(`normalizeAmount rejects ${JSON.stringify(input)}`, () => {
    assert.equal(normalizeAmount(input), null)
  })
  void test(`parseDecimal throws RangeError on ${JSON.stringify(input)}`, () => {
    assert.throws(() => parseDecimal(input), RangeError)
  })
}

// [text, units, scale]
const parsed: [string, bigint, number][] = [
  ['0', 0n, 0],
  ['-0', 0n, 0],
  ['12.340', 12340n, 3],
  ['+12.340', 12340n, 3],
  ['5.', 5n, 0],
  ['.5', 5n, 1],
  ['-.5', -5n, 1],
  ['-0.000000000000000001', -1n, 18],
  ['1234567890123456789.123456789', 1234567890123456789123456789n, 9],
  ['007', 7n, 0],
]

for (const [text, units, scale] of parsed) {
  void test(`parseDecimal(${JSON.stringify(text)})`, () => {
    assert.deepEqual(parseDecimal(text), { units, scale })
  })
}

// [units, scale, canonical]
const formatted: [bigint, number, string][] = [
  [0n, 0, '0'],
  [0n, 5, '0'],
  [12340n, 3, '12.34'],
  [5n, 0, '5'],
  [5n, 1, '0.5'],
  [-5n, 1, '-0.5'],
  [1000n, 3, '1'],
  [-1000n, 2, '-10'],
  [-1n, 18, '-0.000000000000000001'],
  [1234567890123456789123456789n, 9, '1234567890123456789.123456789'],
]

for (const [units, scale, text] of formatted) {
  void test(`formatScaled(${units}n, ${scale}) = ${text}`, () => {
    assert.equal(formatScaled({ units, scale }), text)
  })
}

for (const scale of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
  void test(`formatScaled rejects scale ${scale}`, () => {
    assert.throws(() => formatScaled({ units: 1n, scale }), RangeError)
  })
}

// [units, decimals, text]
const unitRows: [bigint, number, string][] = [
  [1n, 18, '0.000000000000000001'],
  [10n ** 18n, 18, '1'],
  [-1500000000000000000n, 18, '-1.5'],
  [0n, 18, '0'],
  [123n, 0, '123'],
  [123n, 2, '1.23'],
  [100n, 8, '0.000001'],
]

for (const [units, decimals, text] of unitRows) {
  void test(`formatUnits(${units}n, ${decimals}) = ${text}`, () => {
    assert.equal(formatUnits(units, decimals), text)
  })
}

// [a, b, compare, a + b, a - b]
const arithmetic: [string, string, -1 | 0 | 1, string, string][] = [
  ['0.1', '0.10', 0, '0.2', '0'],
  ['-0', '0', 0, '0', '0'],
  ['1', '1.0', 0, '2', '0'],
  ['5.', '.5', 1, '5.5', '4.5'],
  ['-1', '1', -1, '0', '-2'],
  ['-2', '-1', -1, '-3', '-1'],
  ['0.1', '0.2', -1, '0.3', '-0.1'],
  ['+3', '3', 0, '6', '0'],
  ['-0.000000000000000001', '0', -1, '-0.000000000000000001', '-0.000000000000000001'],
  [
    '1234567890123456789.123456789',
    '0.876543211',
    1,
    '1234567890123456790',
    '1234567890123456788.246913578',
  ],
  ['12.340', '-12.34', 1, '0', '24.68'],
  ['9'.repeat(64), '1', 1, `1${'0'.repeat(64)}`, `${'9'.repeat(63)}8`],
]

for (const [a, b, cmp, sum, difference] of arithmetic) {
  void test(`decimal arithmetic on ${a} and ${b}`, () => {
    assert.equal(compareDecimal(a, b), cmp)
    assert.equal(compareDecimal(b, a), cmp === 0 ? 0 : -cmp)
    assert.equal(equalDecimal(a, b), cmp === 0)
    assert.equal(addDecimal(a, b), sum)
    assert.equal(subtractDecimal(a, b), difference)
  })
}

// [a, b, a - b with the larger number of fraction digits, zeros kept]
const keepingScale: [string, string, string][] = [
  ['10.00', '2.5', '7.50'],
  ['0.1', '0.2', '-0.1'],
  ['1000.01', '0.01', '1000.00'],
  ['5', '5', '0'],
  ['-0.000', '0', '0.000'],
  ['.5', '5.', '-4.5'],
  ['+3', '-0.25', '3.25'],
  ['99999999999999999999.99', '0.01', '99999999999999999999.98'],
  ['0.001', '1', '-0.999'],
]

for (const [a, b, difference] of keepingScale) {
  void test(`subtractDecimalKeepingScale(${a}, ${b})`, () => {
    assert.equal(subtractDecimalKeepingScale(a, b), difference)
    assert.equal(compareDecimal(difference, subtractDecimal(a, b)), 0)
  })
}

test('subtractDecimalKeepingScale rejects invalid amounts', () => {
  assert.throws(() => subtractDecimalKeepingScale('1,000', '1'), RangeError)
  assert.throws(() => subtractDecimalKeepingScale('1', '$1'), RangeError)
})

// [a, -a, isNegative(a)]
const negations: [string, string, boolean][] = [
  ['0', '0', false],
  ['-0', '0', false],
  ['-0.000', '0', false],
  ['1.50', '-1.5', false],
  ['-1.50', '1.5', true],
  ['.5', '-0.5', false],
  ['-0.000000000000000001', '0.000000000000000001', true],
]

for (const [a, negated, negative] of negations) {
  void test(`negateDecimal / isNegative(${JSON.stringify(a)})`, () => {
    assert.equal(negateDecimal(a), negated)
    assert.equal(isNegative(a), negative)
  })
}

// [values, sum]
const sums: [string[], string][] = [
  [[], '0'],
  [['1.5'], '1.5'],
  [['0.1', '0.2', '-0.3'], '0'],
  [['-0.000000000000000001', '0.000000000000000002'], '0.000000000000000001'],
  [['9'.repeat(64), '9'.repeat(64)], `1${'9'.repeat(63)}8`],
]

for (const [values, total] of sums) {
  void test(`sumDecimal(${JSON.stringify(values)})`, () => {
    assert.equal(sumDecimal(values), total)
    // Any iterable, not only arrays.
    assert.equal(
      sumDecimal(
        (function* () {
          yield* values
        })(),
      ),
      total,
    )
  })
}

test('a total may be longer than an amount: sums of the longest amounts parse back and add up', () => {
  // Two of the longest negative amounts (64 characters each) sum to 65: a
  // summary's outflow, which the service parses back from its database.
  const longest = `-${'9'.repeat(60)}.00`
  assert.equal(longest.length, AMOUNT_MAX_LENGTH)
  const total = sumDecimal([longest, longest])
  assert.equal(total, `-1${'9'.repeat(59)}8`)
  assert.throws(() => parseDecimal(`${total}.00`), RangeError)
  assert.deepEqual(parseTotal(`${total}.00`), { units: -BigInt(`1${'9'.repeat(59)}800`), scale: 2 })
  // The arithmetic takes totals: a chart's "Other" and a balance's running sum.
  const wide = `${'9'.repeat(70)}.${'1'.repeat(70)}`
  assert.equal(addDecimal(wide, '0.0'), wide)
  assert.equal(negateDecimal(wide), `-${wide}`)
  assert.equal(compareDecimal(wide, `1${'0'.repeat(70)}`), -1)
  assert.equal(subtractDecimal(wide, wide), '0')
  assert.equal(isNegative(`-${wide}`), true)
  const sum = new DecimalSum()
  sum.add(wide)
  sum.add(`-${wide}`)
  assert.equal(formatScaled(sum.inflow), wide)
  assert.equal(formatScaled(sum.sum), '0')
  // Still bounded, and still only decimals.
  assert.doesNotThrow(() => parseTotal('1'.repeat(TOTAL_MAX_LENGTH)))
  for (const bad of ['1'.repeat(TOTAL_MAX_LENGTH + 1), '1e5', '', '1,000', `${wide}x`])
    assert.throws(() => parseTotal(bad), RangeError, bad.slice(0, 20))
})

test('arithmetic rejects invalid amounts', () => {
  assert.throws(() => addDecimal('1e5', '1'), RangeError)
  assert.throws(() => compareDecimal('1', ''), RangeError)
  assert.throws(() => sumDecimal(['1', '1,000']), RangeError)
})

// --- compareDecimal against an oracle ---------------------------------------

// Independent oracle: every amount as an integer count of 10^-64.
function oracle(text: string): bigint {
  const negative = text.startsWith('-')
  const body = /^[+-]/.test(text) ? text.slice(1) : text
  const [int = '', frac = ''] = body.split('.')
  const magnitude = BigInt(int === '' ? '0' : int) * 10n ** 64n + BigInt(frac.padEnd(64, '0'))
  return negative ? -magnitude : magnitude
}

function sign(n: number | bigint): -1 | 0 | 1 {
  return n < 0 ? -1 : n > 0 ? 1 : 0
}

// Small seeded PRNG (mulberry32) so a failure reproduces.
function rng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function randomAmount(random: () => number): string {
  const int = (n: number): number => Math.floor(random() * n)
  const digits = (n: number): string => {
    // Skewed towards zeros and nines to hit padding and carry edges.
    const alphabet = random() < 0.3 ? '09' : '0123456789'
    let out = ''
    for (let i = 0; i < n; i++) out += alphabet[int(alphabet.length)]
    return out
  }
  const signText = ['', '-', '+'][int(3)] ?? ''
  const budget = AMOUNT_MAX_LENGTH - signText.length
  const shape = int(4)
  let body: string
  if (shape === 0) body = digits(1 + int(budget))
  else if (shape === 1) body = `${digits(1 + int(budget - 1))}.`
  else if (shape === 2) body = `.${digits(1 + int(budget - 1))}`
  else {
    const intLength = 1 + int(budget - 2)
    body = `${digits(intLength)}.${digits(int(budget - intLength))}`
  }
  return signText + body
}

// A value near `a`: same value respelled, last digit nudged, or sign flipped.
function neighbour(a: string, random: () => number): string {
  const choice = Math.floor(random() * 4)
  if (choice === 0 && a.length < AMOUNT_MAX_LENGTH) return a.includes('.') ? `${a}0` : `${a}.`
  if (choice === 1 && a.length < AMOUNT_MAX_LENGTH) return a.replace(/^([+-]?)/, '$10')
  if (choice === 2) {
    const last = a.at(-1)
    if (last !== undefined && last >= '0' && last <= '8') {
      return a.slice(0, -1) + String.fromCharCode(last.charCodeAt(0) + 1)
    }
  }
  const unsigned = a.replace(/^[+-]/, '')
  if (a.startsWith('-')) return unsigned
  return unsigned.length < AMOUNT_MAX_LENGTH ? `-${unsigned}` : a
}

// [a, b, expected order]
const orderEdges: [string, string, -1 | 0 | 1][] = [
  ['-1', '1', -1],
  ['-0', '0', 0],
  ['-0.000', '+0.0', 0],
  ['1', '1.0', 0],
  ['1', '+001.', 0],
  ['.5', '0.50', 0],
  ['-0.000000000000000001', '0', -1],
  ['-0.000000000000000001', '-0.000000000000000002', 1],
  ['0.000000000000000001', '0.00000000000000001', -1],
  ['-1', '-0.5', -1],
  ['-2', '-10', 1],
  ['2', '10', -1],
  ['0.9', '1', -1],
  ['-0.9', '-1', 1],
  ['1234567890123456789.123456789', '1234567890123456789.12345679', -1],
  [`.${'0'.repeat(62)}1`, '0', 1],
  [`-.${'0'.repeat(61)}1`, '0', -1],
  [`.${'9'.repeat(63)}`, '1', -1],
  ['9'.repeat(64), `${'9'.repeat(63)}8`, 1],
  [`-${'9'.repeat(63)}`, `-${'9'.repeat(62)}.`, -1],
  [`${'1'.repeat(32)}.${'2'.repeat(31)}`, `${'1'.repeat(32)}.${'2'.repeat(30)}3`, -1],
]

for (const [a, b, order] of orderEdges) {
  void test(`compareDecimal orders ${a} vs ${b}`, () => {
    assert.equal(compareDecimal(a, b), order)
    assert.equal(compareDecimal(b, a), order === 0 ? 0 : -order)
  })
}

test('compareDecimal equals the oracle on random pairs', () => {
  const random = rng(0xc0ffee)
  for (let i = 0; i < 20_000; i++) {
    const a = randomAmount(random)
    const b = random() < 0.5 ? randomAmount(random) : neighbour(a, random)
    assert.notEqual(normalizeAmount(a), null, a)
    assert.notEqual(normalizeAmount(b), null, b)
    const expected = sign(oracle(a) - oracle(b))
    assert.equal(compareDecimal(a, b), expected, `compareDecimal(${a}, ${b})`)
  }
})

test('arithmetic agrees with the oracle on random pairs', () => {
  const random = rng(7)
  for (let i = 0; i < 5000; i++) {
    const a = randomAmount(random)
    const b = randomAmount(random)
    assert.equal(oracle(addDecimal(a, b)), oracle(a) + oracle(b), `${a} + ${b}`)
    assert.equal(oracle(subtractDecimal(a, b)), oracle(a) - oracle(b), `${a} - ${b}`)
  }
})

test('DecimalSum stays exact past 2^53 and reads every amount form', () => {
  const total = new DecimalSum()
  // 15-digit amounts, each on the double path: their running sum passes 2^53 many times.
  for (let i = 0; i < 10_000; i++) total.add('999999999999999')
  for (let i = 0; i < 10_000; i++) total.add('-9999999999999.99')
  for (const text of [
    '5.',
    '.5',
    '-0.0',
    '+0.25',
    '0',
    '-.5',
    '12345678901234567890.123456789012345678',
  ])
    total.add(text)
  assert.equal(total.count, 20_007)
  assert.equal(formatScaled(total.inflow), '22345678901234557895.873456789012345678')
  assert.equal(formatScaled(total.outflow), '-99999999999999900.5')
  assert.equal(formatScaled(total.sum), '22245678901234557995.373456789012345678')
  for (const bad of ['', '.', '-', '1.2.3', '12a', '1e5', ' 1'])
    assert.throws(() => new DecimalSum().add(bad), RangeError, JSON.stringify(bad))
})

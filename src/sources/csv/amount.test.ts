import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cleanAmount, creditMinusDebit } from './amount.js'

test('cleanAmount strips $, thousands separators and +, keeps the rest verbatim', () => {
  const cases: Array<[string, string | null]> = [
    ['12.50', '12.50'],
    ['-12.50', '-12.50'],
    ['+12.50', '12.50'],
    ['$12.50', '12.50'],
    ['-$1,234.50', '-1234.50'],
    ['$-1,234.50', '-1234.50'],
    ['1,234,567.891', '1234567.891'],
    [' 7 ', '7'],
    ['(12.34)', '-12.34'],
    ['($1,000.00)', '-1000.00'],
    ['.5', '.5'],
    ['5.', '5.'],
    ['0.000', '0.000'],
    ['', null],
    ['abc', null],
    ['12,34.5.6', null],
    ['(-5)', null],
    ['--5', null],
    ['1e5', null],
    ['12.34 EUR', null],
    ['$', null],
  ]
  for (const [input, expected] of cases) {
    assert.equal(cleanAmount(input), expected, JSON.stringify(input))
  }
})

test('creditMinusDebit is exact and keeps the written precision', () => {
  const cases: Array<[string, string, string | null]> = [
    ['100.00', '', '100.00'],
    ['', '25.10', '-25.10'],
    ['', '(25.10)', '25.10'],
    ['10.00', '2.5', '7.50'],
    ['0.1', '0.2', '-0.1'],
    ['1,000.01', '$0.01', '1000.00'],
    ['', '', null],
    ['x', '', null],
    ['1', 'y', null],
    ['99999999999999999999.99', '0.01', '99999999999999999999.98'],
  ]
  for (const [credit, debit, expected] of cases) {
    assert.equal(creditMinusDebit(credit, debit), expected, `${credit} - ${debit}`)
  }
})

// Found by amount.property.test.ts: the sign, or a difference at the wider precision,
// made a 65-character "amount" that the ledger cannot parse back (a search on it threw
// RangeError), and a negated 64-digit credit made creditMinusDebit throw.
test('a cleaned amount never passes the ledger length bound of 64 characters', () => {
  const zeros64 = '0'.repeat(64)
  const ones64 = '1'.repeat(64)
  assert.equal(cleanAmount(`-${zeros64}`), null)
  assert.equal(cleanAmount(`(${'0'.repeat(31)}.${'0'.repeat(32)})`), null)
  assert.equal(cleanAmount(`(${ones64})`), null)
  assert.equal(cleanAmount(ones64), ones64)
  assert.equal(cleanAmount(`-${'1'.repeat(63)}`), `-${'1'.repeat(63)}`)
  assert.equal(creditMinusDebit(`3${'0'.repeat(59)}`, '0.0000'), null)
  assert.equal(creditMinusDebit('', ones64), null)
  assert.equal(creditMinusDebit(`(${ones64})`, '1'), null)
  assert.equal(creditMinusDebit(`3${'0'.repeat(59)}`, '0.000'), `3${'0'.repeat(59)}.000`)
})

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

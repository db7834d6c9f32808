// One case (or more) per layout token of Go's reference-date style.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { compileLayout, guessingParser, layoutHasYear, layoutParser } from './date-layout.js'

function check(layout: string, cases: Array<[string, string | null]>): void {
  const parse = layoutParser(layout)
  for (const [input, expected] of cases) {
    assert.equal(parse(input), expected, `${layout} ← ${JSON.stringify(input)}`)
  }
}

const day = (d: string) => `${d}T00:00:00Z`

test('2006: four-digit year', () => {
  check('2006-01-02', [
    ['2024-03-05', day('2024-03-05')],
    ['24-03-05', null],
    ['0001-01-01', day('0001-01-01')],
  ])
})

test('06: two-digit year, 69-99 → 19xx, 00-68 → 20xx', () => {
  check('01/02/06', [
    ['03/05/24', day('2024-03-05')],
    ['03/05/68', day('2068-03-05')],
    ['03/05/69', day('1969-03-05')],
    ['03/05/2024', null],
  ])
})

test('01: zero-padded month, exactly two digits', () => {
  check('2006-01-02', [
    ['2024-3-05', null],
    ['2024-13-05', null],
    ['2024-00-05', null],
  ])
})

test('1: month, one or two digits', () => {
  check('1/2/2006', [
    ['3/5/2024', day('2024-03-05')],
    ['12/25/2024', day('2024-12-25')],
    ['13/1/2024', null],
  ])
})

test('Jan and January: month names, case-insensitive', () => {
  check('Jan 2, 2006', [
    ['Mar 5, 2024', day('2024-03-05')],
    ['mar 5, 2024', day('2024-03-05')],
    ['March 5, 2024', null],
  ])
  check('January 2, 2006', [
    ['September 30, 2024', day('2024-09-30')],
    ['Sep 30, 2024', null],
  ])
})

test('02, 2 and _2: day of the month', () => {
  check('2006-01-02', [['2024-03-5', null]])
  check('2.1.2006', [
    ['5.3.2024', day('2024-03-05')],
    ['05.03.2024', day('2024-03-05')],
  ])
  check('Jan _2 2006', [
    ['Mar  5 2024', day('2024-03-05')],
    ['Mar 15 2024', day('2024-03-15')],
  ])
})

test('day of the month is checked against the calendar', () => {
  check('2006-01-02', [
    ['2024-02-29', day('2024-02-29')],
    ['2023-02-29', null],
    ['2024-04-31', null],
    ['2024-01-00', null],
  ])
})

test('002 and __2: day of the year', () => {
  check('2006-002', [
    ['2024-060', day('2024-02-29')],
    ['2023-060', day('2023-03-01')],
    ['2024-60', null],
    ['2023-366', null],
  ])
  check('2006 __2', [['2024  60', day('2024-02-29')]])
})

test('Mon and Monday: weekday names are read and ignored', () => {
  check('Mon, 02 Jan 2006', [['Tue, 05 Mar 2024', day('2024-03-05')]])
  check('Monday 2006-01-02', [
    ['Tuesday 2024-03-05', day('2024-03-05')],
    ['Funday 2024-03-05', null],
  ])
})

test('15: hour of the day', () => {
  check('2006-01-02 15:04', [
    ['2024-03-05 23:59', '2024-03-05T23:59:00Z'],
    ['2024-03-05 7:30', '2024-03-05T07:30:00Z'],
    ['2024-03-05 24:00', null],
  ])
})

test('3, 03, PM and pm: twelve-hour clock', () => {
  check('2006-01-02 3:04 PM', [
    ['2024-03-05 1:30 PM', '2024-03-05T13:30:00Z'],
    ['2024-03-05 12:00 AM', '2024-03-05T00:00:00Z'],
    ['2024-03-05 12:00 PM', '2024-03-05T12:00:00Z'],
    ['2024-03-05 1:30 pm', null],
  ])
  check('2006-01-02 03:04pm', [
    ['2024-03-05 01:30pm', '2024-03-05T13:30:00Z'],
    ['2024-03-05 1:30pm', null],
  ])
})

test('04 and 4: minutes; 05 and 5: seconds', () => {
  check('2006-01-02 15:04:05', [
    ['2024-03-05 10:07:09', '2024-03-05T10:07:09Z'],
    ['2024-03-05 10:7:09', null],
    ['2024-03-05 10:07:60', null],
  ])
  check('2006-01-02 15:4:5', [['2024-03-05 10:7:9', '2024-03-05T10:07:09Z']])
})

test('.000 and .999: fractional seconds (dropped; whole seconds are stored)', () => {
  check('2006-01-02 15:04:05.000', [
    ['2024-03-05 10:07:09.123', '2024-03-05T10:07:09Z'],
    ['2024-03-05 10:07:09.12', null],
  ])
  check('2006-01-02 15:04:05.999', [
    ['2024-03-05 10:07:09.1', '2024-03-05T10:07:09Z'],
    ['2024-03-05 10:07:09', '2024-03-05T10:07:09Z'],
  ])
  // A fraction after the seconds is accepted even when the layout has none.
  check('2006-01-02 15:04:05', [['2024-03-05 10:07:09.5', '2024-03-05T10:07:09Z']])
})

test('Z07:00, Z0700, Z07 and their seconds forms: ISO 8601 zones, Z for UTC', () => {
  check('2006-01-02T15:04:05Z07:00', [
    ['2024-03-05T10:00:00Z', '2024-03-05T10:00:00Z'],
    ['2024-03-05T10:00:00+02:00', '2024-03-05T08:00:00Z'],
    ['2024-03-05T23:30:00-01:00', '2024-03-06T00:30:00Z'],
    ['2024-03-05T10:00:00+0200', null],
  ])
  check('2006-01-02 15:04Z0700', [['2024-03-05 10:00+0130', '2024-03-05T08:30:00Z']])
  check('2006-01-02 15:04Z07', [['2024-03-05 10:00-03', '2024-03-05T13:00:00Z']])
  check('2006-01-02 15:04:05Z07:00:00', [['2024-03-05 10:00:00+01:00:30', '2024-03-05T08:59:30Z']])
  check('2006-01-02 15:04:05Z070000', [['2024-03-05 10:00:00Z', '2024-03-05T10:00:00Z']])
})

test('-07:00, -0700, -07 and their seconds forms: numeric zones, no Z', () => {
  check('2006-01-02 15:04 -0700', [
    ['2024-03-05 10:00 -0500', '2024-03-05T15:00:00Z'],
    ['2024-03-05 10:00 Z', null],
  ])
  check('2006-01-02 15:04 -07:00', [['2024-03-05 10:00 +05:30', '2024-03-05T04:30:00Z']])
  check('2006-01-02 15:04 -07', [['2024-03-05 10:00 +01', '2024-03-05T09:00:00Z']])
  check('2006-01-02 15:04:05 -070000', [['2024-03-05 10:00:00 +000010', '2024-03-05T09:59:50Z']])
  check('2006-01-02 15:04:05 -07:00:00', [
    ['2024-03-05 10:00:00 -00:00:10', '2024-03-05T10:00:10Z'],
  ])
})

test('MST: zone abbreviations', () => {
  check('2006-01-02 15:04 MST', [
    ['2024-03-05 10:00 UTC', '2024-03-05T10:00:00Z'],
    ['2024-03-05 10:00 GMT', '2024-03-05T10:00:00Z'],
    ['2024-03-05 10:00 utc', null],
  ])
})

test('literals must match; runs of spaces match runs of spaces; no trailing text', () => {
  check('02.01.2006', [
    ['05.03.2024', day('2024-03-05')],
    ['05/03/2024', null],
    ['05.03.2024x', null],
  ])
  check('Jan 2 2006', [['Mar   5  2024', day('2024-03-05')]])
  check('_2006', [['_2024', day('2024-01-01')]])
})

test('layout compilation follows Go: "Janx" is literal, "Jan" before a capital is a month', () => {
  assert.deepEqual(compileLayout('Janx'), [{ literal: 'Janx' }])
  assert.deepEqual(compileLayout('JanX')[0], { token: 'month' })
  assert.equal(layoutHasYear('01/02'), false)
  assert.equal(layoutHasYear('01/02/06'), true)
})

test('without a layout, common forms are tried, month-first for slash and dash dates', () => {
  const parse = guessingParser()
  const cases: Array<[string, string | null]> = [
    ['2024-03-05', day('2024-03-05')],
    ['03/05/2024', day('2024-03-05')],
    ['3/5/2024', day('2024-03-05')],
    ['03-05-2024', day('2024-03-05')],
    ['03/05/24', day('2024-03-05')],
    ['05.03.2024', day('2024-03-05')],
    ['2024/03/05', day('2024-03-05')],
    ['20240305', day('2024-03-05')],
    ['Mar 5, 2024', day('2024-03-05')],
    ['March 5, 2024', day('2024-03-05')],
    ['5 Mar 2024', day('2024-03-05')],
    ['05-Mar-2024', day('2024-03-05')],
    ['2024-03-05T10:00:00Z', '2024-03-05T10:00:00Z'],
    ['2024-03-05 10:00:00', '2024-03-05T10:00:00Z'],
    ['13/05/2024', null],
    ['yesterday', null],
    ['', null],
  ]
  for (const [input, expected] of cases) {
    assert.equal(parse(input), expected, JSON.stringify(input))
  }
})

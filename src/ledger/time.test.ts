import { test } from 'node:test'
import assert from 'node:assert/strict'
import { formatInstant, isoNow, systemClock, type Clock } from '../clock.js'
import { parseInstant } from './time.js'

import { civilToInstant, isCalendarDay, monthDayOfYearDay } from './time.js'

// [input, UTC instant]
const accepted: [string | number, string][] = [
  // YYYY-MM-DD: midnight UTC
  ['2024-01-15', '2024-01-15T00:00:00Z'],
  ['2024-02-29', '2024-02-29T00:00:00Z'],
  ['2000-02-29', '2000-02-29T00:00:00Z'],
  ['2023-12-31', '2023-12-31T00:00:00Z'],
  ['0001-01-01', '0001-01-01T00:00:00Z'],
  ['9999-12-31', '9999-12-31T00:00:00Z'],
  // RFC 3339 timestamps
  ['2024-01-15T10:20:30Z', '2024-01-15T10:20:30Z'],
  ['2024-01-15t10:20:30z', '2024-01-15T10:20:30Z'],
  ['2024-01-15 10:20:30Z', '2024-01-15T10:20:30Z'],
  ['2024-01-15T10:20:30.999Z', '2024-01-15T10:20:30Z'],
  ['2024-01-15T10:20:30.123456789+00:00', '2024-01-15T10:20:30Z'],
  ['2024-01-15T10:20:30-00:00', '2024-01-15T10:20:30Z'],
  ['2024-01-15T10:20:30+02:00', '2024-01-15T08:20:30Z'],
  ['2024-01-15T10:20:30-05:30', '2024-01-15T15:50:30Z'],
  ['2024-01-15T00:30:00+01:00', '2024-01-14T23:30:00Z'],
  ['2024-12-31T23:30:00-01:00', '2025-01-01T00:30:00Z'],
  ['2024-03-01T00:00:00+00:01', '2024-02-29T23:59:00Z'],
  ['2024-01-15T10:20:30+23:59', '2024-01-14T10:21:30Z'],
  ['1969-12-31T23:59:59.999Z', '1969-12-31T23:59:59Z'],
  ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59Z'],
  ['0001-01-01T00:30:00+00:30', '0001-01-01T00:00:00Z'],
  ['0000-12-31T23:30:00-00:30', '0001-01-01T00:00:00Z'],
  // unix seconds, number or digit string
  [0, '1970-01-01T00:00:00Z'],
  [-0, '1970-01-01T00:00:00Z'],
  [1_700_000_000, '2023-11-14T22:13:20Z'],
  [-1, '1969-12-31T23:59:59Z'],
  [253_402_300_799, '9999-12-31T23:59:59Z'],
  [-62_135_596_800, '0001-01-01T00:00:00Z'],
  ['0', '1970-01-01T00:00:00Z'],
  ['-0', '1970-01-01T00:00:00Z'],
  ['1700000000', '2023-11-14T22:13:20Z'],
  ['-1', '1969-12-31T23:59:59Z'],
  ['0000000000001700000000', '2023-11-14T22:13:20Z'],
  ['253402300799', '9999-12-31T23:59:59Z'],
  ['-62135596800', '0001-01-01T00:00:00Z'],
  // Digits only is always unix seconds, never a compact date.
  ['20240115', '1970-08-23T06:15:15Z'],
]

const rejected: (string | number)[] = [
  // calendar
  '2024-02-30',
  '2023-02-29',
  '1900-02-29',
  '2024-13-01',
  '2024-00-10',
  '2024-01-00',
  '2024-01-32',
  '2024-04-31',
  '2024-02-30T00:00:00Z',
  // clock
  '2024-01-15T24:00:00Z',
  '2024-01-15T23:60:00Z',
  '2024-12-31T23:59:60Z',
  // offsets
  '2024-01-15T10:20:30',
  '2024-01-15T10:20:30+0200',
  '2024-01-15T10:20:30+02',
  '2024-01-15T10:20:30+24:00',
  '2024-01-15T10:20:30+01:60',
  '2024-01-15T10:20:30 Z',
  // shape
  '2024-01-15T10:20Z',
  '2024-01-15T10:20:30.Z',
  '2024-01-15T10:20:30,5Z',
  '2024-01-15T',
  '2024-01-15x10:20:30Z',
  '2024-1-5',
  '24-01-15',
  '2024/01/15',
  '15.01.2024',
  '+2024-01-15',
  '12024-01-15',
  ' 2024-01-15',
  '2024-01-15 ',
  '2024-01-15\n',
  '\uff12\uff10\uff12\uff14-01-15', // fullwidth digits
  '',
  'now',
  // year range 0001-9999
  '0000-01-01',
  '0000-12-31T23:59:59Z',
  '0001-01-01T00:30:00+01:00',
  '9999-12-31T23:30:00-01:00',
  // unix seconds
  '+1700000000',
  '1700000000.5',
  '1.5',
  '1e9',
  '0x10',
  '--1',
  '-',
  ' 1',
  '253402300800',
  '-62135596801',
  '99999999999999999999999',
  1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  2 ** 53,
  253_402_300_800,
  -62_135_596_801,
]

for (const [input, instant] of accepted) {
  void test(`parseInstant accepts ${JSON.stringify(input)}`, () => {
    assert.equal(parseInstant(input), instant)
  })
}

for (const input of rejected) {
  void test(`parseInstant rejects ${typeof input === 'number' ? String(input) : JSON.stringify(input)}`, () => {
    assert.equal(parseInstant(input), null)
  })
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

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

// Reference built from Date's own calendar (setUTCFullYear avoids the 0-99 quirk of Date.UTC).
function reference(y: number, mo: number, d: number, h: number, mi: number, s: number): Date {
  const date = new Date(0)
  date.setUTCFullYear(y, mo - 1, d)
  date.setUTCHours(h, mi, s, 0)
  return date
}

test('parseInstant agrees with Date on random calendar days and times', () => {
  const random = rng(2024)
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1))
  for (let i = 0; i < 20_000; i++) {
    const [y, mo, d] = [int(1, 9999), int(1, 12), int(1, 31)]
    const [h, mi, s] = [int(0, 23), int(0, 59), int(0, 59)]
    const offsetMinutes = int(-23 * 60 - 59, 23 * 60 + 59)
    const local = reference(y, mo, d, h, mi, s)
    // Date rolls an impossible day into the next month; we must reject it instead.
    const realDay = local.getUTCMonth() === mo - 1 && local.getUTCDate() === d
    const day = `${pad(y, 4)}-${pad(mo)}-${pad(d)}`
    const abs = Math.abs(offsetMinutes)
    const offset = `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
    const stamp = `${day}T${pad(h)}:${pad(mi)}:${pad(s)}.${int(0, 999)}${offset}`

    const utc = new Date(local.getTime() - offsetMinutes * 60_000)
    const inRange = utc.getUTCFullYear() >= 1 && utc.getUTCFullYear() <= 9999
    const expected = realDay && inRange ? `${utc.toISOString().slice(0, 19)}Z` : null
    assert.equal(parseInstant(stamp), expected, stamp)
    assert.equal(
      parseInstant(day),
      realDay ? `${reference(y, mo, d, 0, 0, 0).toISOString().slice(0, 19)}Z` : null,
      day,
    )
  }
})

test('parseInstant: unix seconds as number and string agree', () => {
  const random = rng(99)
  for (let i = 0; i < 5000; i++) {
    const seconds = Math.floor(-62_135_596_800 + random() * (253_402_300_799 + 62_135_596_800))
    const expected = `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`
    assert.equal(parseInstant(seconds), expected)
    assert.equal(parseInstant(String(seconds)), expected)
  }
})

// [date, formatted]
const formats: [Date, string][] = [
  [new Date(Date.UTC(2024, 0, 15, 10, 20, 30, 999)), '2024-01-15T10:20:30Z'],
  [new Date(0), '1970-01-01T00:00:00Z'],
  [new Date(-1), '1969-12-31T23:59:59Z'],
  [new Date('0001-01-01T00:00:00.000Z'), '0001-01-01T00:00:00Z'],
  [new Date('9999-12-31T23:59:59.999Z'), '9999-12-31T23:59:59Z'],
]

for (const [date, text] of formats) {
  void test(`formatInstant(${date.toISOString()})`, () => {
    assert.equal(formatInstant(date), text)
  })
}

for (const date of [
  new Date(Number.NaN),
  new Date('0000-12-31T23:59:59.999Z'),
  new Date('+010000-01-01T00:00:00.000Z'),
]) {
  void test(`formatInstant throws on ${String(date.getTime())} ms`, () => {
    assert.throws(() => formatInstant(date), RangeError)
  })
}

// --- the calendar (shared with sources/csv/date-layout.ts) ---

test('isCalendarDay knows month lengths and leap years', () => {
  const days: [number, number, number, boolean][] = [
    [2024, 2, 29, true],
    [2023, 2, 29, false],
    [2000, 2, 29, true],
    [1900, 2, 29, false],
    [0, 2, 29, true],
    [2024, 4, 30, true],
    [2024, 4, 31, false],
    [2024, 12, 31, true],
    [2024, 1, 0, false],
    [2024, 0, 1, false],
    [2024, 13, 1, false],
  ]
  for (const [year, month, day, real] of days) {
    assert.equal(isCalendarDay(year, month, day), real, `${year}-${month}-${day}`)
  }
})

test('civilToInstant applies the offset and checks day, time and range', () => {
  const at = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0) => ({
    year,
    month,
    day,
    hour,
    minute,
    second,
  })
  assert.equal(civilToInstant(at(2024, 2, 29, 23, 59, 59)), '2024-02-29T23:59:59Z')
  assert.equal(civilToInstant(at(2024, 1, 15, 10, 20, 30), 2 * 3600), '2024-01-15T08:20:30Z')
  assert.equal(civilToInstant(at(2024, 12, 31, 23, 30), -3600), '2025-01-01T00:30:00Z')
  assert.equal(civilToInstant(at(0, 12, 31, 23, 30), -1800), '0001-01-01T00:00:00Z')
  assert.equal(civilToInstant(at(0, 12, 31, 23, 30)), null)
  assert.equal(civilToInstant(at(9999, 12, 31, 23, 59, 59), -1), null)
  assert.equal(civilToInstant(at(2023, 2, 29)), null)
  assert.equal(civilToInstant(at(2024, 1, 1, 24)), null)
  assert.equal(civilToInstant(at(2024, 1, 1, 0, 60)), null)
  assert.equal(civilToInstant(at(2024, 1, 1, 0, 0, 60)), null)
})

test('monthDayOfYearDay counts through leap and common years', () => {
  assert.deepEqual(monthDayOfYearDay(2024, 1), { month: 1, day: 1 })
  assert.deepEqual(monthDayOfYearDay(2024, 60), { month: 2, day: 29 })
  assert.deepEqual(monthDayOfYearDay(2023, 60), { month: 3, day: 1 })
  assert.deepEqual(monthDayOfYearDay(2024, 366), { month: 12, day: 31 })
  assert.equal(monthDayOfYearDay(2023, 366), null)
})

test('isoNow formats the clock', () => {
  const clock: Clock = { now: () => new Date(Date.UTC(2024, 5, 1, 12, 0, 0, 500)) }
  assert.equal(isoNow(clock), '2024-06-01T12:00:00Z')
})

test('systemClock reads the real time', () => {
  const before = Date.now()
  const now = systemClock.now().getTime()
  assert.ok(now >= before && now <= Date.now())
  assert.match(isoNow(systemClock), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
})

// Properties of the date parser (time.ts): each of the three input forms (a day, an
// RFC 3339 timestamp, unix seconds) against an independent computation with the
// platform's Date, which time.ts does not use for the calendar.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { holds } from '../../test/helpers/property.js'
import {
  civilToInstant,
  isCalendarDay,
  monthDayOfYearDay,
  parseInstant,
  type CivilTime,
} from './time.js'

const MIN_SECONDS = -62_135_596_800 // 0001-01-01T00:00:00Z
const MAX_SECONDS = 253_402_300_799 // 9999-12-31T23:59:59Z
const FIXED_WIDTH = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/

const pad = (value: number, width = 2) => String(value).padStart(width, '0')

/** Fixed-width UTC of an epoch millisecond, or null outside years 0001-9999. */
function instantOf(ms: number): string | null {
  if (!Number.isFinite(ms)) return null
  const iso = new Date(ms).toISOString()
  // Outside years 0000-9999 toISOString writes a six-digit signed year.
  if (!/^\d{4}-/.test(iso) || iso.startsWith('0000-')) return null
  return `${iso.slice(0, 19)}Z`
}

/** The epoch millisecond of a wall-clock reading in UTC, or null when it names no real day. */
function civilMs(c: CivilTime): number | null {
  if (c.month < 1 || c.month > 12 || c.day < 1) return null
  if (c.hour > 23 || c.minute > 59 || c.second > 59) return null
  const date = new Date(0)
  // setUTCFullYear, unlike Date.UTC, leaves years 0-99 alone; a day past the month's end rolls over.
  date.setUTCFullYear(c.year, c.month - 1, c.day)
  if (date.getUTCMonth() !== c.month - 1 || date.getUTCDate() !== c.day) return null
  date.setUTCHours(c.hour, c.minute, c.second, 0)
  return date.getTime()
}

function expected(c: CivilTime, offsetSeconds = 0): string | null {
  const ms = civilMs(c)
  return ms === null ? null : instantOf(ms - offsetSeconds * 1000)
}

// Mostly real readings, with out-of-range fields now and then.
const civil: fc.Arbitrary<CivilTime> = fc.record({
  year: fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 1, 1900, 2000, 9999)),
  month: fc.oneof(
    { weight: 9, arbitrary: fc.integer({ min: 1, max: 12 }) },
    fc.constantFrom(0, 13),
  ),
  day: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 1, max: 31 }) }, fc.constantFrom(0, 32)),
  hour: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 23 }) }, fc.constant(24)),
  minute: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 59 }) }, fc.constant(60)),
  second: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 59 }) }, fc.constant(60)),
})

const dayText = (c: CivilTime) => `${pad(c.year, 4)}-${pad(c.month)}-${pad(c.day)}`
const timeText = (c: CivilTime) => `${pad(c.hour)}:${pad(c.minute)}:${pad(c.second)}`

test('YYYY-MM-DD is midnight UTC of that day, null for a day that does not exist', () => {
  holds(
    fc.property(civil, (c) => {
      const midnight = { ...c, hour: 0, minute: 0, second: 0 }
      assert.equal(parseInstant(dayText(c)), expected(midnight))
    }),
  )
})

test('an RFC 3339 timestamp is its wall time minus its offset, fraction truncated', () => {
  const zone = fc.oneof(
    fc.constantFrom('Z', 'z'),
    fc.record({
      sign: fc.constantFrom('+', '-'),
      hours: fc.integer({ min: 0, max: 25 }),
      minutes: fc.integer({ min: 0, max: 61 }),
    }),
  )
  holds(
    fc.property(
      civil,
      fc.constantFrom('T', 't', ' '),
      fc.option(fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 12 })),
      zone,
      (c, separator, fraction, z) => {
        const zoneText = typeof z === 'string' ? z : `${z.sign}${pad(z.hours)}:${pad(z.minutes)}`
        const text = `${dayText(c)}${separator}${timeText(c)}${fraction === null ? '' : `.${fraction}`}${zoneText}`
        let want: string | null
        if (typeof z === 'string') want = expected(c)
        else if (z.hours > 23 || z.minutes > 59) want = null
        else want = expected(c, (z.sign === '-' ? -1 : 1) * (z.hours * 3600 + z.minutes * 60))
        assert.equal(parseInstant(text), want, text)
      },
    ),
  )
})

test('unix seconds, as a number or a string of digits, are that instant within years 0001-9999', () => {
  const seconds = fc.oneof(
    fc.integer({ min: MIN_SECONDS, max: MAX_SECONDS }),
    fc.integer({ min: MIN_SECONDS - 86_400, max: MIN_SECONDS + 86_400 }),
    fc.integer({ min: MAX_SECONDS - 86_400, max: MAX_SECONDS + 86_400 }),
    fc.integer({ min: -1e6, max: 1e6 }),
    fc.maxSafeInteger(),
  )
  holds(
    fc.property(seconds, fc.nat({ max: 3 }), (s, zeros) => {
      const want = s >= MIN_SECONDS && s <= MAX_SECONDS ? instantOf(s * 1000) : null
      assert.equal(parseInstant(s), want)
      const digits = `${'0'.repeat(zeros)}${Math.abs(s)}`
      assert.equal(parseInstant(s < 0 ? `-${digits}` : digits), want, digits)
    }),
  )
})

test('every form of one instant parses to the same instant', () => {
  holds(
    fc.property(
      fc.integer({ min: MIN_SECONDS, max: MAX_SECONDS }),
      fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
      fc.boolean(),
      (s, offsetMinutes, midnight) => {
        const seconds = midnight ? s - (((s % 86_400) + 86_400) % 86_400) : s
        const want = instantOf(seconds * 1000)
        assert.ok(want !== null)
        assert.equal(parseInstant(seconds), want)
        assert.equal(parseInstant(String(seconds)), want)
        // The same instant as wall time `offsetMinutes` east of UTC.
        const wall = new Date((seconds + offsetMinutes * 60) * 1000).toISOString()
        fc.pre(/^\d{4}-/.test(wall))
        const abs = Math.abs(offsetMinutes)
        const zone = `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
        assert.equal(parseInstant(`${wall.slice(0, 19)}${zone}`), want)
        assert.equal(parseInstant(want), want)
        if (midnight) assert.equal(parseInstant(want.slice(0, 10)), want)
      },
    ),
  )
})

test('any text parses to null or a fixed-width instant that parses to itself, and never throws', () => {
  const nearMiss = fc.string({ unit: fc.constantFrom(...'0123456789-:+TZtz .'), maxLength: 30 })
  holds(
    fc.property(fc.oneof(nearMiss, fc.string({ unit: 'binary', maxLength: 40 })), (text) => {
      const result = parseInstant(text)
      if (result === null) return
      assert.match(result, FIXED_WIDTH)
      assert.equal(parseInstant(result), result)
    }),
  )
})

test('isCalendarDay, civilToInstant and monthDayOfYearDay agree with the platform calendar', () => {
  holds(
    fc.property(
      civil,
      fc.integer({ min: -1440, max: 1440 }),
      fc.integer({ min: 1, max: 367 }),
      (c, offsetMinutes, yearDay) => {
        assert.equal(
          isCalendarDay(c.year, c.month, c.day),
          civilMs({ ...c, hour: 0, minute: 0, second: 0 }) !== null,
        )
        assert.equal(civilToInstant(c, offsetMinutes * 60), expected(c, offsetMinutes * 60))
        const date = new Date(0)
        date.setUTCFullYear(c.year, 0, yearDay)
        const inYear = date.getUTCFullYear() === c.year
        assert.deepEqual(
          monthDayOfYearDay(c.year, yearDay),
          inYear ? { month: date.getUTCMonth() + 1, day: date.getUTCDate() } : null,
        )
      },
    ),
  )
})

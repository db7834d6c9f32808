// The one parser for the date forms the API accepts. Every instant is stored as
// fixed-width UTC text (YYYY-MM-DDTHH:MM:SSZ) so text order is time order.
import { daysInMonth, formatInstant, isCalendarDay } from '../clock.js'

// Fixed width needs a four-digit year: 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z.
const MIN_SECONDS = -62_135_596_800
const MAX_SECONDS = 253_402_300_799

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/
// RFC 3339 date-time; seconds are required, the fraction is optional but never empty.
const TIMESTAMP_RE =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/
const UNIX_RE = /^-?\d+$/

// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's
// days_from_civil). Done by hand because Date.UTC maps years 0-99 to 1900-1999.
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yearOfEra = y - era * 400
  const monthFromMarch = (month + 9) % 12
  const dayOfYear = Math.floor((153 * monthFromMarch + 2) / 5) + day - 1
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  return era * 146_097 + dayOfEra - 719_468
}

function fromUnixSeconds(seconds: number): string | null {
  if (!Number.isSafeInteger(seconds) || seconds < MIN_SECONDS || seconds > MAX_SECONDS) return null
  return formatInstant(new Date(seconds * 1000))
}

/**
 * Any accepted date form to fixed-width UTC (YYYY-MM-DDTHH:MM:SSZ), or null:
 *  - YYYY-MM-DD: midnight UTC;
 *  - RFC 3339 YYYY-MM-DDTHH:MM:SS(.fraction)?(Z|±HH:MM), 'T' also 't' or ' ',
 *    'z' allowed; converted to UTC, fraction truncated; no leap second (:60);
 *  - unix seconds: a safe-integer number, or a string of digits with an
 *    optional leading '-' (so "20240115" is seconds, not a date).
 * The result must fall in years 0001-9999.
 */
export function parseInstant(input: string | number): string | null {
  if (typeof input === 'number') return fromUnixSeconds(input)
  if (typeof input !== 'string') return null

  if (UNIX_RE.test(input)) {
    const negative = input.startsWith('-')
    const digits = (negative ? input.slice(1) : input).replace(/^0+/, '')
    // Anything past 12 digits is out of range; checking length first keeps Number exact.
    if (digits.length > 12) return null
    const seconds = Number(digits === '' ? '0' : digits)
    return fromUnixSeconds(negative ? -seconds : seconds)
  }

  const date = DATE_RE.exec(input)
  if (date) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])]
    return civilToInstant({ year, month, day, hour: 0, minute: 0, second: 0 })
  }

  const ts = TIMESTAMP_RE.exec(input)
  if (!ts) return null
  let offset = 0
  if (ts[7] !== undefined) {
    const offsetHour = Number(ts[8])
    const offsetMinute = Number(ts[9])
    if (offsetHour > 23 || offsetMinute > 59) return null
    offset = (ts[7] === '-' ? -1 : 1) * (offsetHour * 3600 + offsetMinute * 60)
  }
  const civil = {
    year: Number(ts[1]),
    month: Number(ts[2]),
    day: Number(ts[3]),
    hour: Number(ts[4]),
    minute: Number(ts[5]),
    second: Number(ts[6]),
  }
  return civilToInstant(civil, offset)
}

// The calendar, shared with the parsers of other date forms (sources/csv/date-layout.ts).

/** A wall-clock reading: a day of the proleptic Gregorian calendar and a time of day. */
export interface CivilTime {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
}

export { isCalendarDay }

/**
 * A wall-clock reading `offsetSeconds` east of UTC as fixed-width UTC, or null
 * when it names no real day or time (no leap second) or lands outside years
 * 0001-9999. Year 0 is a valid input: "0000-12-31T23:30:00-00:30" is 0001.
 */
export function civilToInstant(civil: CivilTime, offsetSeconds = 0): string | null {
  const { year, month, day, hour, minute, second } = civil
  if (!isCalendarDay(year, month, day) || hour > 23 || minute > 59 || second > 59) return null
  // Local wall time minus its offset is UTC.
  const days = daysFromCivil(year, month, day)
  return fromUnixSeconds(days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds)
}

/** Month and day of the `yearDay`-th day (1-based) of `year`; null past the year's end. */
export function monthDayOfYearDay(
  year: number,
  yearDay: number,
): { month: number; day: number } | null {
  let rest = yearDay
  for (let month = 1; month <= 12; month++) {
    const days = daysInMonth(year, month)
    if (rest <= days) return { month, day: rest }
    rest -= days
  }
  return null
}

/**
 * The stored instant that starts the day after the one `instant` falls on; null
 * after 9999-12-31, whose next day no stored date reaches (nor can be written).
 */
export function nextDayStart(instant: string): string | null {
  const next = Date.parse(`${instant.slice(0, 10)}T00:00:00Z`) + 86_400_000
  return next / 1000 > MAX_SECONDS ? null : formatInstant(new Date(next))
}

// Dates of CSV rows. A folder's mapping.date_format is a layout in Go's
// reference-date style: the reference time Mon Jan 2 15:04:05 MST 2006 written
// the way the file writes its dates ("2006-01-02", "01/02/2006", "Jan 2, 2006").
// The tokens and their parsing rules follow Go's time.Parse (package time,
// format.go), so a layout means here what it means to the Go tools people know.
// Without a layout, COMMON_LAYOUTS are tried, month-first for slash or dash dates.
import { civilToInstant, isCalendarDay, monthDayOfYearDay } from '../../ledger/time.js'

type Token =
  | 'longMonth' // January
  | 'month' // Jan
  | 'numMonth' // 1
  | 'zeroMonth' // 01
  | 'longWeekDay' // Monday
  | 'weekDay' // Mon
  | 'day' // 2
  | 'underDay' // _2
  | 'zeroDay' // 02
  | 'underYearDay' // __2
  | 'zeroYearDay' // 002
  | 'hour' // 15
  | 'hour12' // 3
  | 'zeroHour12' // 03
  | 'minute' // 4
  | 'zeroMinute' // 04
  | 'second' // 5
  | 'zeroSecond' // 05
  | 'longYear' // 2006
  | 'year' // 06
  | 'PM' // PM
  | 'pm' // pm
  | 'tzName' // MST
  | 'isoTZ' // Z0700
  | 'isoSecondsTZ' // Z070000
  | 'isoShortTZ' // Z07
  | 'isoColonTZ' // Z07:00
  | 'isoColonSecondsTZ' // Z07:00:00
  | 'numTZ' // -0700
  | 'numSecondsTZ' // -070000
  | 'numShortTZ' // -07
  | 'numColonTZ' // -07:00
  | 'numColonSecondsTZ' // -07:00:00
  | 'frac0' // .000 (exactly n digits)
  | 'frac9' // .999 (any digits)

type Chunk = { literal: string } | { token: Token; digits?: number }

const ZERO_TOKENS: Token[] = [
  'zeroMonth',
  'zeroDay',
  'zeroHour12',
  'zeroMinute',
  'zeroSecond',
  'year',
]
// Longest first: Go tries these in this order.
const NUM_TZ: Array<[string, Token]> = [
  ['-070000', 'numSecondsTZ'],
  ['-07:00:00', 'numColonSecondsTZ'],
  ['-0700', 'numTZ'],
  ['-07:00', 'numColonTZ'],
  ['-07', 'numShortTZ'],
]
const ISO_TZ: Array<[string, Token]> = [
  ['Z070000', 'isoSecondsTZ'],
  ['Z07:00:00', 'isoColonSecondsTZ'],
  ['Z0700', 'isoTZ'],
  ['Z07:00', 'isoColonTZ'],
  ['Z07', 'isoShortTZ'],
]

const isLower = (c: string | undefined) => c !== undefined && c >= 'a' && c <= 'z'
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9'

/** The token starting at `layout[i]`, with its length, or null (a literal character). */
function tokenAt(
  layout: string,
  i: number,
): { token: Token; length: number; digits?: number } | null {
  const rest = layout.slice(i)
  switch (layout[i]) {
    case 'J':
      if (rest.startsWith('January')) return { token: 'longMonth', length: 7 }
      if (rest.startsWith('Jan') && !isLower(rest[3])) return { token: 'month', length: 3 }
      return null
    case 'M':
      if (rest.startsWith('Monday')) return { token: 'longWeekDay', length: 6 }
      if (rest.startsWith('Mon') && !isLower(rest[3])) return { token: 'weekDay', length: 3 }
      if (rest.startsWith('MST')) return { token: 'tzName', length: 3 }
      return null
    case '0': {
      const next = rest[1]
      if (next !== undefined && next >= '1' && next <= '6') {
        return { token: ZERO_TOKENS[Number(next) - 1]!, length: 2 }
      }
      if (rest.startsWith('002')) return { token: 'zeroYearDay', length: 3 }
      return null
    }
    case '1':
      return rest[1] === '5' ? { token: 'hour', length: 2 } : { token: 'numMonth', length: 1 }
    case '2':
      return rest.startsWith('2006')
        ? { token: 'longYear', length: 4 }
        : { token: 'day', length: 1 }
    case '_':
      // "_2006" is a literal '_' followed by the year.
      if (rest[1] === '2' && !rest.startsWith('_2006')) return { token: 'underDay', length: 2 }
      if (rest.startsWith('__2')) return { token: 'underYearDay', length: 3 }
      return null
    case '3':
      return { token: 'hour12', length: 1 }
    case '4':
      return { token: 'minute', length: 1 }
    case '5':
      return { token: 'second', length: 1 }
    case 'P':
      return rest[1] === 'M' ? { token: 'PM', length: 2 } : null
    case 'p':
      return rest[1] === 'm' ? { token: 'pm', length: 2 } : null
    case '-':
      for (const [text, token] of NUM_TZ) {
        if (rest.startsWith(text)) return { token, length: text.length }
      }
      return null
    case 'Z':
      for (const [text, token] of ISO_TZ) {
        if (rest.startsWith(text)) return { token, length: text.length }
      }
      return null
    case '.':
    case ',': {
      const digit = rest[1]
      if (digit !== '0' && digit !== '9') return null
      let j = 1
      while (rest[j] === digit) j++
      // Only a run of one repeated digit not followed by another digit is a fraction.
      if (isDigit(rest[j])) return null
      return { token: digit === '0' ? 'frac0' : 'frac9', length: j, digits: j - 1 }
    }
    default:
      return null
  }
}

export function compileLayout(layout: string): Chunk[] {
  const chunks: Chunk[] = []
  let literal = ''
  for (let i = 0; i < layout.length;) {
    const found = tokenAt(layout, i)
    if (!found) {
      literal += layout[i]
      i++
      continue
    }
    if (literal !== '') chunks.push({ literal })
    literal = ''
    chunks.push(
      found.digits === undefined
        ? { token: found.token }
        : { token: found.token, digits: found.digits },
    )
    i += found.length
  }
  if (literal !== '') chunks.push({ literal })
  return chunks
}

/** Whether a layout names the year; without one it cannot give a date. */
export function layoutHasYear(layout: string): boolean {
  return compileLayout(layout).some(
    (c) => 'token' in c && ['longYear', 'year', 'zeroYearDay', 'underYearDay'].includes(c.token),
  )
}

const LONG_MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
]
const LONG_DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']

class Cursor {
  constructor(public rest: string) {}

  /** Go's getnum: one or two digits; exactly two when `fixed`. */
  num(fixed: boolean): number | null {
    if (!isDigit(this.rest[0])) return null
    if (!isDigit(this.rest[1])) {
      if (fixed) return null
      return this.take(1)
    }
    return this.take(2)
  }

  /** Go's getnum3: one to three digits; exactly three when `fixed`. */
  num3(fixed: boolean): number | null {
    let n = 0
    while (n < 3 && isDigit(this.rest[n])) n++
    if (n === 0 || (fixed && n !== 3)) return null
    return this.take(n)
  }

  digits(count: number): number | null {
    for (let i = 0; i < count; i++) if (!isDigit(this.rest[i])) return null
    return this.take(count)
  }

  take(count: number): number {
    const value = Number(this.rest.slice(0, count))
    this.rest = this.rest.slice(count)
    return value
  }

  /** Case-insensitive match of one name of the list; its index. */
  name(names: readonly string[], length?: number): number | null {
    const lower = this.rest.toLowerCase()
    for (const [index, full] of names.entries()) {
      const name = length ? full.slice(0, length) : full
      if (lower.startsWith(name)) {
        this.rest = this.rest.slice(name.length)
        return index
      }
    }
    return null
  }

  /** Go's skip: a literal, where a run of spaces matches any run of spaces. */
  literal(text: string): boolean {
    let prefix = text
    while (prefix.length > 0) {
      if (prefix[0] === ' ') {
        if (this.rest.length > 0 && this.rest[0] !== ' ') return false
        prefix = prefix.replace(/^ +/, '')
        this.rest = this.rest.replace(/^ +/, '')
        continue
      }
      if (this.rest[0] !== prefix[0]) return false
      prefix = prefix.slice(1)
      this.rest = this.rest.slice(1)
    }
    return true
  }
}

/** Seconds east of UTC, for the numeric and ISO 8601 zone tokens; null when malformed. */
function parseOffset(cur: Cursor, token: Token): number | null {
  if (token.startsWith('iso') && cur.rest[0] === 'Z') {
    cur.rest = cur.rest.slice(1)
    return 0
  }
  const sign = cur.rest[0]
  if (sign !== '+' && sign !== '-') return null
  cur.rest = cur.rest.slice(1)
  const colon = token.includes('Colon')
  const withSeconds = token.includes('Seconds')
  const short = token.includes('Short')
  const hours = cur.digits(2)
  if (hours === null) return null
  let minutes = 0
  let seconds = 0
  if (!short) {
    if (colon && !cur.literal(':')) return null
    const m = cur.digits(2)
    if (m === null) return null
    minutes = m
    if (withSeconds) {
      if (colon && !cur.literal(':')) return null
      const s = cur.digits(2)
      if (s === null) return null
      seconds = s
    }
  }
  if (hours > 23 || minutes > 59 || seconds > 59) return null
  const total = hours * 3600 + minutes * 60 + seconds
  return sign === '-' ? -total : total
}

export type DateParser = (text: string) => string | null

/**
 * A parser for one layout: the cell's text to fixed-width UTC (ledger/time.ts), or
 * null when the text does not match. A time without a zone is taken as UTC; a
 * layout without a time gives midnight UTC.
 */
export function layoutParser(layout: string): DateParser {
  const chunks = compileLayout(layout)
  return (text) => parseWith(chunks, text.trim())
}

function parseWith(chunks: readonly Chunk[], text: string): string | null {
  const cur = new Cursor(text)
  let year: number | null = null
  let month: number | null = null
  let day: number | null = null
  let yearDay: number | null = null
  let hour = 0
  let minute = 0
  let second = 0
  let pm: boolean | null = null
  let offset = 0
  for (const [index, chunk] of chunks.entries()) {
    if ('literal' in chunk) {
      if (!cur.literal(chunk.literal)) return null
      continue
    }
    let value: number | null
    switch (chunk.token) {
      case 'longYear':
        value = cur.digits(4)
        if (value === null) return null
        year = value
        break
      case 'year':
        value = cur.digits(2)
        if (value === null) return null
        year = value >= 69 ? 1900 + value : 2000 + value
        break
      case 'longMonth':
      case 'month':
        value = cur.name(LONG_MONTHS, chunk.token === 'month' ? 3 : undefined)
        if (value === null) return null
        month = value + 1
        break
      case 'numMonth':
      case 'zeroMonth':
        value = cur.num(chunk.token === 'zeroMonth')
        if (value === null || value < 1 || value > 12) return null
        month = value
        break
      case 'longWeekDay':
      case 'weekDay':
        // Parsed and checked for form only, as Go does.
        if (cur.name(LONG_DAYS, chunk.token === 'weekDay' ? 3 : undefined) === null) return null
        break
      case 'day':
      case 'underDay':
      case 'zeroDay':
        if (chunk.token === 'underDay' && cur.rest[0] === ' ') cur.rest = cur.rest.slice(1)
        value = cur.num(chunk.token === 'zeroDay')
        if (value === null) return null
        day = value
        break
      case 'underYearDay':
      case 'zeroYearDay':
        if (chunk.token === 'underYearDay') cur.rest = cur.rest.replace(/^ {1,2}/, '')
        value = cur.num3(chunk.token === 'zeroYearDay')
        if (value === null || value < 1 || value > 366) return null
        yearDay = value
        break
      case 'hour':
        value = cur.num(false)
        if (value === null || value > 23) return null
        hour = value
        break
      case 'hour12':
      case 'zeroHour12':
        value = cur.num(chunk.token === 'zeroHour12')
        if (value === null || value > 12) return null
        hour = value
        break
      case 'minute':
      case 'zeroMinute':
        value = cur.num(chunk.token === 'zeroMinute')
        if (value === null || value > 59) return null
        minute = value
        break
      case 'second':
      case 'zeroSecond': {
        value = cur.num(chunk.token === 'zeroSecond')
        if (value === null || value > 59) return null
        second = value
        // Go accepts a fraction after the seconds even when the layout has none.
        const next = chunks[index + 1]
        const nextIsFraction =
          next !== undefined && 'token' in next && next.token.startsWith('frac')
        if (!nextIsFraction && /^[.,]\d/.test(cur.rest)) cur.rest = cur.rest.replace(/^[.,]\d+/, '')
        break
      }
      case 'frac0': {
        const match = /^[.,](\d+)/.exec(cur.rest)
        if (!match || match[1]!.length !== chunk.digits) return null
        cur.rest = cur.rest.slice(match[0].length)
        break
      }
      case 'frac9': {
        // Optional, any number of digits; the ledger keeps whole seconds.
        const match = /^[.,]\d+/.exec(cur.rest)
        if (match) cur.rest = cur.rest.slice(match[0].length)
        break
      }
      case 'PM':
      case 'pm': {
        const marker = cur.rest.slice(0, 2)
        const [am, pmText] = chunk.token === 'PM' ? ['AM', 'PM'] : ['am', 'pm']
        if (marker !== am && marker !== pmText) return null
        pm = marker === pmText
        cur.rest = cur.rest.slice(2)
        break
      }
      case 'tzName': {
        const match = /^[A-Z]{3,5}/.exec(cur.rest)
        if (!match) return null
        // Zone abbreviations are ambiguous (Go also gives unknown ones offset 0):
        // only UTC and GMT are known for sure.
        offset = 0
        cur.rest = cur.rest.slice(match[0].length)
        break
      }
      default: {
        const parsed = parseOffset(cur, chunk.token)
        if (parsed === null) return null
        offset = parsed
      }
    }
  }
  if (cur.rest !== '') return null
  if (year === null) return null
  if (pm === true && hour < 12) hour += 12
  if (pm === false && hour === 12) hour = 0
  if (yearDay !== null) {
    const fromYearDay = monthDayOfYearDay(year, yearDay)
    if (fromYearDay === null) return null
    if (
      (month !== null && month !== fromYearDay.month) ||
      (day !== null && day !== fromYearDay.day)
    ) {
      return null
    }
    month = fromYearDay.month
    day = fromYearDay.day
  }
  month ??= 1
  day ??= 1
  if (!isCalendarDay(year, month, day)) return null
  // Without an offset nothing carries over: write the text directly (the hot path).
  if (offset === 0) {
    if (year < 1) return null
    return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}Z`
  }
  return civilToInstant({ year, month, day, hour, minute, second }, offset)
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0')
}

/**
 * Tried in order when a folder sets no date_format. Slash and dash dates are
 * month-first (SPEC 1.3); dotted dates are day-first, as everywhere they are used.
 */
export const COMMON_LAYOUTS = [
  '2006-01-02',
  '2006-01-02T15:04:05Z07:00',
  '2006-01-02T15:04:05',
  '2006-01-02 15:04:05',
  '2006-01-02 15:04',
  '2006/1/2',
  '1/2/2006',
  '1/2/2006 15:04:05',
  '1/2/2006 15:04',
  '1/2/2006 3:04:05 PM',
  '1/2/2006 3:04 PM',
  '1/2/06',
  '1-2-2006',
  '1-2-06',
  '2.1.2006',
  '2.1.06',
  '20060102',
  'Jan 2, 2006',
  'January 2, 2006',
  'Jan 2 2006',
  'January 2 2006',
  '2 Jan 2006',
  '2 January 2006',
  '2-Jan-2006',
  '2-Jan-06',
  'Mon, 2 Jan 2006',
  'Mon Jan 2 2006',
] as const

const COMMON_PARSERS = COMMON_LAYOUTS.map(layoutParser)

/**
 * A parser that tries the common layouts. It remembers the last layout that
 * matched and tries it first, since a file writes all its dates alike.
 */
export function guessingParser(): DateParser {
  let last = 0
  return (text) => {
    const first = COMMON_PARSERS[last]!(text)
    if (first !== null) return first
    for (const [index, parse] of COMMON_PARSERS.entries()) {
      if (index === last) continue
      const parsed = parse(text)
      if (parsed !== null) {
        last = index
        return parsed
      }
    }
    return null
  }
}

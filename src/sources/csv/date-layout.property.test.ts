// Properties of CSV date layouts (date-layout.ts): a moment written in a layout, by
// a formatter of Go's reference-date style kept in this file, reads back as that
// moment, computed independently with the platform's Date. The layouts are the
// common ones and random ones built from every token.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { holds } from '../../../test/helpers/property.js'
import { COMMON_LAYOUTS, guessingParser, layoutParser } from './date-layout.js'

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']

// Longest first, as the formatter scans the layout greedily.
const TOKENS = [
  'January',
  'Monday',
  'Z07:00:00',
  'Z070000',
  '-07:00:00',
  '-070000',
  'Z07:00',
  '-07:00',
  'Z0700',
  '-0700',
  '2006',
  'Jan',
  'Mon',
  'MST',
  'Z07',
  '-07',
  '002',
  '__2',
  '_2',
  '01',
  '02',
  '03',
  '04',
  '05',
  '06',
  '15',
  'PM',
  'pm',
  '1',
  '2',
  '3',
  '4',
  '5',
]

/** A moment: a valid wall-clock reading (years 0000-9999), its zone offset and fraction digits. */
interface Moment {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
  offset: number
  fraction: string
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0')

function wallDate(m: Moment): Date {
  const date = new Date(0)
  date.setUTCFullYear(m.year, m.month - 1, m.day)
  date.setUTCHours(m.hour, m.minute, m.second, 0)
  return date
}

/** The fixed-width UTC the moment names, or null outside years 0001-9999. */
function expected(m: Moment): string | null {
  const iso = new Date(wallDate(m).getTime() - m.offset * 1000).toISOString()
  if (!/^\d{4}-/.test(iso) || iso.startsWith('0000-')) return null
  return `${iso.slice(0, 19)}Z`
}

/** A zone token without its 'Z' or '-': '07', '0700', '07:00', '070000' or '07:00:00'. */
const zoneKind = (token: string) => token.slice(1)

function zone(token: string, offset: number): string {
  if (token.startsWith('Z') && offset === 0) return 'Z'
  const abs = Math.abs(offset)
  const [h, m, s] = [pad(Math.floor(abs / 3600)), pad(Math.floor(abs / 60) % 60), pad(abs % 60)]
  const sign = offset < 0 ? '-' : '+'
  const written: Record<string, string> = {
    '07': `${sign}${h}`,
    '0700': `${sign}${h}${m}`,
    '07:00': `${sign}${h}:${m}`,
    '070000': `${sign}${h}${m}${s}`,
    '07:00:00': `${sign}${h}:${m}:${s}`,
  }
  return written[zoneKind(token)]!
}

/** The offset nearest `offset` that a zone token can write. */
function fitOffset(token: string, offset: number): number {
  const kind = zoneKind(token)
  if (kind === '07') return Math.trunc(offset / 3600) * 3600
  if (kind === '0700' || kind === '07:00') return Math.trunc(offset / 60) * 60
  return offset
}

/** Go's time.Format, for the tokens above and fractions (".000", ",999"). */
function format(layout: string, m: Moment): string {
  const wall = wallDate(m)
  const newYear = new Date(0)
  newYear.setUTCFullYear(m.year, 0, 1)
  const midnight = new Date(0)
  midnight.setUTCFullYear(m.year, m.month - 1, m.day)
  const yearDay = Math.round((midnight.getTime() - newYear.getTime()) / 86_400_000) + 1
  const hour12 = m.hour % 12 === 0 ? 12 : m.hour % 12
  let out = ''
  for (let i = 0; i < layout.length;) {
    const fraction = /^[.,](0+|9+)(?!\d)/.exec(layout.slice(i))
    if (fraction) {
      const width = fraction[1]!.length
      const digits = (m.fraction + '0'.repeat(width)).slice(0, width)
      // .999 drops trailing zeros, and the separator when nothing is left.
      const shown = fraction[1]![0] === '9' ? digits.replace(/0+$/, '') : digits
      out += shown === '' ? '' : `${layout[i]}${shown}`
      i += fraction[0].length
      continue
    }
    const token = TOKENS.find((t) => layout.startsWith(t, i))
    if (token === undefined) {
      out += layout[i]
      i++
      continue
    }
    i += token.length
    const replaced: Record<string, () => string> = {
      January: () => MONTHS[m.month - 1]!,
      Jan: () => MONTHS[m.month - 1]!.slice(0, 3),
      Monday: () => DAYS[wall.getUTCDay()]!,
      Mon: () => DAYS[wall.getUTCDay()]!.slice(0, 3),
      MST: () => 'UTC',
      '2006': () => pad(m.year, 4),
      '06': () => pad(m.year % 100),
      '01': () => pad(m.month),
      '1': () => String(m.month),
      '02': () => pad(m.day),
      '2': () => String(m.day),
      _2: () => String(m.day).padStart(2, ' '),
      '002': () => pad(yearDay, 3),
      __2: () => String(yearDay).padStart(3, ' '),
      '15': () => pad(m.hour),
      '03': () => pad(hour12),
      '3': () => String(hour12),
      '04': () => pad(m.minute),
      '4': () => String(m.minute),
      '05': () => pad(m.second),
      '5': () => String(m.second),
      PM: () => (m.hour >= 12 ? 'PM' : 'AM'),
      pm: () => (m.hour >= 12 ? 'pm' : 'am'),
    }
    out += replaced[token]?.() ?? zone(token, m.offset)
  }
  return out
}

const moment = (offset: fc.Arbitrary<number>): fc.Arbitrary<Moment> =>
  fc
    .record({
      year: fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 1969, max: 2068 })),
      month: fc.integer({ min: 1, max: 12 }),
      day: fc.integer({ min: 1, max: 31 }),
      hour: fc.integer({ min: 0, max: 23 }),
      minute: fc.integer({ min: 0, max: 59 }),
      second: fc.integer({ min: 0, max: 59 }),
      offset,
      fraction: fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 9 }),
    })
    .map((m) => {
      // The last day of a month that has fewer days than m.day.
      const last = new Date(0)
      last.setUTCFullYear(m.year, m.month, 0)
      return { ...m, day: Math.min(m.day, last.getUTCDate()) }
    })

/** A layout built from tokens, and how to fit a moment to what it can write. */
interface Layout {
  layout: string
  fit: (m: Moment) => Moment
}

const dateTokens = fc.record({
  year: fc.constantFrom('2006', '06'),
  month: fc.constantFrom('01', '1', 'Jan', 'January', null),
  day: fc.constantFrom('02', '2', '_2', null),
  yearDay: fc.constantFrom(null, null, '002', '__2'),
  weekday: fc.constantFrom(null, null, 'Mon', 'Monday'),
  separator: fc.constantFrom('/', '-', ' ', '.'),
  order: fc.nat({ max: 5 }),
})

const timeTokens = fc.option(
  fc.record({
    separator: fc.constantFrom('T', ' '),
    hour: fc.constantFrom('15', '03', '3'),
    marker: fc.constantFrom('PM', 'pm'),
    minute: fc.constantFrom('04', '4'),
    second: fc.constantFrom('05', '5', null),
    fraction: fc.constantFrom(null, '.000', ',000000', '.999', ',999999999'),
    zone: fc.constantFrom(
      null,
      'Z07:00',
      'Z0700',
      'Z07',
      'Z070000',
      'Z07:00:00',
      '-0700',
      '-07:00',
      '-07',
      '-070000',
      '-07:00:00',
      'MST',
    ),
    zoneSeparator: fc.constantFrom('', ' '),
  }),
)

const PERMUTATIONS = [
  [0, 1, 2],
  [0, 2, 1],
  [1, 0, 2],
  [1, 2, 0],
  [2, 0, 1],
  [2, 1, 0],
]

const randomLayout: fc.Arbitrary<Layout> = fc.tuple(dateTokens, timeTokens).map(([d, t]) => {
  const fields: string[] = [d.year, d.month, d.day].filter((f) => f !== null)
  const ordered = PERMUTATIONS[d.order]!.filter((i) => i < fields.length).map((i) => fields[i]!)
  if (d.yearDay !== null) ordered.push(d.yearDay)
  let layout = `${d.weekday === null ? '' : `${d.weekday}, `}${ordered.join(d.separator)}`
  if (t !== null) {
    layout += `${t.separator}${t.hour}:${t.minute}`
    if (t.second !== null) layout += `:${t.second}${t.fraction ?? ''}`
    if (t.hour !== '15') layout += ` ${t.marker}`
    if (t.zone !== null) layout += `${t.zone === 'MST' ? ' ' : t.zoneSeparator}${t.zone}`
  }
  const fit = (m: Moment): Moment => {
    const fitted = { ...m }
    if (d.year === '06') fitted.year = 1969 + ((((m.year - 1969) % 100) + 100) % 100)
    if (d.yearDay === null) {
      if (d.month === null) fitted.month = 1
      if (d.day === null) fitted.day = 1
    }
    if (t === null) Object.assign(fitted, { hour: 0, minute: 0, second: 0 })
    if (t?.second === null) fitted.second = 0
    if (t === null || t.zone === null || t.zone === 'MST') fitted.offset = 0
    else fitted.offset = fitOffset(t.zone, m.offset)
    return fitted
  }
  // A counterexample shows the layout, not the function's source.
  return { layout, fit, [fc.toStringMethod]: () => JSON.stringify(layout) }
})

const anyOffset = fc.integer({ min: -86_399, max: 86_399 })

test('a moment written in a random layout reads back as that moment', () => {
  holds(
    fc.property(
      randomLayout,
      moment(anyOffset),
      fc.constantFrom('', ' ', '  '),
      ({ layout, fit }, m, padding) => {
        const fitted = fit(m)
        const text = format(layout, fitted)
        assert.equal(
          layoutParser(layout)(`${padding}${text}${padding}`),
          expected(fitted),
          `${layout} ← ${JSON.stringify(text)}`,
        )
      },
    ),
  )
})

const commonLayout = fc.constantFrom(...COMMON_LAYOUTS)

// A moment a common layout can write: only '2006-01-02T15:04:05Z07:00' has a zone.
function fitCommon(layout: string, m: Moment): Moment {
  const fitted = { ...m }
  if (!layout.includes('2006')) fitted.year = 1969 + ((((m.year - 1969) % 100) + 100) % 100)
  if (!layout.includes('15') && !layout.includes('3')) {
    Object.assign(fitted, { hour: 0, minute: 0, second: 0 })
  }
  if (!layout.includes('05')) fitted.second = 0
  fitted.offset = layout.includes('Z07:00') ? fitOffset('Z07:00', m.offset) : 0
  return fitted
}

test('a moment written in a common layout reads back through that layout and through guessing', () => {
  holds(
    fc.property(
      commonLayout,
      moment(anyOffset),
      commonLayout,
      moment(anyOffset),
      (layout, m, before, earlier) => {
        const fitted = fitCommon(layout, m)
        const text = format(layout, fitted)
        const want = expected(fitted)
        assert.equal(layoutParser(layout)(text), want, `${layout} ← ${JSON.stringify(text)}`)
        assert.equal(guessingParser()(text), want, `guessing ← ${JSON.stringify(text)}`)
        // The layout a guessing parser matched last never changes what a date means.
        const primed = guessingParser()
        primed(format(before, fitCommon(before, earlier)))
        assert.equal(primed(text), want, `after ${before}: ${JSON.stringify(text)}`)
      },
    ),
  )
})

test('any text in any layout parses to null or a fixed-width instant, and never throws', () => {
  const layoutText = fc.oneof(
    randomLayout.map((l) => l.layout),
    commonLayout,
    fc.string({ unit: fc.constantFrom(...'0123456789-_.,:/ JanMonPMZpmST'), maxLength: 20 }),
  )
  const text = fc.oneof(
    fc.string({ unit: fc.constantFrom(...'0123456789-+:/., ZTAPMamJnuyMo'), maxLength: 30 }),
    fc.string({ maxLength: 30 }),
  )
  holds(
    fc.property(layoutText, text, (layout, input) => {
      for (const parse of [layoutParser(layout), guessingParser()]) {
        const result = parse(input)
        if (result !== null) assert.match(result, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
      }
    }),
  )
})

// The periods between the first and the last one the summary answered, gaps
// included (a month without transactions is a zero, not a missing bar), named
// as the service names them: 2024, 2024-05, 2024-W05.

export type Period = 'week' | 'month' | 'year'

export interface PeriodSlot {
  /** The service's name of the period (the summary's `period`). */
  name: string
  /** Its first day, YYYY-MM-DD (the summary's `start`). */
  start: string
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')
/** A year as the service writes it: four digits, 0001 to 9999. */
const year4 = (d: Date) => pad(d.getUTCFullYear(), 4)
const iso = (d: Date) => `${year4(d)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`
const parse = (day: string) => new Date(`${day.slice(0, 10)}T00:00:00Z`)

/** The ISO 8601 week of a day: its year is the year of that week's Thursday. */
function isoWeek(day: Date): string {
  const thursday = new Date(day)
  thursday.setUTCDate(day.getUTCDate() + 3 - ((day.getUTCDay() + 6) % 7))
  // Not Date.UTC(year, 0, 1): it reads the years 0 to 99 as 1900 to 1999.
  const first = parse(`${year4(thursday)}-01-01`).getTime()
  const week = Math.floor((thursday.getTime() - first) / 86_400_000 / 7) + 1
  return `${year4(thursday)}-W${pad(week)}`
}

/** The period a day falls in. */
export function periodOf(day: string, period: Period): PeriodSlot {
  const d = parse(day)
  if (period === 'year') return { name: year4(d), start: `${year4(d)}-01-01` }
  if (period === 'month') {
    const name = `${year4(d)}-${pad(d.getUTCMonth() + 1)}`
    return { name, start: `${name}-01` }
  }
  const monday = new Date(d)
  monday.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7))
  return { name: isoWeek(monday), start: iso(monday) }
}

function following(slot: PeriodSlot, period: Period): PeriodSlot {
  const d = parse(slot.start)
  if (period === 'year') d.setUTCFullYear(d.getUTCFullYear() + 1)
  else if (period === 'month') d.setUTCMonth(d.getUTCMonth() + 1)
  else d.setUTCDate(d.getUTCDate() + 7)
  return periodOf(iso(d), period)
}

/** Guards the page against drawing thousands of bars (e.g. weeks over decades). */
export const MAX_PERIODS = 520

/** Every period from the one holding `first` to the one holding `last`, both YYYY-MM-DD. */
export function periodsBetween(first: string, last: string, period: Period): PeriodSlot[] {
  const slots: PeriodSlot[] = []
  let slot = periodOf(first, period)
  const end = periodOf(last, period).start
  while (slot.start <= end && slots.length < MAX_PERIODS) {
    slots.push(slot)
    slot = following(slot, period)
  }
  return slots
}

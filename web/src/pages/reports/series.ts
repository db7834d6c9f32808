// From summary groups to the charts' series, exactly: every amount stays a
// decimal string, and every sum the page makes itself (an "Other" of the
// smaller label values, a row's total, a balance) is done by src/decimal.ts on
// BigInts, never on floats.
import {
  compareDecimal,
  isNegative,
  negateDecimal,
  subtractDecimal,
  sumDecimal,
} from '../../../../src/decimal.js'
import type { SummaryJson } from '../../../../src/schemas/summary.js'
import type { ChartSeries, ChartTotal } from '../../charts/series.js'
import { periodOf, periodsBetween, type Period, type PeriodSlot } from './periods.js'

export type Summary = SummaryJson
export type Group = Summary['groups'][number]

export interface ChartData {
  slots: PeriodSlot[]
  series: ChartSeries[]
  total?: ChartTotal
}

/** The currencies present, the one with the most transactions first. */
export function currenciesOf(groups: readonly Group[]): string[] {
  const counts = new Map<string, number>()
  for (const g of groups) counts.set(g.currency, (counts.get(g.currency) ?? 0) + g.count)
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([c]) => c)
}

function slotsOf(groups: readonly Group[], period: Period): PeriodSlot[] {
  if (groups.length === 0) return []
  const starts = groups.map((g) => g.start).sort()
  return periodsBetween(starts[0]!, starts.at(-1)!, period)
}

/** Income up, spending down, and the net, per period, in one currency. */
export function flowSeries(summary: Summary, currency: string, period: Period): ChartData {
  const groups = summary.groups.filter((g) => g.currency === currency)
  const slots = slotsOf(groups, period)
  const at = new Map(groups.map((g) => [g.start, g]))
  const pick = (field: 'inflow' | 'outflow' | 'sum') =>
    slots.map((s) => at.get(s.start)?.[field] ?? '0')
  return {
    slots,
    series: [
      { name: 'Income', color: 1, values: pick('inflow') },
      { name: 'Spending', color: 2, values: pick('outflow') },
    ],
    total: { label: 'Net', values: pick('sum') },
  }
}

export type Measure = 'spending' | 'income' | 'net'

export const MEASURES: readonly { value: Measure; label: string }[] = [
  { value: 'spending', label: 'Spending' },
  { value: 'income', label: 'Income' },
  { value: 'net', label: 'Net' },
]

/** Spending as a positive amount (the outflow negated), income, or the net. */
function measureOf(group: Group, measure: Measure): string {
  if (measure === 'spending') return negateDecimal(group.outflow)
  return measure === 'income' ? group.inflow : group.sum
}

const abs = (a: string) => (isNegative(a) ? negateDecimal(a) : a)

/** With more values than colours, the largest keep a colour and the rest are summed as one. */
export const TOP_VALUES = 7

/**
 * One series per label value (the largest TOP_VALUES by the size of their total
 * over the range, the others summed into one), in one currency.
 */
export function labelSeries(
  summary: Summary,
  currency: string,
  period: Period,
  key: string,
  measure: Measure,
): ChartData {
  const groups = summary.groups.filter((g) => g.currency === currency)
  const slots = slotsOf(groups, period)
  const index = new Map(slots.map((s, i) => [s.start, i]))
  const nameOf = (value: string | null) => value ?? `(no ${key})`

  const byValue = new Map<string, string[]>()
  for (const g of groups) {
    const name = nameOf(g.key)
    const values = byValue.get(name) ?? slots.map(() => '0')
    const i = index.get(g.start)
    if (i !== undefined) values[i] = sumDecimal([values[i]!, measureOf(g, measure)])
    byValue.set(name, values)
  }
  const ranked = [...byValue]
    .map(([name, values]) => ({ name, values, total: sumDecimal(values) }))
    // A value with nothing to show in this measure (only income, when showing spending) is left out.
    .filter((v) => v.values.some((x) => compareDecimal(x, '0') !== 0))
    .sort((a, b) => compareDecimal(abs(b.total), abs(a.total)) || a.name.localeCompare(b.name))
  const keep = ranked.length > TOP_VALUES + 1 ? ranked.slice(0, TOP_VALUES) : ranked
  const rest = ranked.slice(keep.length)
  const series: ChartSeries[] = keep.map((v, i) => ({
    name: v.name,
    color: i + 1,
    values: v.values,
  }))
  if (rest.length > 0) {
    series.push({
      name: `Other (${rest.length} values)`,
      color: 8,
      values: slots.map((_, i) => sumDecimal(rest.map((v) => v.values[i]!))),
    })
  }
  return {
    slots,
    series,
    total: {
      label: 'Total',
      values: slots.map((_, i) => sumDecimal(series.map((s) => s.values[i] ?? '0'))),
    },
  }
}

/**
 * An account's balance at the end of each period, derived from its current
 * balance: the balance after period P is today's balance less the sums of every
 * later period. `groups` must hold every transaction after the first period
 * shown (no query, no `until`); the periods run from `from` (or the first
 * transaction) to `to` (or today, or the last transaction if that is later).
 */
export function balanceSeries(
  groups: readonly Group[],
  balance: string,
  period: Period,
  range: { from: string; to: string; today: string },
): { slots: PeriodSlot[]; values: string[]; truncated: boolean } {
  const starts = groups.map((g) => g.start).sort()
  const first = range.from || starts[0] || range.today
  const last = range.to || [range.today, starts.at(-1) ?? range.today].sort().at(-1)!
  const wanted = periodsBetween(first, last, period)
  const lastStart = periodOf(last, period).start
  const truncated = wanted.at(-1)?.start !== lastStart
  // Walk back from the present: each period's own sum is undone to reach the one before.
  const end = wanted.at(-1)?.start ?? ''
  let later = sumDecimal(groups.filter((g) => g.start > end).map((g) => g.sum))
  const sums = new Map<string, string[]>()
  for (const g of groups) sums.set(g.start, [...(sums.get(g.start) ?? []), g.sum])
  const values: string[] = new Array<string>(wanted.length)
  for (let i = wanted.length - 1; i >= 0; i--) {
    values[i] = subtractDecimal(balance, later)
    later = sumDecimal([later, ...(sums.get(wanted[i]!.start) ?? [])])
  }
  return { slots: wanted, values, truncated }
}

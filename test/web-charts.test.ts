// The dashboard's chart geometry and the Reports page's exact series
// (web/src/charts, web/src/pages/reports): pure functions, tested without a browser.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { stackDiverging } from '../web/src/charts/bar.js'
import { extent, linePath } from '../web/src/charts/line.js'
import { bands, niceTicks, tickLabel } from '../web/src/charts/scale.js'
import { namePeriod } from '../src/search/summary.js'
import { periodOf, periodsBetween } from '../web/src/pages/reports/periods.js'
import {
  balanceSeries,
  flowSeries,
  labelSeries,
  type Group,
} from '../web/src/pages/reports/series.js'

const group = (start: string, key: string | null, sum: string, currency = 'USD'): Group => ({
  period: start.slice(0, 7),
  start,
  key,
  currency,
  count: 1,
  sum,
  inflow: sum.startsWith('-') ? '0' : sum,
  outflow: sum.startsWith('-') ? sum : '0',
})

test('ticks are round, cover the values and zero, and are written exactly', () => {
  const ticks = niceTicks(-130, 420, 5)
  assert.deepEqual(ticks.values, [-200, 0, 200, 400, 600])
  assert.deepEqual(ticks.domain, [-200, 600])
  const small = niceTicks(0, 0.3, 3)
  assert.deepEqual(
    small.values.map((v) => tickLabel(v, small.decimals)),
    ['0.0', '0.1', '0.2', '0.3'],
  )
  assert.equal(tickLabel(-1234567, 0), '−1,234,567')
  // Nothing to draw still gets an axis, its labels free of float noise.
  const none = niceTicks(0, 0)
  assert.deepEqual(
    none.values.map((v) => tickLabel(v, none.decimals)),
    ['0.0', '0.2', '0.4', '0.6', '0.8', '1.0'],
  )
  const b = bands(4, [0, 400], 0.5)
  assert.equal(b.step, 100)
  assert.equal(b.bar, 50)
  assert.equal(b.x(1), 125)
  assert.equal(b.center(3), 350)
})

test('stacks diverge from zero: positives up, negatives down', () => {
  const stack = stackDiverging([
    [10, -5],
    [-3, 7],
    [2, 0],
  ])
  assert.equal(stack.max, 12)
  assert.equal(stack.min, -5)
  assert.deepEqual(
    stack.segments.filter((s) => s.category === 0),
    [
      { series: 0, category: 0, from: 0, to: 10 },
      { series: 1, category: 0, from: 0, to: -3 },
      { series: 2, category: 0, from: 10, to: 12 },
    ],
  )
  assert.equal(linePath([[0, 1], null, [2, 3], [4, 5]]), 'M0.00,1.00M2.00,3.00L4.00,5.00')
  assert.deepEqual(extent([[null, 3, -2], [7]]), [-2, 7])
})

test('periods: ISO weeks across a year end, months and years, gaps filled', () => {
  assert.deepEqual(periodOf('2021-01-03', 'week'), { name: '2020-W53', start: '2020-12-28' })
  assert.deepEqual(periodOf('2021-01-04', 'week'), { name: '2021-W01', start: '2021-01-04' })
  assert.deepEqual(periodOf('2024-12-30', 'week'), { name: '2025-W01', start: '2024-12-30' })
  assert.deepEqual(
    periodsBetween('2023-11-15', '2024-02-01', 'month').map((p) => p.name),
    ['2023-11', '2023-12', '2024-01', '2024-02'],
  )
  assert.deepEqual(
    periodsBetween('2020-12-28', '2021-01-11', 'week').map((p) => p.name),
    ['2020-W53', '2021-W01', '2021-W02'],
  )
  assert.deepEqual(
    periodsBetween('2022-06-01', '2024-01-01', 'year').map((p) => p.start),
    ['2022-01-01', '2023-01-01', '2024-01-01'],
  )
})

test('periods of the years 1 to 99 and of 9999 are named as the service names them', () => {
  // Date.UTC reads the years 0 to 99 as 1900 to 1999: 0001-01-01 was "0001-W-99136".
  assert.deepEqual(periodOf('0001-01-01', 'week'), { name: '0001-W01', start: '0001-01-01' })
  assert.deepEqual(periodOf('0050-06-15', 'year'), { name: '0050', start: '0050-01-01' })
  assert.deepEqual(periodOf('0099-12-31', 'month'), { name: '0099-12', start: '0099-12-01' })
  // The page and the service agree day by day, and both repeat every 400 years
  // (146,097 days: whole weeks), so the early years read as their 2001-2099 twins.
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  const years400 = 146_097 * 86_400_000
  for (
    let ms = Date.parse('0001-01-01T00:00:00Z');
    ms < Date.parse('0100-01-10T00:00:00Z');
    ms += 5 * 86_400_000
  ) {
    for (const period of ['week', 'month', 'year'] as const) {
      const early = periodOf(day(ms), period)
      // The service names a period from the date's prefix of that length.
      const prefix = day(ms).slice(0, { year: 4, month: 7, week: 10 }[period])
      assert.deepEqual(early, namePeriod(period, prefix), `${day(ms)} ${period}`)
      const twin = periodOf(day(ms + 5 * years400), period)
      const shifted = (text: string) =>
        `${String(Number(text.slice(0, 4)) + 2000).padStart(4, '0')}${text.slice(4)}`
      assert.deepEqual({ name: shifted(early.name), start: shifted(early.start) }, twin, day(ms))
    }
  }
  assert.deepEqual(namePeriod('week', '9999-12-31'), { name: '9999-W52', start: '9999-12-27' })
  assert.deepEqual(periodOf('9999-12-31', 'week'), namePeriod('week', '9999-12-31'))
})

test('series are exact: flows per currency, the smaller label values summed, balances derived', () => {
  const summary = {
    query: '',
    period: 'month' as const,
    group_by: null,
    by_label: null,
    groups: [
      group('2024-01-01', null, '0.1'),
      group('2024-03-01', null, '-0.30000000000000000001'),
      group('2024-03-01', null, '5', 'EUR'),
    ],
  }
  const flows = flowSeries(summary, 'USD', 'month')
  assert.deepEqual(
    flows.slots.map((s) => s.name),
    ['2024-01', '2024-02', '2024-03'],
  )
  assert.deepEqual(flows.series[0]!.values, ['0.1', '0', '0'])
  assert.deepEqual(flows.series[1]!.values, ['0', '0', '-0.30000000000000000001'])

  const values = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']
  const labelled = {
    ...summary,
    group_by: 'label' as const,
    by_label: 'k',
    groups: [
      ...values.map((v, i) => group('2024-01-01', v, `-${i + 1}.1`)),
      group('2024-01-01', null, '-0.05'),
      group('2024-01-01', 'i', '3'),
    ],
  }
  const byLabel = labelSeries(labelled, 'USD', 'month', 'k', 'spending')
  assert.deepEqual(
    byLabel.series.map((s) => s.name),
    ['i', 'h', 'g', 'f', 'e', 'd', 'c', 'Other (3 values)'],
  )
  // b + a + (no k): 2.1 + 1.1 + 0.05, exactly.
  assert.deepEqual(byLabel.series.at(-1)!.values, ['3.25'])
  assert.deepEqual(byLabel.total!.values, ['45.95'])

  // Balance 100 today; -10 in Feb, +0.5 in Apr, -1 in a later month beyond `to`.
  const account = [
    group('2024-02-01', 'acc', '-10'),
    group('2024-04-01', 'acc', '0.5'),
    group('2024-09-01', 'acc', '-1'),
  ]
  const balance = balanceSeries(account, '100', 'month', {
    from: '2024-01-01',
    to: '2024-05-31',
    today: '2026-01-01',
  })
  assert.deepEqual(
    balance.slots.map((s) => s.name),
    ['2024-01', '2024-02', '2024-03', '2024-04', '2024-05'],
  )
  assert.deepEqual(balance.values, ['110.5', '100.5', '100.5', '101', '101'])
  assert.equal(balance.truncated, false)

  // A summary's sums may be longer than an amount's 64 characters (the longest
  // amounts added up): the page sums them on, exactly.
  const huge = `-1${'9'.repeat(62)}8`
  const long = {
    ...labelled,
    groups: [...values.map((v) => group('2024-01-01', v, huge)), group('2024-01-01', null, huge)],
  }
  const spending = labelSeries(long, 'USD', 'month', 'k', 'spending')
  assert.deepEqual(spending.total!.values, [`1${'9'.repeat(62)}80`])
  assert.deepEqual(spending.series.at(-1)!.values, [`5${'9'.repeat(62)}4`])
})

// The report's controls live in the address bar (?period=week&since=…&key=…),
// so a view can be bookmarked, shared, and reached again with the back button.
import type { Period } from './periods.js'
import type { Measure } from './series.js'

export interface ReportFilters {
  period: Period
  since: string
  until: string
  q: string
  /** Of the income/spending and label charts, when the ledger has several. */
  currency: string
  /** The label key of the label chart. */
  key: string
  measure: Measure
  /** The account of the balance chart. */
  account: string
}

export const DEFAULTS: ReportFilters = {
  period: 'month',
  since: '',
  until: '',
  q: '',
  currency: '',
  key: '',
  measure: 'spending',
  account: '',
}

const PERIODS: readonly Period[] = ['week', 'month', 'year']
const MEASURE_VALUES: readonly Measure[] = ['spending', 'income', 'net']

export function reportFrom(query: Record<string, string>): ReportFilters {
  const period = PERIODS.find((p) => p === query.period) ?? DEFAULTS.period
  const measure = MEASURE_VALUES.find((m) => m === query.measure) ?? DEFAULTS.measure
  return {
    period,
    since: query.since ?? '',
    until: query.until ?? '',
    q: query.q ?? '',
    currency: query.currency ?? '',
    key: query.key ?? '',
    measure,
    account: query.account ?? '',
  }
}

export function reportUrl(filters: ReportFilters): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(filters) as [keyof ReportFilters, string][]) {
    if (value !== '' && value !== DEFAULTS[name]) search.set(name, value)
  }
  const text = search.toString()
  return text === '' ? '/reports' : `/reports?${text}`
}

// Reports (issue 13, item 9): income and spending per period, spending by the
// values of a label key, and an account's balance over time, from exact sums of
// GET /transactions/summary. The controls (period, dates, search) apply to every
// chart and live in the address bar; each chart has its numbers as a table.
import type { ComponentChildren } from 'preact'
import { useLocation } from 'preact-iso'
import { useEffect, useMemo, useState } from 'preact/hooks'
import { api } from '../../api/client.js'
import { BarChart } from '../../charts/BarChart.js'
import { ChartTable, Legend } from '../../charts/ChartFrame.js'
import { LineChart } from '../../charts/LineChart.js'
import { DateRange } from '../../components/DateRange.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { Money } from '../../components/Money.js'
import { QueryInput } from '../../components/QueryInput.js'
import { useApi } from '../../components/useApi.js'
import { accounts, loadAccounts } from '../../stores/accounts.js'
import { MAX_PERIODS, type Period } from './periods.js'
import { reportFrom, reportUrl, type ReportFilters } from './report-url.js'
import {
  balanceSeries,
  currenciesOf,
  flowSeries,
  labelSeries,
  MEASURES,
  type Measure,
  type Summary,
} from './series.js'
import './reports.css'

const PERIOD_WORD: Record<Period, string> = { week: 'week', month: 'month', year: 'year' }

/** A select's label, tied by id: wrapping the select would put its options in its name. */
function Field({
  id,
  label,
  children,
}: {
  id: string
  label: string
  children: ComponentChildren
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
    </div>
  )
}

function today(): string {
  const d = new Date()
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
}

function TooMany({ count }: { count: number }) {
  return count >= MAX_PERIODS ? (
    <p class="hint">
      Only the first {MAX_PERIODS} periods are drawn: choose a longer period or a shorter range.
    </p>
  ) : null
}

function Controls({
  filters,
  onChange,
  currencies,
}: {
  filters: ReportFilters
  onChange: (next: ReportFilters) => void
  currencies: readonly string[]
}) {
  return (
    <div class="filters report-controls">
      <Field id="report-period" label="Period">
        <select
          id="report-period"
          value={filters.period}
          onChange={(e) => onChange({ ...filters, period: e.currentTarget.value as Period })}
        >
          <option value="month">Month</option>
          <option value="week">Week</option>
          <option value="year">Year</option>
        </select>
      </Field>
      <DateRange filters={filters} onChange={onChange} />
      {currencies.length > 1 ? (
        <Field id="report-currency" label="Currency">
          <select
            id="report-currency"
            value={filters.currency || currencies[0]}
            onChange={(e) => onChange({ ...filters, currency: e.currentTarget.value })}
          >
            {currencies.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </Field>
      ) : null}
      {filters.since || filters.until ? (
        <button
          type="button"
          class="link"
          onClick={() => onChange({ ...filters, since: '', until: '' })}
        >
          All dates
        </button>
      ) : null}
    </div>
  )
}

function FlowReport({
  summary,
  currency,
  period,
}: {
  summary: Summary
  currency: string
  period: Period
}) {
  const data = useMemo(() => flowSeries(summary, currency, period), [summary, currency, period])
  if (data.slots.length === 0) return <p class="empty">No transactions match.</p>
  const categories = data.slots.map((s) => s.name)
  return (
    <>
      <BarChart
        label={`Income and spending per ${PERIOD_WORD[period]} in ${currency}`}
        categories={categories}
        series={data.series}
        total={data.total}
        currency={currency}
      />
      <Legend series={data.series} />
      <TooMany count={data.slots.length} />
      <ChartTable
        caption={`Income, spending and net per ${PERIOD_WORD[period]}`}
        categoryLabel="Period"
        categories={categories}
        series={data.series}
        total={data.total}
        currency={currency}
      />
    </>
  )
}

function LabelReport({
  filters,
  currency,
  onChange,
}: {
  filters: ReportFilters
  currency: string
  onChange: (next: ReportFilters) => void
}) {
  const labels = useApi((signal) => api('GET /labels', { signal }), [])
  const keys = useMemo(
    () => [...new Set((labels.data?.labels ?? []).map((l) => l.key))].sort(),
    [labels.data],
  )
  const key = filters.key || (keys.includes('category') ? 'category' : (keys[0] ?? ''))
  const summary = useApi(
    (signal) =>
      key === ''
        ? Promise.resolve(null)
        : api('GET /transactions/summary', {
            query: {
              period: filters.period,
              group_by: 'label',
              by_label: key,
              q: filters.q,
              since: filters.since,
              until: filters.until,
            },
            signal,
          }),
    [key, filters.period, filters.q, filters.since, filters.until],
  )
  const data = useMemo(
    () =>
      summary.data && currency
        ? labelSeries(summary.data, currency, filters.period, key, filters.measure)
        : null,
    [summary.data, currency, filters.period, key, filters.measure],
  )
  // Until the search parses, the last answer would describe another search: not shown.
  const queryBroken = summary.error?.status === 400 && filters.q !== ''
  const measureLabel = MEASURES.find((m) => m.value === filters.measure)?.label ?? ''
  const categories = data?.slots.map((s) => s.name) ?? []

  return (
    <>
      <div class="filters">
        <Field id="report-label-key" label="Label key">
          <select
            id="report-label-key"
            value={key}
            disabled={keys.length === 0}
            onChange={(e) => onChange({ ...filters, key: e.currentTarget.value })}
          >
            {keys.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </Field>
        <Field id="report-show" label="Show">
          <select
            id="report-show"
            value={filters.measure}
            onChange={(e) => onChange({ ...filters, measure: e.currentTarget.value as Measure })}
          >
            {MEASURES.map((m) => (
              <option key={m.value} value={m.value}>
                {m.label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <ErrorNote error={labels.error} context="Could not load the labels" />
      {queryBroken ? <p class="empty">Fix the search above to see these sums.</p> : null}
      {summary.error && !queryBroken ? (
        <ErrorNote error={summary.error} context="Could not load the sums by label" />
      ) : null}
      {labels.data && keys.length === 0 ? (
        <p class="empty">No transaction has a label yet, so there is nothing to split by.</p>
      ) : null}
      {data && !queryBroken && data.series.length === 0 ? (
        <p class="empty">
          No {measureLabel.toLowerCase()} in {currency} matches.
        </p>
      ) : null}
      {data && !queryBroken && data.series.length > 0 ? (
        <div class={summary.loading ? 'loading-fade' : undefined} aria-busy={summary.loading}>
          <BarChart
            label={`${measureLabel} by ${key} per ${PERIOD_WORD[filters.period]} in ${currency}`}
            categories={categories}
            series={data.series}
            total={data.total}
            currency={currency}
          />
          <Legend series={data.series} />
          <TooMany count={data.slots.length} />
          <ChartTable
            caption={`${measureLabel} by ${key} per ${PERIOD_WORD[filters.period]}`}
            categoryLabel="Period"
            categories={categories}
            series={data.series}
            total={data.total}
            currency={currency}
          />
        </div>
      ) : null}
    </>
  )
}

function BalanceReport({
  filters,
  onChange,
}: {
  filters: ReportFilters
  onChange: (next: ReportFilters) => void
}) {
  const list = [...accounts.value.values()].sort(
    (a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
  )
  const account = accounts.value.get(filters.account) ?? list[0] ?? null
  // Every transaction after the first period counts toward the balances before
  // it: no search query and no end date here, only the start.
  // The sums travel with what they were asked for: while another account's (or
  // period's) are still on their way, the last ones are not drawn as this one's.
  const askedFor = `${account?.id ?? ''}|${filters.period}|${filters.since}`
  const summary = useApi(
    (signal) =>
      account === null
        ? Promise.resolve(null)
        : api('GET /transactions/summary', {
            query: {
              period: filters.period,
              group_by: 'account',
              q: `account_id:"${account.id}"`,
              since: filters.since,
            },
            signal,
          }).then((result) => ({ result, askedFor })),
    [askedFor],
  )
  const data = useMemo(() => {
    if (!summary.data || account === null || summary.data.askedFor !== askedFor) return null
    const groups = summary.data.result.groups.filter((g) => g.key === account.id)
    return balanceSeries(groups, account.balance, filters.period, {
      from: filters.since,
      to: filters.until,
      today: today(),
    })
  }, [summary.data, account, filters.period, filters.since, filters.until])

  if (list.length === 0) return <p class="empty">There are no accounts yet.</p>
  const categories = data?.slots.map((s) => s.name) ?? []
  const series = data ? [{ name: account?.name ?? 'Balance', color: 3, values: data.values }] : []
  return (
    <>
      <div class="filters">
        <Field id="report-account" label="Account">
          <select
            id="report-account"
            value={account?.id ?? ''}
            onChange={(e) => onChange({ ...filters, account: e.currentTarget.value })}
          >
            {list.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.currency})
              </option>
            ))}
          </select>
        </Field>
      </div>
      {account ? (
        <p class="hint">
          Derived, not recorded: the balance at the end of each {PERIOD_WORD[filters.period]} is the
          account's current balance (<Money amount={account.balance} currency={account.currency} />)
          less every transaction dated after that {PERIOD_WORD[filters.period]}. It is right as far
          as that balance reflects the transactions recorded here. The search does not apply to it:
          a balance counts every transaction.
        </p>
      ) : null}
      <ErrorNote error={summary.error} context="Could not load the account's transactions" />
      {data && account ? (
        <div class={summary.loading ? 'loading-fade' : undefined} aria-busy={summary.loading}>
          <LineChart
            label={`Balance of ${account.name} at the end of each ${PERIOD_WORD[filters.period]}`}
            categories={categories}
            series={series}
            currency={account.currency}
          />
          <Legend series={series} />
          {data.truncated ? <TooMany count={MAX_PERIODS} /> : null}
          <ChartTable
            caption={`Balance of ${account.name} at the end of each ${PERIOD_WORD[filters.period]}`}
            categoryLabel="Period"
            categories={categories}
            series={[{ name: 'Balance', color: 3, values: data.values }]}
            currency={account.currency}
          />
        </div>
      ) : summary.loading ? (
        <p class="loading">Loading…</p>
      ) : null}
    </>
  )
}

export function ReportsPage() {
  const location = useLocation()
  const filters = reportFrom(location.query)
  const [draft, setDraft] = useState(filters.q)
  const apply = (next: ReportFilters) => location.route(reportUrl(next), true)

  useEffect(() => void loadAccounts().catch(() => undefined), [])
  useEffect(() => setDraft(filters.q), [filters.q])
  // Apply the search a moment after the person pauses typing.
  useEffect(() => {
    if (draft === filters.q) return
    const timer = setTimeout(() => apply({ ...filters, q: draft }), 400)
    return () => clearTimeout(timer)
  }, [draft])

  const flows = useApi(
    (signal) =>
      api('GET /transactions/summary', {
        query: {
          period: filters.period,
          q: filters.q,
          since: filters.since,
          until: filters.until,
        },
        signal,
      }),
    [filters.period, filters.q, filters.since, filters.until],
  )
  const currencies = useMemo(
    () => (flows.data ? currenciesOf(flows.data.groups) : []),
    [flows.data],
  )
  const currency = currencies.includes(filters.currency) ? filters.currency : (currencies[0] ?? '')
  const queryError = flows.error?.status === 400 && filters.q ? flows.error : null

  return (
    <section class="reports">
      <div class="page-head">
        <h1>Reports</h1>
      </div>
      <QueryInput
        label="Filter the reports"
        placeholder="Only transactions matching: -rent amount:<0 payee:acme"
        value={draft}
        onInput={setDraft}
        onSubmit={() => apply({ ...filters, q: draft })}
        error={queryError}
      />
      <Controls filters={{ ...filters, currency }} onChange={apply} currencies={currencies} />

      <section class="card" aria-labelledby="flows-title">
        <h2 id="flows-title">
          Income and spending per {PERIOD_WORD[filters.period]}
          {currency ? ` (${currency})` : ''}
        </h2>
        {flows.error && !queryError ? (
          <ErrorNote error={flows.error} context="Could not load the sums" />
        ) : null}
        {queryError ? <p class="empty">Fix the search above to see these sums.</p> : null}
        {flows.data && !queryError ? (
          <div class={flows.loading ? 'loading-fade' : undefined} aria-busy={flows.loading}>
            <FlowReport summary={flows.data} currency={currency} period={filters.period} />
          </div>
        ) : flows.loading ? (
          <p class="loading">Loading…</p>
        ) : null}
      </section>

      <section class="card" aria-labelledby="labels-title">
        <h2 id="labels-title">By label{currency ? ` (${currency})` : ''}</h2>
        <LabelReport filters={filters} currency={currency} onChange={apply} />
      </section>

      <section class="card" aria-labelledby="balance-title">
        <h2 id="balance-title">Balance over time</h2>
        <BalanceReport filters={filters} onChange={apply} />
      </section>
    </section>
  )
}

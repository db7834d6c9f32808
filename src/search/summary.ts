// GET /transactions/summary and the summarize_transactions MCP tool (issue 13,
// item 9): exact sums and counts of the transactions a search selects, per
// period (day, ISO week, month, year), optionally per account or per value of
// one label, per currency.
//
// Where the search narrows exactly in SQL (narrow.ts; most queries), the
// database does the whole sum in one pass: PostgreSQL with numeric (exact);
// SQLite, which has no decimal type, with the aggregate coffer_group_sums
// (db/connect.ts, decimal.ts DecimalSum: exact, no sort). Otherwise the matching
// rows stream through the matcher page by page (stream.ts) and are summed here,
// with the same DecimalSum: memory holds one page and the groups, never the ledger.
import { sql, type RawBuilder } from 'kysely'
import { yieldToEventLoop } from '../clock.js'
import { GROUP_SUMS_SQL, type GroupSumRow } from '../db/connect.js'
import { keepsSummaryRollups, sumsDecimalsExactly } from '../db/dialect.js'
import { inList } from '../db/in-list.js'
import type { DbExecutor } from '../db/schema.js'
import { DecimalSum, addScaled, formatScaled, parseTotal, type Scaled } from '../decimal.js'
import { Invalid } from '../errors.js'
import { canonicalLabelKey } from '../ledger/labels.js'
import {
  resolveDateRange,
  transactionFilterOf,
  type TransactionFilter,
} from '../ledger/transaction-query.js'
import type { ServiceContext } from '../context.js'
import type { SummaryInput, SummaryJson } from '../schemas/summary.js'
import { throwIfClosing } from '../signals.js'
import { negatedPart, type QueryNode } from './ast.js'
import type { Narrowing } from './narrow.js'
import { parseQueryText } from './parse.js'
import { ALL_ROWS, pendingKey, readRollups, wholeDays, type DayRange } from './rollups.js'
import type { SearchDeps } from './service.js'
import { candidateQuery, matchingRows, narrowingFor, withinFewDays } from './stream.js'
import { loadTextContext } from './text-context.js'

export type { SummaryInput, SummaryJson }

type Period = NonNullable<SummaryInput['period']>
type GroupBy = 'account' | 'label' | null

/**
 * How a summary ran: from the rollups kept ahead of time, in the database over
 * the rows, the rollups less what the database sums of the rows a query of NOTs
 * leaves out, or through the matcher (tests, benchmarks).
 */
export type SummaryPlan = 'rollups' | 'sql' | 'complement' | 'matcher'

export interface SummaryDeps extends Pick<SearchDeps, 'db' | 'closing'> {
  onPlan?: ((plan: SummaryPlan) => void) | undefined
  /** False: never read the rollups (tests compare the plans). */
  rollups?: boolean | undefined
}

/** Characters of the stored instant (YYYY-MM-DDTHH:MM:SSZ, UTC) that name the period's group in SQL. */
const PREFIX: Record<Period, number> = { year: 4, month: 7, week: 10, day: 10 }

/** One group as the database or the stream gives it, before currencies and weeks. */
interface RawGroup {
  /** The date's first PREFIX[period] characters. */
  prefix: string
  account: string
  label: string | null
  count: number
  inflow: Scaled
  outflow: Scaled
}

export function summarizeTransactions(
  ctx: ServiceContext,
  input: SummaryInput,
): Promise<SummaryJson> {
  return summarizeWith({ db: ctx.db.kysely, closing: ctx.signals.closing }, input)
}

/** The checks that need no database: a query that does not parse, by_label missing (400). */
export function checkSummaryInput(input: SummaryInput): void {
  if (input.group_by === 'label' && (input.by_label === undefined || !input.by_label.trim()))
    throw Invalid.field('by_label', 'is required with group_by=label: the label key to split by')
  parseQueryText(input.q ?? '')
}

/** One summary over `deps.db`; see summarizeTransactions. */
export async function summarizeWith(deps: SummaryDeps, input: SummaryInput): Promise<SummaryJson> {
  throwIfClosing(deps.closing)
  checkSummaryInput(input)
  const period: Period = input.period ?? 'month'
  const groupBy: GroupBy = input.group_by ?? null
  // Label keys are stored canonical (trimmed, lower case), as label_key reads them.
  const byLabel = groupBy === 'label' ? canonicalLabelKey(input.by_label!) : null
  const text = input.q ?? ''
  const query = parseQueryText(text)
  const filter = transactionFilterOf(input)
  const db = deps.db
  // A few days' rows are summed reading each (search/service.ts, the same).
  const fewDays = await withinFewDays(db, query, filter)
  const ahead =
    deps.rollups === false || fewDays
      ? null
      : await summedWithRollups(db, query, filter, period, byLabel)
  if (ahead) deps.onPlan?.(ahead.plan)
  const raw =
    ahead?.groups ?? (await summedFromRows(deps, query, filter, PREFIX[period], byLabel, fewDays))
  return {
    query: text,
    period,
    group_by: groupBy,
    by_label: byLabel,
    groups: await finish(db, raw, period, groupBy),
  }
}

/**
 * The sums the rollups (search/rollups.ts) answer exactly: SQLite, no label
 * filter, a range of whole days, and no query (their own sums) or a query of
 * NOTs alone (`NOT label:category=transfer`: the reports page's "everything
 * but") over more than a few days' rows, summed as theirs less those of the rows it leaves out, which the
 * database sums through their indexes (the query's own sums test every row:
 * 1.25 s at a million). Null otherwise, or while too many days wait to be rebuilt.
 */
async function summedWithRollups(
  db: DbExecutor,
  query: QueryNode,
  filter: TransactionFilter,
  period: Period,
  byLabel: string | null,
): Promise<{ plan: SummaryPlan; groups: RawGroup[] } | null> {
  if (!keepsSummaryRollups(db)) return null
  if (filter.label_key !== undefined || filter.label_value !== undefined) return null
  const range = wholeDays(resolveDateRange(filter))
  if (range === null) return null
  if (query.kind === 'all') {
    const groups = await oneSnapshot(db, (db) => rollupGroups(db, range, period, byLabel))
    return groups && { plan: 'rollups', groups }
  }
  const negated = negatedPart(query)
  if (negated === null) return null
  const narrowing = narrowingFor(db, negated, { text: await loadTextContext(db, negated) })
  if (!narrowing.exact) return null
  const groups = await oneSnapshot(db, async (db) => {
    const all = await rollupGroups(db, range, period, byLabel)
    if (all === null) return null
    return groupsLess(all, await summedInSql(db, narrowing, filter, PREFIX[period], byLabel))
  })
  return groups && { plan: 'complement', groups }
}

/** `all`'s groups less `part`'s, which one snapshot read from the same rows. */
function groupsLess(all: RawGroup[], part: RawGroup[]): RawGroup[] | null {
  // A label value may be any string; null (no such label) gets a key of its own.
  const keyOf = (g: RawGroup) =>
    JSON.stringify([g.prefix, g.account, g.label === null ? 0 : g.label])
  const rest = new Map(all.map((g) => [keyOf(g), { ...g }]))
  for (const g of part) {
    const whole = rest.get(keyOf(g))
    // Cannot be, read in one snapshot; were it, the rows would be summed instead.
    if (whole === undefined || whole.count < g.count) return null
    takeAway(whole, g)
  }
  return [...rest.values()].filter((g) => g.count > 0)
}

/** Takes the rows of `part` out of the sums of `whole`, which holds them. */
function takeAway(whole: RawGroup, part: RawGroup): void {
  whole.count -= part.count
  whole.inflow = subtractScaled(whole.inflow, part.inflow)
  whole.outflow = subtractScaled(whole.outflow, part.outflow)
}

/** The rollups' groups over `range`; null while too many of its days wait to be rebuilt. */
async function rollupGroups(
  db: DbExecutor,
  range: DayRange,
  period: Period,
  byLabel: string | null,
): Promise<RawGroup[] | null> {
  const sums = await readRollups(db, range, PREFIX[period], byLabel)
  if (sums === null) return null
  const raw: RawGroup[] = []
  // Per (period, account): every transaction, less those with a value of the label.
  const unlabelled = new Map<string, RawGroup>()
  for (const g of sums.entries()) {
    const group = {
      prefix: g.start,
      account: g.account,
      count: g.count,
      inflow: g.inflow,
      outflow: g.outflow,
    }
    if (g.key !== ALL_ROWS) raw.push({ ...group, label: g.value })
    else if (byLabel === null) raw.push({ ...group, label: null })
    else unlabelled.set(pendingKey(g.start, g.account), { ...group, label: null })
  }
  if (byLabel === null) return raw
  for (const g of [...raw]) takeAway(unlabelled.get(pendingKey(g.prefix, g.account))!, g)
  for (const rest of unlabelled.values()) if (rest.count > 0) raw.push(rest)
  return raw
}

/**
 * Runs `read` on one snapshot: a worker's reads already share one transaction;
 * in the calling thread, holding the connection keeps writes from landing
 * between its statements.
 */
function oneSnapshot<T>(db: DbExecutor, read: (db: DbExecutor) => Promise<T>): Promise<T> {
  return db.isTransaction ? read(db) : db.connection().execute(read)
}

function subtractScaled(a: Scaled, b: Scaled): Scaled {
  return addScaled(a, { units: -b.units, scale: b.scale })
}

/** The sums of the matching rows: in the database where the narrowing is exact, else through the matcher. */
async function summedFromRows(
  deps: SummaryDeps,
  query: QueryNode,
  filter: TransactionFilter,
  prefix: number,
  byLabel: string | null,
  /** The query's rows lie within a few days: read one by one (stream.ts withinFewDays). */
  dateOrder: boolean,
): Promise<RawGroup[]> {
  const db = deps.db
  const narrowing = narrowingFor(db, query, { text: await loadTextContext(db, query), dateOrder })
  if (narrowing.exact) {
    deps.onPlan?.('sql')
    return summedInSql(db, narrowing, filter, prefix, byLabel)
  }
  deps.onPlan?.('matcher')
  const sums = new GroupSums()
  const stream = { pause: yieldToEventLoop, signal: deps.closing }
  for await (const rows of matchingRows(db, query, filter, stream)) {
    const labels = byLabel === null ? null : await labelValues(db, rows, byLabel)
    for (const row of rows)
      sums.add(row.date.slice(0, prefix), row.account_id, labels?.get(row.id) ?? null, row.amount)
  }
  return sums.groups()
}

/** The sums of an exact narrowing, computed by the database in one statement. */
async function summedInSql(
  db: DbExecutor,
  narrowing: Narrowing,
  filter: TransactionFilter,
  prefix: number,
  byLabel: string | null,
): Promise<RawGroup[]> {
  let candidates = candidateQuery(db, narrowing, filter)
  const periodOf = sql<string>`substr(transactions.date, 1, ${sql.lit(prefix)})`
  let label: RawBuilder<string | null> = sql`null`
  if (byLabel !== null) {
    // A join, not a subquery per row: PostgreSQL hashes the label's rows once;
    // SQLite probes transaction_labels_pk (transaction_id, key) either way.
    candidates = candidates.leftJoin('transaction_labels as by_label', (join) =>
      join
        .onRef('by_label.transaction_id', '=', 'transactions.id')
        .on('by_label.key', '=', byLabel),
    )
    label = sql`by_label.value`
  }
  if (sumsDecimalsExactly(db)) {
    const amount = sql`cast(transactions.amount as numeric)`
    const rows = await candidates
      .select([
        periodOf.as('prefix'),
        sql<string>`transactions.account_id`.as('account'),
        label.as('label'),
        sql<number>`count(*)`.as('count'),
        sql<string>`coalesce(sum(${amount}) filter (where transactions.amount not like '-%'), 0)::text`.as(
          'inflow',
        ),
        sql<string>`coalesce(sum(${amount}) filter (where transactions.amount like '-%'), 0)::text`.as(
          'outflow',
        ),
      ])
      .groupBy(sql.raw<string>('1, 2, 3'))
      .execute()
    return rows.map((r) => ({
      prefix: r.prefix,
      account: r.account,
      label: r.label,
      count: Number(r.count),
      inflow: parseTotal(r.inflow),
      outflow: parseTotal(r.outflow),
    }))
  }
  // The period's prefix has a fixed width, so prefix || account_id is one
  // unambiguous key: one string per row crosses into JS instead of two.
  const row = await candidates
    .select(
      sql<string>`${sql.raw(GROUP_SUMS_SQL)}(${periodOf} || transactions.account_id, ${label}, transactions.amount)`.as(
        'groups',
      ),
    )
    .executeTakeFirstOrThrow()
  return (JSON.parse(row.groups) as GroupSumRow[]).map(([key, label, count, inflow, outflow]) => ({
    prefix: String(key).slice(0, prefix),
    account: String(key).slice(prefix),
    label: label === null ? null : String(label),
    count,
    inflow: parseTotal(inflow),
    outflow: parseTotal(outflow),
  }))
}

/** The value of label `key` of each of `rows` that has it. */
async function labelValues(
  db: DbExecutor,
  rows: ReadonlyArray<{ id: string }>,
  key: string,
): Promise<Map<string, string>> {
  const found = await db
    .selectFrom('transaction_labels')
    .select(['transaction_id', 'value'])
    .where('key', '=', key)
    .where(
      inList(
        db,
        'transaction_id',
        rows.map((r) => r.id),
      ),
    )
    .execute()
  return new Map(found.map((r) => [r.transaction_id, r.value]))
}

/** Running sums of streamed rows, per (period prefix, account, label value). */
class GroupSums {
  readonly #groups = new Map<
    string,
    { prefix: string; account: string; label: string | null; sum: DecimalSum }
  >()

  add(prefix: string, account: string, label: string | null, amount: string): void {
    const key = JSON.stringify([prefix, account, label])
    let group = this.#groups.get(key)
    if (!group) this.#groups.set(key, (group = { prefix, account, label, sum: new DecimalSum() }))
    group.sum.add(amount)
  }

  groups(): RawGroup[] {
    return [...this.#groups.values()].map(({ prefix, account, label, sum }) => ({
      prefix,
      account,
      label,
      count: sum.count,
      inflow: sum.inflow,
      outflow: sum.outflow,
    }))
  }
}

/** The response's groups: periods named, accounts turned into currencies, ordered. */
async function finish(
  db: DbExecutor,
  raw: RawGroup[],
  period: Period,
  groupBy: GroupBy,
): Promise<SummaryJson['groups']> {
  const accountIds = [...new Set(raw.map((g) => g.account))]
  const currencies = new Map<string, string>()
  if (accountIds.length > 0) {
    const accounts = await db
      .selectFrom('accounts')
      .select(['id', 'currency'])
      .where(inList(db, 'id', accountIds))
      .execute()
    for (const a of accounts) currencies.set(a.id, a.currency)
  }
  interface Merged {
    period: string
    start: string
    key: string | null
    currency: string
    count: number
    inflow: Scaled
    outflow: Scaled
  }
  const merged = new Map<string, Merged>()
  for (const g of raw) {
    const { name, start } = namePeriod(period, g.prefix)
    const key = groupBy === 'account' ? g.account : groupBy === 'label' ? g.label : null
    // An account deleted under a running summary has no currency left to name.
    const currency = currencies.get(g.account) ?? ''
    const id = JSON.stringify([start, key, currency])
    const into = merged.get(id)
    if (!into) {
      merged.set(id, { period: name, start, key, currency, ...g })
      continue
    }
    into.count += g.count
    into.inflow = addScaled(into.inflow, g.inflow)
    into.outflow = addScaled(into.outflow, g.outflow)
  }
  return [...merged.values()]
    .sort(
      (a, b) =>
        compareText(a.start, b.start) ||
        (a.key === b.key
          ? 0
          : a.key === null
            ? -1
            : b.key === null
              ? 1
              : compareText(a.key, b.key)) ||
        compareText(a.currency, b.currency),
    )
    .map((g) => ({
      period: g.period,
      start: g.start,
      key: g.key,
      currency: g.currency,
      count: g.count,
      sum: formatScaled(addScaled(g.inflow, g.outflow)),
      inflow: formatScaled(g.inflow),
      outflow: formatScaled(g.outflow),
    }))
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

const DAY_MS = 86_400_000

/** The period's name (2024, 2024-05, 2024-W05, 2024-05-17) and first day, from the date's prefix. */
export function namePeriod(period: Period, prefix: string): { name: string; start: string } {
  switch (period) {
    case 'year':
      return { name: prefix, start: `${prefix}-01-01` }
    case 'month':
      return { name: prefix, start: `${prefix}-01` }
    case 'day':
      return { name: prefix, start: prefix }
    case 'week': {
      // ISO 8601: weeks start on Monday; week 1 holds the year's first Thursday,
      // so the week's year is its Thursday's.
      const day = Date.parse(`${prefix}T00:00:00Z`)
      const monday = day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS
      const thursday = new Date(monday + 3 * DAY_MS)
      const year = thursday.getUTCFullYear()
      // Not Date.UTC(year, 0, 1): it reads the years 0 to 99 as 1900 to 1999.
      const january1 = Date.parse(`${String(year).padStart(4, '0')}-01-01T00:00:00Z`)
      const week = Math.floor((thursday.getTime() - january1) / (7 * DAY_MS)) + 1
      return {
        name: `${String(year).padStart(4, '0')}-W${String(week).padStart(2, '0')}`,
        start: new Date(monday).toISOString().slice(0, 10),
      }
    }
  }
}

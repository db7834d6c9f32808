// The summary rollups of SQLite (migration 0008): exact sums per day and per
// month, per account, for every transaction and per label value, so that a
// summary over everything (GET /transactions/summary without a query) reads
// thousands of sums instead of a million rows. Writes only queue the (day,
// account) they touch (triggers); this file rebuilds queued days in short units
// of the one mutation path (derived data: no event), and gives the summary the
// sums of the days still queued, computed from the transactions the same way.
import { sql } from 'kysely'
import type { ServiceContext } from '../context.js'
import { keepsSummaryRollups } from '../db/dialect.js'
import type { DbExecutor } from '../db/schema.js'
import { DecimalSum, formatScaled, type Scaled } from '../decimal.js'
import type { Ledger } from '../ledger/mutate.js'
import { nextDayStart } from '../ledger/time.js'
import type { WriteStep } from '../ledger/unit-of-work.js'
import { bulkWritesUnderway, chunksOf } from '../db/bulk.js'
import { QueueDrainer, type DrainedBatch } from './drainer.js'

/** Days rebuilt per write transaction at first (adaptiveRebuild then sizes the batches). */
export const ROLLUP_BATCH_DAYS = 64

/** The label key of the rows that sum every transaction (label keys are never empty). */
export const ALL_ROWS = ''

/** One (day, account) whose sums are stale. */
export interface PendingDay {
  day: string
  account_id: string
}

/** One row of summary_days or summary_months. */
export interface RollupRow {
  label_key: string
  /** YYYY-MM-DD (days) or YYYY-MM (months). */
  start: string
  account_id: string
  label_value: string
  count: number
  inflow: string
  outflow: string
}

/** Exact running sums per (label key, start, account, label value). */
export class RollupSums {
  readonly #groups = new Map<
    string,
    { key: string; start: string; account: string; value: string; count: number; sum: DecimalSum }
  >()

  #group(key: string, start: string, account: string, value: string) {
    const id = `${key}\u0000${start}\u0000${account}\u0000${value}`
    let group = this.#groups.get(id)
    if (!group) {
      group = { key, start, account, value, count: 0, sum: new DecimalSum() }
      this.#groups.set(id, group)
    }
    return group
  }

  /** One transaction's amount. */
  addAmount(key: string, start: string, account: string, value: string, amount: string): void {
    const group = this.#group(key, start, account, value)
    group.count++
    group.sum.add(amount)
  }

  /** Another rollup row's sums, under `start` (a day's row summed into its month, say). */
  addRow(row: RollupRow, start = row.start): void {
    const group = this.#group(row.label_key, start, row.account_id, row.label_value)
    group.count += row.count
    // The inflow is never negative and the outflow never positive: each lands on its side.
    group.sum.add(row.inflow)
    group.sum.add(row.outflow)
  }

  *entries(): Generator<{
    key: string
    start: string
    account: string
    value: string
    count: number
    inflow: Scaled
    outflow: Scaled
  }> {
    for (const { key, start, account, value, count, sum } of this.#groups.values())
      yield { key, start, account, value, count, inflow: sum.inflow, outflow: sum.outflow }
  }

  rows(): RollupRow[] {
    return [...this.entries()].map((g) => ({
      label_key: g.key,
      start: g.start,
      account_id: g.account,
      label_value: g.value,
      count: g.count,
      inflow: formatScaled(g.inflow),
      outflow: formatScaled(g.outflow),
    }))
  }
}

/** The pairs as one JSON parameter: a table of (day, account_id) whatever the count. */
const pairsTable = (pairs: readonly PendingDay[]) =>
  sql`(select value ->> 0 as day, value ->> 1 as account_id from json_each(${JSON.stringify(
    pairs.map((p) => [p.day, p.account_id]),
  )}))`

/**
 * Adds to `into` the sums of the given days computed from the transactions:
 * every row under ALL_ROWS, and per label value of `labels` (one key, every
 * key, or none), each under the first `prefix` characters of its day. A stored
 * date is `YYYY-MM-DDTHH:MM:SSZ`, so a day's rows are those between `day` and
 * `day || 'U'`.
 */
export async function addDaysFromTransactions(
  db: DbExecutor,
  pairs: readonly PendingDay[],
  into: RollupSums,
  labels: { key: string } | 'every key' | 'none',
  prefix = 10,
): Promise<void> {
  if (pairs.length === 0) return
  const inDay = sql`t.account_id = p.account_id and t.date > p.day and t.date < p.day || 'U'`
  const all = await sql<{ day: string; account_id: string; amount: string }>`
    select p.day, p.account_id, t.amount from ${pairsTable(pairs)} p
    join transactions t on ${inDay}`.execute(db)
  for (const r of all.rows)
    into.addAmount(ALL_ROWS, r.day.slice(0, prefix), r.account_id, ALL_ROWS, r.amount)
  if (labels === 'none') return
  const labelled = await sql<{
    day: string
    account_id: string
    amount: string
    key: string
    value: string
  }>`
    select p.day, p.account_id, t.amount, l.key, l.value from ${pairsTable(pairs)} p
    join transactions t on ${inDay}
    join transaction_labels l on l.transaction_id = t.id
    ${labels === 'every key' ? sql`` : sql`and l.key = ${labels.key}`}`.execute(db)
  for (const r of labelled.rows)
    into.addAmount(r.key, r.day.slice(0, prefix), r.account_id, r.value, r.amount)
}

/**
 * Whether a day of one account is found by index: a first import into an empty
 * ledger builds transactions_account_date after its rows (sync/first-import.ts),
 * and until then every day read again would scan the whole table. The queue waits.
 */
async function canReadDays(db: DbExecutor): Promise<boolean> {
  const found = await sql`select 1 from sqlite_master
    where type = 'index' and name = 'transactions_account_date'`.execute(db)
  return found.rows.length > 0
}

/** One (day or month, account) as one string key. */
export const pendingKey = (day: string, account: string) => `${day}\u0000${account}`

async function insertRows(
  db: DbExecutor,
  table: 'summary_days' | 'summary_months',
  rows: RollupRow[],
): Promise<void> {
  if (rows.length === 0) return
  const json = JSON.stringify(
    rows.map((r) => [
      r.label_key,
      r.start,
      r.account_id,
      r.label_value,
      r.count,
      r.inflow,
      r.outflow,
    ]),
  )
  await sql`insert into ${sql.table(table)} (label_key, start, account_id, label_value, count, inflow, outflow)
    select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6
    from json_each(${json})`.execute(db)
}

/**
 * Rebuilds up to `batch` queued days, and the months they are in, in one unit
 * of the one mutation path; returns how many days were queued.
 */
export async function rebuildQueuedRollups(
  ledger: Pick<Ledger, 'mutate'>,
  batch = ROLLUP_BATCH_DAYS,
): Promise<number> {
  return ledger.mutate(async ({ trx }) => {
    if (!(await canReadDays(trx))) return 0
    const queued = await sql<PendingDay>`
      select day, account_id from summary_pending limit ${batch}`.execute(trx)
    const pairs = queued.rows
    if (pairs.length === 0) return 0
    const days = new RollupSums()
    await addDaysFromTransactions(trx, pairs, days, 'every key')
    await sql`delete from summary_days where (account_id, start) in
      (select account_id, day from ${pairsTable(pairs)})`.execute(trx)
    await insertRows(trx, 'summary_days', days.rows())

    // Each month touched, summed again from its days.
    const months = [
      ...new Map(
        pairs.map((p) => [pendingKey(p.day.slice(0, 7), p.account_id), p] as const),
      ).values(),
    ].map((p) => ({ day: p.day.slice(0, 7), account_id: p.account_id }))
    const monthDays = await sql<RollupRow>`
      select d.label_key, d.start, d.account_id, d.label_value, d.count, d.inflow, d.outflow
      from ${pairsTable(months)} m join summary_days d
        on d.account_id = m.account_id and d.start > m.day and d.start < m.day || 'U'`.execute(trx)
    const sums = new RollupSums()
    for (const row of monthDays.rows) sums.addRow(row, row.start.slice(0, 7))
    await sql`delete from summary_months where (account_id, start) in
      (select account_id, day from ${pairsTable(months)})`.execute(trx)
    await insertRows(trx, 'summary_months', sums.rows())

    await sql`delete from summary_pending where (day, account_id) in
      (select day, account_id from ${pairsTable(pairs)})`.execute(trx)
    return pairs.length
  })
}

/**
 * The write step (ledger/unit-of-work.ts) that queues the days of new
 * transactions, and of transactions whose labels changed, in the unit that
 * writes them, one statement per batch (migration 0011); edits and deletes are
 * queued by triggers (migration 0008).
 */
export const summaryDaysStep: WriteStep = {
  name: 'summary days',
  afterInsert: (uow, created) => queueDays(uow.trx, created),
  afterKeyedChange: async (uow, field, changed) => {
    if (field === 'labels') await queueDays(uow.trx, changed)
  },
}

async function queueDays(
  db: DbExecutor,
  created: ReadonlyArray<{ date: string; account_id: string }>,
): Promise<void> {
  if (created.length === 0 || !keepsSummaryRollups(db)) return
  const days = new Map<string, PendingDay>()
  for (const tx of created) {
    const day = tx.date.slice(0, 10)
    days.set(pendingKey(day, tx.account_id), { day, account_id: tx.account_id })
  }
  for (const chunk of chunksOf([...days.values()], QUEUE_CHUNK))
    await sql`insert into summary_pending (day, account_id)
      select day, account_id from ${pairsTable(chunk)} where true on conflict do nothing`.execute(
      db,
    )
}

/** Days per statement: one JSON parameter each, whatever the count. */
const QUEUE_CHUNK = 5000

/**
 * A unit of the rebuild aims at this long: a day holds a handful of rows in
 * one ledger and hundreds in another, so the days per unit adapt to it,
 * keeping writers from waiting behind the rebuild.
 */
const REBUILD_UNIT_MS = 25
const MAX_BATCH_DAYS = 4096

/**
 * Rebuilds batches of queued days whose size adapts so that each unit takes
 * about REBUILD_UNIT_MS (halved when one takes twice that, doubled when one
 * takes under half).
 */
export function adaptiveRebuild(ledger: Pick<Ledger, 'mutate'>): () => Promise<DrainedBatch> {
  let batch = ROLLUP_BATCH_DAYS
  return async () => {
    const asked = batch
    const started = performance.now()
    const taken = await rebuildQueuedRollups(ledger, asked)
    const ms = performance.now() - started
    if (ms > 2 * REBUILD_UNIT_MS) batch = Math.max(1, Math.floor(batch / 2))
    else if (ms < REBUILD_UNIT_MS / 2 && taken === asked)
      batch = Math.min(MAX_BATCH_DAYS, batch * 2)
    return { taken, full: taken === asked }
  }
}

/** A drainer for `coffer serve` and `coffer mcp`: rebuilds queued days whenever there are some. */
export function summaryRollupsDrainer(ctx: ServiceContext): QueueDrainer {
  return new QueueDrainer(ctx, {
    name: 'summary rollups',
    enabled: keepsSummaryRollups(ctx.db.kysely),
    drainOnce: adaptiveRebuild(ctx.ledger),
    logged: 'summary: rebuilt queued days',
    unit: 'days',
    // A day is rebuilt from all its transactions, and an import or a plugin
    // labelling its rows queues every day it touches again and again: rebuilt at
    // each poll, the days of a 100k-row labelling run were re-summed 115 times.
    // Summaries read the queued days from the rows meanwhile (exact, slower).
    holdWhile: () => bulkWritesUnderway(ctx.db.kysely),
  })
}

/** Rebuilds queued days until none is left (tests, benchmarks); returns how many. */
export async function rebuildAllQueuedRollups(ledger: Pick<Ledger, 'mutate'>): Promise<number> {
  return (await QueueDrainer.drainAll(adaptiveRebuild(ledger))).taken
}

/** A date range of whole days: from `from` (inclusive) to `to` (exclusive), YYYY-MM-DD, either open. */
export interface DayRange {
  from?: string | undefined
  to?: string | undefined
}

/** A summary reads the rollups while at most this many days are queued; past it, the rows. */
export const PENDING_DAYS_READ_LIVE = 2000

const MIDNIGHT = 'T00:00:00Z'

/** The range of days of a resolved date filter, or null when it cuts a day (an instant bound). */
export function wholeDays(range: {
  from?: string
  before?: string
  upTo?: string
}): DayRange | null {
  const out: DayRange = {}
  if (range.from !== undefined) {
    if (!range.from.endsWith(MIDNIGHT)) return null
    out.from = range.from.slice(0, 10)
  }
  if (range.before !== undefined) {
    if (!range.before.endsWith(MIDNIGHT)) return null
    out.to = range.before.slice(0, 10)
  } else if (range.upTo !== undefined) {
    if (!range.upTo.endsWith('T23:59:59Z')) return null
    out.to = nextDayStart(range.upTo)?.slice(0, 10)
  }
  return out
}

function nextMonth(month: string): string {
  const year = Number(month.slice(0, 4))
  const next = Number(month.slice(5, 7)) + 1
  return next > 12
    ? `${String(year + 1).padStart(4, '0')}-01`
    : `${month.slice(0, 5)}${String(next).padStart(2, '0')}`
}

const ROLLUP_SELECT = sql.raw('label_key, start, account_id, label_value, count, inflow, outflow')

/**
 * The sums of every transaction in `range` (under ALL_ROWS) and, given a
 * `labelKey`, per value of that label, each under the first `prefix`
 * characters of its day: read from the rollups, months where whole months are
 * asked (`monthly`) and days elsewhere, with the days still queued computed
 * from the transactions. Null when too many days are queued (right after a
 * large import): the caller sums the rows instead. Run it in one read snapshot.
 */
export async function readRollups(
  db: DbExecutor,
  range: DayRange,
  prefix: number,
  labelKey: string | null,
): Promise<RollupSums | null> {
  const keys = sql.join(labelKey === null ? [ALL_ROWS] : [ALL_ROWS, labelKey])
  const within = (column: string, from: string | undefined, to: string | undefined) =>
    sql.join(
      [
        sql`1 = 1`,
        ...(from === undefined ? [] : [sql`${sql.ref(column)} >= ${from}`]),
        ...(to === undefined ? [] : [sql`${sql.ref(column)} < ${to}`]),
      ],
      sql` and `,
    )
  const pending = (
    await sql<PendingDay>`select day, account_id from summary_pending
      where ${within('day', range.from, range.to)} limit ${PENDING_DAYS_READ_LIVE + 1}`.execute(db)
  ).rows
  if (pending.length > PENDING_DAYS_READ_LIVE) return null
  if (pending.length > 0 && !(await canReadDays(db))) return null
  const queued = new Set(pending.map((p) => pendingKey(p.day, p.account_id)))
  const sums = new RollupSums()
  const addDays = (rows: RollupRow[]) => {
    for (const row of rows)
      if (!queued.has(pendingKey(row.start, row.account_id)))
        sums.addRow(row, row.start.slice(0, prefix))
  }
  const readDays = async (from: string | undefined, to: string | undefined) =>
    addDays(
      (
        await sql<RollupRow>`select ${ROLLUP_SELECT} from summary_days
          where label_key in (${keys}) and ${within('start', from, to)}`.execute(db)
      ).rows,
    )

  // Whole months inside the range come from summary_months: [firstMonth, endMonth).
  const firstMonth =
    range.from === undefined
      ? undefined
      : range.from.endsWith('-01')
        ? range.from.slice(0, 7)
        : nextMonth(range.from.slice(0, 7))
  const endMonth = range.to?.slice(0, 7)
  const monthly =
    prefix <= 7 && (firstMonth === undefined || endMonth === undefined || firstMonth < endMonth)
  if (!monthly) {
    await readDays(range.from, range.to)
  } else {
    const inMonths = (month: string) =>
      (firstMonth === undefined || month >= firstMonth) &&
      (endMonth === undefined || month < endMonth)
    // A month with a queued day is summed from its other days instead.
    const stale = new Map<string, PendingDay>()
    for (const p of pending) {
      const month = p.day.slice(0, 7)
      if (inMonths(month))
        stale.set(pendingKey(month, p.account_id), { day: month, account_id: p.account_id })
    }
    const months = await sql<RollupRow>`select ${ROLLUP_SELECT} from summary_months
      where label_key in (${keys}) and ${within('start', firstMonth, endMonth)}`.execute(db)
    for (const row of months.rows)
      if (!stale.has(pendingKey(row.start, row.account_id)))
        sums.addRow(row, row.start.slice(0, prefix))
    if (stale.size > 0) {
      const staleDays =
        await sql<RollupRow>`select d.label_key, d.start, d.account_id, d.label_value, d.count, d.inflow, d.outflow
        from ${pairsTable([...stale.values()])} m join summary_days d
          on d.account_id = m.account_id and d.start > m.day and d.start < m.day || 'U'
        where d.label_key in (${keys})`.execute(db)
      addDays(staleDays.rows)
    }
    if (firstMonth !== undefined && range.from !== undefined && range.from < `${firstMonth}-01`)
      await readDays(range.from, `${firstMonth}-01`)
    if (endMonth !== undefined) await readDays(`${endMonth}-01`, range.to)
  }
  await addDaysFromTransactions(
    db,
    pending,
    sums,
    labelKey === null ? 'none' : { key: labelKey },
    prefix,
  )
  return sums
}

// Benchmark (issue 13, item 9): GET /transactions/summary over a generated
// ledger of 1,000,000 transactions (COFFER_BENCH_SUMMARY_ROWS). Target on
// SQLite: a month × `category` summary of everything, p50 under 200 ms. Printed
// beside the same run's raw full scan of the table and the same summaries
// summed from the rows (the plan without rollups), each checked equal to it;
// also the rollups' rebuild after the import, and a summary asked before it
// (every day queued: the rows answer). COFFER_BENCH_ENGINE=postgres runs it on
// PostgreSQL, which keeps no rollups (figures only).
import assert from 'node:assert/strict'
import { rebuildQueuedRollups } from '../src/search/rollups.js'
import { summarizeWith, type SummaryPlan } from '../src/search/summary.js'
import type { SummaryInput } from '../src/schemas/summary.js'
import { generateLedgerIn } from './lib/generate-ledger.js'
import { benchEngine, freshDatabase, openAnotherContext, perSecond, timed } from './support.js'

const ROWS = Number(process.env.COFFER_BENCH_SUMMARY_ROWS ?? 1_000_000)
const RUNS = Number(process.env.COFFER_BENCH_SUMMARY_RUNS ?? 9)
/** Days rebuilt per unit here: the service's batch is smaller, to interleave with writers. */
const REBUILD_BATCH = 1000

const SUMMARIES: Array<{ name: string; input: SummaryInput; target?: true }> = [
  {
    name: 'month × label category, everything',
    input: { period: 'month', group_by: 'label', by_label: 'category' },
    target: true,
  },
  { name: 'month × account, everything', input: { period: 'month', group_by: 'account' } },
  { name: 'year, everything', input: { period: 'year' } },
  {
    name: 'week × label category, 2023',
    input: {
      period: 'week',
      group_by: 'label',
      by_label: 'category',
      since: '2023-01-01',
      until: '2023-12-31',
    },
  },
  {
    name: 'month × label category, 2023-03-15..2024-06-10',
    input: {
      period: 'month',
      group_by: 'label',
      by_label: 'category',
      since: '2023-03-15',
      until: '2024-06-10',
    },
  },
  {
    name: 'day × account, 2024-05',
    input: { period: 'day', group_by: 'account', since: '2024-05-01', until: '2024-05-31' },
  },
]

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

async function p50p95(work: () => Promise<unknown>, runs = RUNS): Promise<[number, number]> {
  const times: number[] = []
  for (let run = 0; run < runs; run++) times.push((await timed(work)).ms)
  times.sort((a, b) => a - b)
  return [percentile(times, 50), percentile(times, 95)]
}

export async function benchSummary(): Promise<void> {
  const engine = benchEngine()
  const db = await freshDatabase('summary', engine)
  await db.ctx.close() // schema only; generate with a bare driver handle
  const { ms: generateMs } = await timed(() => generateLedgerIn(db, { rows: ROWS }))
  const ctx = await openAnotherContext(db)
  const kysely = ctx.db.kysely
  try {
    console.log(
      `\n## summary (${ROWS.toLocaleString('en-US')} transactions${engine === 'postgres' ? ' on PostgreSQL' : ''}, generated in ${(generateMs / 1000).toFixed(1)} s)`,
    )
    // The baseline: a raw full scan of the table (SQLite's LIKE ignores ASCII case).
    const like = engine === 'postgres' ? 'ilike' : 'like'
    const [raw] = await p50p95(
      () =>
        kysely
          .selectFrom('transactions')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('description', like, '%coffee%')
          .executeTakeFirstOrThrow(),
      5,
    )
    console.log(
      `  raw full scan (description ${like.toUpperCase()} '%coffee%', count): p50 ${raw.toFixed(0)} ms`,
    )

    const run = async (input: SummaryInput, rollups: boolean) => {
      let plan: SummaryPlan | undefined
      const result = await summarizeWith({ db: kysely, rollups, onPlan: (p) => (plan = p) }, input)
      return { plan: plan!, result }
    }
    const first = SUMMARIES[0]!.input
    if (engine === 'sqlite') {
      // As `coffer serve` finds the ledger right after a large import: every day queued.
      const before = await run(first, true)
      const [beforeMs] = await p50p95(() => run(first, true), 3)
      console.log(
        `  before the rollups are built (every day queued): ${before.plan}, p50 ${beforeMs.toFixed(0)} ms`,
      )
      const rebuilt = await timed(async () => {
        let days = 0
        for (let done = REBUILD_BATCH; done === REBUILD_BATCH; days += done)
          done = await rebuildQueuedRollups(ctx.ledger, REBUILD_BATCH)
        return days
      })
      console.log(
        `  rollups built: ${rebuilt.value.toLocaleString('en-US')} days in ${(rebuilt.ms / 1000).toFixed(1)} s (${perSecond(ROWS, rebuilt.ms).toLocaleString('en-US')} transactions/s)`,
      )
    }
    console.log(
      `  ${'summary'.padEnd(48)} ${'groups'.padStart(7)} ${'plan'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'p50/raw'.padStart(8)} ${'rows p50'.padStart(9)} ${'rows/p50'.padStart(9)}`,
    )
    for (const { name, input, target } of SUMMARIES) {
      const fast = await run(input, true)
      const rows = await run(input, false)
      assert.deepEqual(fast.result, rows.result, `${name}: the rollups and the rows disagree`)
      const [p50, p95] = await p50p95(() => run(input, true))
      const [rowsP50] = await p50p95(() => run(input, false), 3)
      const verdict = target && engine === 'sqlite' ? (p50 < 200 ? '  ok' : '  MISSES TARGET') : ''
      console.log(
        `  ${name.padEnd(48)} ${String(fast.result.groups.length).padStart(7)} ${fast.plan.padStart(8)} ${p50.toFixed(1).padStart(8)} ${p95.toFixed(1).padStart(8)} ${`${(p50 / raw).toFixed(2)}×`.padStart(8)} ${rowsP50.toFixed(0).padStart(9)} ${`${(rowsP50 / p50).toFixed(1)}×`.padStart(9)}${verdict}`,
      )
    }
    console.log('  target (SQLite): month × label category, everything: p50 < 200 ms')
  } finally {
    await ctx.close()
    await db.dispose().catch(() => {})
  }
}

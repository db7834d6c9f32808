// Benchmark (issue #8, rules): POST /rules/run with 10 merchant rules over the
// generated ledger of 1,000,000 transactions (bench/lib/generate-ledger.ts,
// SQLite by default), against a plain scan of the same rows through the matcher (the search
// module's stream with an empty query) in the same run. The first run labels the
// rows the rules match (10 merchants × 0.25% of rows); the second finds every key
// in place and writes nothing but its rule.executed event.
// COFFER_BENCH_RULES_ROWS sets the size; COFFER_BENCH_ENGINE=postgres runs it on
// PostgreSQL, where a unit of work holds row locks and, at its end, the event log's
// append lock, rather than the whole database's one write lock.
//
// Then writers during a run (issue 16): a manual transaction is created every
// 20 ms while a run goes on, and its latency (from the moment it was due, so an
// event loop held up counts too) is set beside the same writes with no run, and
// beside the same run done whole inside its write unit (as before issue 16).
// The longest write-lock hold of the run's own unit of work (from BEGIN
// IMMEDIATE to COMMIT, a WAL checkpoint at commit included) is reported too.
import { AsyncLocalStorage } from 'node:async_hooks'
import type { ServiceContext } from '../src/context.js'
import { createAccount } from '../src/ledger/accounts.js'
import { createTransaction } from '../src/ledger/transactions.js'
import type { UnitOfWork } from '../src/ledger/unit-of-work.js'
import { parseQuery, matchingTransactions } from '../src/search/index.js'
import { runAllRules, runRule, type RunOptions } from '../src/rules/run.js'
import { createRule } from '../src/rules/store.js'
import { indexAllQueuedDocuments } from '../src/search/indexer.js'
import { generateLedgerIn, MERCHANTS } from './lib/generate-ledger.js'
import { benchEngine, freshDatabase, perSecond, report, timed } from './support.js'

const ROWS = Number(process.env.COFFER_BENCH_RULES_ROWS ?? 1_000_000)

export async function benchRulesRun(): Promise<void> {
  const engine = benchEngine()
  const on = engine === 'postgres' ? 'PostgreSQL' : 'SQLite'
  const db = await freshDatabase('rules', engine)
  try {
    await generateLedgerIn(db, { rows: ROWS })
    if (engine === 'sqlite') {
      // The search documents, as `coffer serve` builds them after an import.
      const indexing = await timed(() => indexAllQueuedDocuments(db.ctx.ledger))
      console.log(
        `\n(search index built: ${indexing.value} documents at ${perSecond(indexing.value, indexing.ms)} documents/s)`,
      )
    }
    // Ten named merchants (0.25% of rows each). Ikea is left out: a needle whose
    // every run holds an "i" or a "k" is not narrowed by the search pre-filter
    // (Unicode case folding, src/search/narrow.ts), so its rule scans every row.
    for (const merchant of MERCHANTS.slice(0, 20)
      .filter((m) => m !== 'Ikea')
      .slice(0, 10)) {
      await createRule(db.ctx, {
        name: merchant,
        query: `payee:"${merchant}"`,
        labels: { category: merchant.toLowerCase().replace(/[^a-z0-9]+/g, '-') },
        extensions: { 'merchant.name': merchant },
      })
    }

    const scan = await timed(async () => {
      let seen = 0
      for await (const page of matchingTransactions(db.ctx.db.kysely, parseQuery(''))) {
        seen += page.length
      }
      return seen
    })
    if (scan.value !== ROWS) throw new Error(`the scan saw ${scan.value} of ${ROWS} rows`)

    const holds = watchLockHolds(db.ctx)
    const account = await createAccount(db.ctx, { name: 'Writer', currency: 'USD' })
    const idle = await writesDuring(db.ctx, account.id, holds, () => sleep(3000))
    const first = await writesDuring(db.ctx, account.id, holds, () => runAllRules(db.ctx))
    const second = await writesDuring(db.ctx, account.id, holds, () => runAllRules(db.ctx))
    if (second.value.updated !== 0) throw new Error('the second run changed transactions')
    const secondOld = await writesDuring(db.ctx, account.id, holds, () =>
      runAllRules(db.ctx, { inOnePhase: true }),
    )
    // A change set of every row: one rule that labels each outgoing transaction
    // (written row by row: minutes at 1M rows, so only up to 200k).
    const wideRows = ROWS <= 200_000
    const wide = await createRule(db.ctx, {
      name: 'Outgoing',
      query: 'amount:<0',
      labels: { direction: 'out' },
      enabled: false,
    })
    const wideRun = (options: RunOptions) => () => runRule(db.ctx, wide.id, options)
    const everyRow = wideRows && (await writesDuring(db.ctx, account.id, holds, wideRun({})))
    const everyRowAgain = wideRows && (await writesDuring(db.ctx, account.id, holds, wideRun({})))
    const everyRowAgainOld =
      wideRows && (await writesDuring(db.ctx, account.id, holds, wideRun({ inOnePhase: true })))

    console.log(
      `\n## manual writes every 20 ms during a rules run over ${ROWS} transactions (${on})`,
    )
    // On SQLite the run's unit holds the one write lock throughout; on PostgreSQL
    // writers wait only for the rows it locks and its final event append.
    const unitColumn = engine === 'sqlite' ? 'lock ms' : 'unit ms'
    console.log(
      `  ${'during'.padEnd(58)} ${'writes'.padStart(6)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)} ${'run ms'.padStart(8)} ${unitColumn.padStart(8)}`,
    )
    const line = (label: string, m: Measured<unknown>) => {
      const cells = [m.latencies.length, ...percentiles(m.latencies), m.ms, m.longestHold]
      console.log(
        `  ${label.padEnd(58)} ${cells.map((c, i) => (i === 0 ? String(c) : c.toFixed(1)).padStart(i === 0 ? 6 : 8)).join(' ')}`,
      )
    }
    line('nothing (baseline, same run)', idle)
    line(`10 rules, first run (${first.value.updated} updated)`, first)
    line('10 rules again, nothing to change', second)
    line('10 rules again, whole run in the write unit (as before)', secondOld)
    if (everyRow && everyRowAgain && everyRowAgainOld) {
      line(`1 rule over every outgoing row (${everyRow.value.updated} updated)`, everyRow)
      line('that rule again, nothing to change', everyRowAgain)
      line('that rule again, whole run in the write unit (as before)', everyRowAgainOld)
    }
    const p99 = (m: Measured<unknown>) => percentiles(m.latencies)[1]
    console.log(
      `  p99 during / p99 baseline: first run ${(p99(first) / p99(idle)).toFixed(1)}×, again ${(p99(second) / p99(idle)).toFixed(1)}×, again in one phase ${(p99(secondOld) / p99(idle)).toFixed(1)}×   target: p99 ≤ 200 ms`,
    )

    const baseline = {
      label: 'plain scan through the matcher (q = "")',
      perSecond: perSecond(ROWS, scan.ms),
    }
    report(
      `rules run: 10 rules over ${ROWS} transactions, first run (${on})`,
      {
        label: `POST /rules/run (${first.value.matched} matched, ${first.value.updated} updated)`,
        perSecond: perSecond(ROWS, first.ms),
      },
      baseline,
      '≥ 50,000 rows/s',
    )
    report(
      `rules run: the same 10 rules again, nothing to change (${on})`,
      {
        label: `POST /rules/run (${second.value.matched} matched, 0 updated)`,
        perSecond: perSecond(ROWS, second.ms),
      },
      baseline,
      '≥ 50,000 rows/s',
    )
  } finally {
    await db.dispose()
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

interface LockHolds {
  /** Forgets what was seen; the longest hold since is then `longest`. */
  reset(): void
  readonly longest: number
}

/** Marks the async work of the run being measured, apart from the writers' own. */
const inRun = new AsyncLocalStorage<true>()

/** Times the run's units of work from their start (the write lock taken) to their commit. */
function watchLockHolds(ctx: ServiceContext): LockHolds {
  const ledger = ctx.ledger
  const mutate = ledger.mutate.bind(ledger)
  let longest = 0
  ledger.mutate = async <T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> => {
    let start = 0
    try {
      return await mutate((uow) => {
        start = performance.now()
        return work(uow)
      })
    } finally {
      if (start > 0 && inRun.getStore()) longest = Math.max(longest, performance.now() - start)
    }
  }
  return {
    reset: () => (longest = 0),
    get longest() {
      return longest
    },
  }
}

interface Measured<T> {
  value: T
  ms: number
  /** Per write: from when it was due to when it committed. */
  latencies: number[]
  longestHold: number
}

/** Creates a manual transaction every 20 ms while `work` runs; each write's latency. */
async function writesDuring<T>(
  ctx: ServiceContext,
  accountId: string,
  holds: LockHolds,
  work: () => Promise<T>,
): Promise<Measured<T>> {
  const latencies: number[] = []
  const inFlight: Array<Promise<void>> = []
  const start = performance.now()
  let due = start
  let done = false
  let timer: NodeJS.Timeout | undefined
  const tick = () => {
    // Writes that fell due while the event loop was held up are sent now, late.
    while (due <= performance.now()) {
      const at = due
      inFlight.push(
        createTransaction(ctx, {
          account_id: accountId,
          amount: '-1.00',
          date: '2025-06-01',
          payee: 'Corner Shop',
        }).then(() => {
          latencies.push(performance.now() - at)
        }),
      )
      due += 20
    }
    if (!done) timer = setTimeout(tick, Math.max(0, due - performance.now()))
  }
  holds.reset()
  tick()
  const value = await inRun.run(true, work)
  const ms = performance.now() - start
  clearTimeout(timer)
  // The writes that fell due while the run held the event loop: sent now, each
  // measured from when it was due (as requests queued at the socket would be).
  done = true
  tick()
  await Promise.all(inFlight)
  return { value, ms, latencies, longestHold: holds.longest }
}

/** p50 and p99 (nearest rank) and the maximum. */
function percentiles(values: readonly number[]): [number, number, number] {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0
  return [at(0.5), at(0.99), sorted.at(-1) ?? 0]
}

// Benchmark (issue 16, "the event loop stays free"): does a mix of broad
// searches stall the other requests of `coffer serve`? The real program
// (dist/cli.js, built by `npm run bench`) serves a generated ledger of
// COFFER_BENCH_SEARCH_LOAD_ROWS transactions (default 200,000) as a child
// process, so that the clients here do not share its event loop. A probe sends
// GET /healthz and GET /api/v1/transactions?limit=100 every 20 ms (without
// waiting for the one before, so a stall is counted, not skipped), first alone
// (the baseline), then while two clients run the search mix in a loop. Once with
// search.workers = 0 (searches on the main thread, as before the read pool) and
// once with the default pool. Target: healthz and the list page p99 under
// 100 ms during the mix.
import { indexAllQueuedDocuments } from '../src/search/indexer.js'
import { generateLedger } from './lib/generate-ledger.js'
import { freshSqlite, openAnotherContext, perSecond, serveBuilt, timed } from './support.js'

const ROWS = Number(process.env.COFFER_BENCH_SEARCH_LOAD_ROWS ?? 200_000)
/** How long each phase (probe alone, probe beside the mix) runs. */
const PHASE_MS = Number(process.env.COFFER_BENCH_SEARCH_LOAD_MS ?? 12_000)
const PROBE_EVERY_MS = 20
const SEARCH_CLIENTS = 2
const TARGET_P99_MS = 100

const MIX = [
  'coffee',
  'coffee -starbucks',
  'NOT label:category=food',
  'amount:-100..-50',
  'date:2023-05',
  'starbucks seattle amount:<-15',
  'netflix OR spotify OR comcast',
]

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}

async function timedGet(url: string): Promise<number> {
  const started = performance.now()
  const res = await fetch(url)
  await res.arrayBuffer()
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`)
  return performance.now() - started
}

interface Probe {
  healthz: number[]
  list: number[]
}

/** Probes every PROBE_EVERY_MS until `until`, then waits for the last answers. */
async function probe(url: string, until: number): Promise<Probe> {
  const out: Probe = { healthz: [], list: [] }
  const pending: Promise<void>[] = []
  while (performance.now() < until) {
    pending.push(timedGet(`${url}/healthz`).then((ms) => void out.healthz.push(ms)))
    pending.push(
      timedGet(`${url}/api/v1/transactions?limit=100`).then((ms) => void out.list.push(ms)),
    )
    await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS))
  }
  await Promise.all(pending)
  return out
}

/** Runs the mix in a loop until `until`; the time of each search. */
async function searchLoop(url: string, until: number, start: number): Promise<number[]> {
  const times: number[] = []
  for (let i = start; performance.now() < until; i++) {
    const q = encodeURIComponent(MIX[i % MIX.length]!)
    times.push(await timedGet(`${url}/api/v1/transactions/search?q=${q}`))
  }
  return times
}

interface Figures {
  mode: string
  baseline: { healthz: number[]; list: number[] }
  loaded: { healthz: number[]; list: number[] }
  searches: number[]
}

async function measure(dir: string, path: string, workers: string | null): Promise<Figures> {
  const server = await serveBuilt(
    dir,
    path,
    workers === null ? {} : { SERVICE_SEARCH_WORKERS: workers },
  )
  try {
    // Warm: every query once (page cache, worker start).
    await Promise.all(
      MIX.map((q) =>
        timedGet(`${server.url}/api/v1/transactions/search?q=${encodeURIComponent(q)}`),
      ),
    )
    const baseline = await probe(server.url, performance.now() + PHASE_MS / 2)
    const until = performance.now() + PHASE_MS
    const [loaded, ...searches] = await Promise.all([
      probe(server.url, until),
      ...Array.from({ length: SEARCH_CLIENTS }, (_, c) => searchLoop(server.url, until, c * 3)),
    ])
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b)
    return {
      mode: workers === '0' ? 'search.workers = 0 (main thread)' : 'read pool (default size)',
      baseline: { healthz: sorted(baseline.healthz), list: sorted(baseline.list) },
      loaded: { healthz: sorted(loaded.healthz), list: sorted(loaded.list) },
      searches: sorted(searches.flat()),
    }
  } finally {
    await server.stop()
  }
}

function ms(value: number): string {
  return value.toFixed(1).padStart(8)
}

export async function benchSearchLoad(): Promise<void> {
  const db = await freshSqlite('search-load')
  await db.ctx.close() // schema only; generate with a bare driver handle
  try {
    const { ms: generateMs } = await timed(async () => generateLedger(db.path, { rows: ROWS }))
    const ctx = await openAnotherContext(db)
    const indexing = await timed(() => indexAllQueuedDocuments(ctx.ledger))
    await ctx.close()
    const runs = [await measure(db.dir, db.path, '0'), await measure(db.dir, db.path, null)]

    console.log(
      `\n## search-load (${ROWS.toLocaleString('en-US')} transactions, generated in ${(generateMs / 1000).toFixed(1)} s, ` +
        `${perSecond(indexing.value, indexing.ms)} search documents/s; ${SEARCH_CLIENTS} clients searching, a probe every ${PROBE_EVERY_MS} ms)`,
    )
    console.log(
      `  ${'mode'.padEnd(34)} ${'request'.padEnd(9)} ${'base p50'.padStart(8)} ${'base p99'.padStart(8)} ${'mix p50'.padStart(8)} ${'mix p99'.padStart(8)} ${'mix max'.padStart(8)} ${'p99/base'.padStart(9)}`,
    )
    for (const run of runs) {
      for (const kind of ['healthz', 'list'] as const) {
        const base = run.baseline[kind]
        const loaded = run.loaded[kind]
        const p99 = percentile(loaded, 99)
        console.log(
          `  ${run.mode.padEnd(34)} ${kind.padEnd(9)} ${ms(percentile(base, 50))} ${ms(percentile(base, 99))} ${ms(percentile(loaded, 50))} ${ms(p99)} ${ms(loaded[loaded.length - 1] ?? NaN)} ${`${(p99 / percentile(base, 99)).toFixed(1)}×`.padStart(9)}  ${p99 < TARGET_P99_MS ? 'ok' : 'MISSES TARGET'}`,
        )
      }
      console.log(
        `  ${run.mode.padEnd(34)} ${'searches'.padEnd(9)} ${run.searches.length} answered, p50 ${percentile(run.searches, 50).toFixed(0)} ms, p99 ${percentile(run.searches, 99).toFixed(0)} ms`,
      )
    }
    const [inline, pooled] = runs as [Figures, Figures]
    for (const kind of ['healthz', 'list'] as const) {
      const ratio = percentile(inline.loaded[kind], 99) / percentile(pooled.loaded[kind], 99)
      console.log(`  ${kind} p99 during the mix: main thread / pool = ${ratio.toFixed(1)}×`)
    }
    console.log(`  target: healthz and list p99 < ${TARGET_P99_MS} ms during the mix`)
  } finally {
    await db.dispose()
  }
}

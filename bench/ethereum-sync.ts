// Benchmark (issue #5, "Ethereum source"): one address with 50,000 transactions
// served by the fake explorer (test/fakes/explorer.ts, in a child process, as a
// remote explorer would be), synced end to end through the real path (explorer
// client → ledger rows → engine → ledger.mutate with history and events) with the
// rate limit set high. The baseline, measured in the same run against the same
// explorer, only fetches and parses the pages into ledger rows, persisting nothing:
// the gap between the two is what persisting costs once the pages have arrived.
// COFFER_BENCH_ETH_ROWS sets the size.
import { fork, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { loadConfig } from '../src/config/index.js'
import { openServiceContext } from '../src/app.js'
import type { ServiceContext } from '../src/context.js'
import type { IngestTransaction } from '../src/ledger/ingest.js'
import { createLogger } from '../src/log.js'
import { ExplorerClient } from '../src/sources/ethereum/explorer.js'
import { accountNameOf } from '../src/sources/ethereum/addresses.js'
import { ETHEREUM_ORGANIZATION } from '../src/sources/ethereum/index.js'
import { accountIdOf, ledgerRowOf } from '../src/sources/ethereum/ledger-row.js'
import { RateLimiter } from '../src/sources/ethereum/rate-limit.js'
import { SyncService } from '../src/sync/index.js'
import { mergeBatch } from '../src/sync/merge-batch.js'
import { zeroCounts } from '../src/sync/runs.js'
import { hashOf, startFakeExplorer, type FakeTx } from '../test/fakes/explorer.js'
import { perSecond, report, timed } from './support.js'

const ROWS = Number(process.env.COFFER_BENCH_ETH_ROWS ?? 50_000)
const ADDRESS = '0x' + '5a'.repeat(20)
const PEER = '0x' + '7c'.repeat(20)
/** High enough that the limit never waits: the figure is about rows, not politeness. */
const RATE_LIMIT = 100_000

/** A mix of receives, sends, reverted sends and contract creations, a few per block. */
function transactionOf(i: number): FakeTx {
  const kind = i % 4
  return {
    hash: hashOf(i + 1),
    block: 1_000 + Math.floor(i / 3),
    from: kind === 0 ? PEER : ADDRESS,
    to: kind === 0 ? ADDRESS : kind === 3 ? '' : PEER,
    ...(kind === 3 ? { contractAddress: '0x' + (i + 1).toString(16).padStart(40, '0') } : {}),
    value: `${(i % 977) + 1}${'0'.repeat(12)}${i % 10}`,
    gasUsed: String(21_000 + (i % 50_000)),
    gasPrice: `${(i % 90) + 10}000000000`,
    ...(kind === 2 && i % 8 === 2 ? { isError: '1' as const } : {}),
  }
}

interface Explorer {
  url: string
  apiKey: string
  requests(): Promise<number>
  stop(): void
}

/** In the child: serve ROWS transactions until told to stop; answer request counts. */
async function serveExplorer(rows: number): Promise<void> {
  const fake = await startFakeExplorer(null)
  for (let i = 0; i < rows; i++) fake.transactions.push(transactionOf(i))
  fake.balances.set(ADDRESS, '123456789000000000000')
  process.on('message', (message) => {
    if (message === 'count') process.send!({ requests: fake.requests.length })
    // Only the count is kept: the request log would grow without end.
    fake.requests.length = 0
  })
  process.send!({ url: fake.url, apiKey: fake.apiKey })
}

async function startExplorer(rows: number): Promise<Explorer> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--explorer', String(rows)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const first = await new Promise<{ url: string; apiKey: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { url: string; apiKey: string }))
    child.once('exit', (code) => reject(new Error(`fake explorer exited (${code})`)))
  })
  return {
    ...first,
    requests: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve((m as { requests: number }).requests))
        child.send('count')
      }),
    stop: () => child.kill(),
  }
}

/** Baseline: fetch every page and parse it into ledger rows; nothing is stored. */
async function fetchAndParse(explorer: Explorer, keep?: IngestTransaction[][]): Promise<number> {
  const client = new ExplorerClient({
    url: explorer.url,
    chainId: 1,
    apiKey: explorer.apiKey,
    limiter: new RateLimiter(RATE_LIMIT),
  })
  let rows = 0
  await client.balanceWei(ADDRESS)
  for await (const records of client.transactions(ADDRESS, 0, () => undefined)) {
    const page: IngestTransaction[] = []
    for (const record of records) {
      const row = ledgerRowOf(ADDRESS, record)
      if (row !== null) page.push(row)
    }
    rows += page.length
    keep?.push(page)
  }
  return rows
}

async function withContext<T>(
  explorer: Explorer,
  work: (ctx: ServiceContext) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-bench-eth-'))
  const { config } = loadConfig({
    file: null,
    env: {
      SERVICE_DATABASE_PATH: join(dir, 'coffer.db'),
      SERVICE_DATA_DIR: join(dir, 'data'),
      SERVICE_LOG_LEVEL: 'error',
      SERVICE_SYNC_LOOKBACK_DAYS: '0',
      SERVICE_ETHEREUM_API_KEY: explorer.apiKey,
      SERVICE_ETHEREUM_API_URL: explorer.url,
      SERVICE_ETHEREUM_ADDRESS: ADDRESS,
      SERVICE_ETHEREUM_RATE_LIMIT: String(RATE_LIMIT),
    },
  })
  const quiet = new Writable({ write: (_c, _e, cb) => cb() })
  const ctx = await openServiceContext(config, {
    logger: createLogger({ level: 'error', format: 'json', destination: quiet }),
  })
  try {
    return await work(ctx)
  } finally {
    await ctx.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Persisting alone: pages already in memory, merged the way the engine merges a batch. */
async function persistOnly(explorer: Explorer, pages: IngestTransaction[][]): Promise<number> {
  return withContext(explorer, async (ctx) => {
    async function* rows(): AsyncGenerator<IngestTransaction[]> {
      yield* pages
    }
    const counts = zeroCounts()
    const { ms } = await timed(() =>
      mergeBatch(
        ctx,
        'ethereum',
        {
          organizations: [ETHEREUM_ORGANIZATION],
          accounts: [
            {
              id: accountIdOf(ADDRESS),
              org_id: 'ethereum',
              name: accountNameOf(ADDRESS),
              currency: 'ETH',
              balance: '0',
            },
          ],
          transactions: rows(),
          summary: () => ({ skipped: 0, warnings: [] }),
        },
        counts,
        () => undefined,
      ),
    )
    if (counts.inserted !== ROWS) throw new Error(`persist-only inserted ${counts.inserted}`)
    return perSecond(ROWS, ms)
  })
}

async function syncEndToEnd(explorer: Explorer) {
  return withContext(explorer, async (ctx) => {
    const { engine } = new SyncService(ctx)
    const sync = () =>
      timed(async () => {
        const run = await (await engine.trigger({ trigger: 'cli', source: 'ethereum' })).done
        if (run.status !== 'success') throw new Error(`bench sync failed: ${run.error}`)
        return run.counts.ethereum!
      })
    const first = await sync()
    const firstRequests = await explorer.requests()
    const resync = await sync()
    const resyncRequests = await explorer.requests()
    await engine.stop()
    return { first, firstRequests, resync, resyncRequests }
  })
}

export async function benchEthereumSync(): Promise<void> {
  const explorer = await startExplorer(ROWS)
  try {
    const pages: IngestTransaction[][] = []
    await fetchAndParse(explorer, pages) // warms the explorer and the JIT; keeps the rows
    await explorer.requests()
    const baseline = await timed(() => fetchAndParse(explorer))
    const baselineRequests = await explorer.requests()
    if (baseline.value !== ROWS) throw new Error(`baseline parsed ${baseline.value} of ${ROWS}`)
    const persist = await persistOnly(explorer, pages)
    const { first, firstRequests, resync, resyncRequests } = await syncEndToEnd(explorer)
    if (first.value.inserted !== ROWS || resync.value.unchanged !== ROWS) {
      throw new Error(
        `bench sync: ${JSON.stringify(first.value)} then ${JSON.stringify(resync.value)}`,
      )
    }
    report(
      `ethereum sync: one address, ${ROWS} transactions from the fake explorer (SQLite)`,
      {
        label: 'sync end to end (fetch + merge + history + events)',
        perSecond: perSecond(ROWS, first.ms),
      },
      { label: 'fetch + parse the pages only', perSecond: perSecond(ROWS, baseline.ms) },
    )
    console.log(
      `  persisting once pages arrive (merge of pages in memory) ${String(persist).padStart(9)} rows/s   target: ≥ 10,000 rows/s`,
    )
    console.log(
      `  explorer requests: sync ${firstRequests}, fetch-only ${baselineRequests} (${ROWS} rows, pages of ≤ 1000)`,
    )
    console.log(
      `  unchanged re-sync: ${perSecond(ROWS, resync.ms)} rows/s, ${resyncRequests} requests`,
    )
  } finally {
    explorer.stop()
  }
}

if (process.argv[2] === '--explorer') await serveExplorer(Number(process.argv[3]))

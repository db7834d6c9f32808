// Benchmark (issue "One event path"): how soon an event committed by another
// process reaches this process's live consumers, on SQLite, where no notice
// crosses processes and the log tail polls. Two service contexts open one
// database file through separate connections, as a server and a `coffer sync`
// from cron do; the baseline is the same write seen by the writer's own bus.
import { createAccount } from '../src/ledger/accounts.js'
import { createTransaction } from '../src/ledger/transactions.js'
import { TAIL_POLL_MS } from '../src/events/publisher.js'
import type { EventBus } from '../src/events/bus.js'
import { freshSqlite, openAnotherContext } from './support.js'

const WRITES = Number(process.env.COFFER_BENCH_LATENCY_WRITES ?? 100)

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

/** Resolves with the arrival time of the next `transaction.created` on `bus`. */
function nextArrival(bus: EventBus): Promise<number> {
  const sub = bus.subscribe()
  return (async () => {
    try {
      for (;;) {
        const event = await sub.next()
        if (!event) throw new Error('bus closed')
        if (event.type === 'transaction.created') return performance.now()
      }
    } finally {
      sub.close()
    }
  })()
}

export async function benchEventLatency(): Promise<void> {
  const writer = await freshSqlite('latency')
  const server = await openAnotherContext(writer)
  // The tail's poll timer does not hold the process open (a server's socket does).
  const keepAlive = setInterval(() => undefined, 1_000)
  try {
    const account = await createAccount(writer.ctx, { name: 'Bench', currency: 'USD' })
    const local: number[] = []
    const remote: number[] = []
    for (let i = 0; i < WRITES; i++) {
      const seenHere = nextArrival(writer.ctx.bus)
      const seenThere = nextArrival(server.bus)
      const start = performance.now()
      await createTransaction(writer.ctx, {
        account_id: account.id,
        amount: `-${i}.50`,
        date: '2024-03-01',
      })
      local.push((await seenHere) - start)
      remote.push((await seenThere) - start)
      // Commits land at random points of the other process's poll.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * TAIL_POLL_MS))
    }
    local.sort((a, b) => a - b)
    remote.sort((a, b) => a - b)
    const row = (label: string, values: number[]) =>
      `  ${label.padEnd(44)} p50 ${percentile(values, 50).toFixed(1).padStart(7)} ms   p95 ${percentile(values, 95).toFixed(1).padStart(7)} ms   max ${values.at(-1)!.toFixed(1).padStart(7)} ms`
    console.log(`\n## event latency: commit → live consumer, ${WRITES} writes (SQLite)`)
    console.log(row('another process (log tail, poll)', remote))
    console.log(row('the writing process (baseline, same run)', local))
    console.log(
      `  p95 other / p95 own = ${(percentile(remote, 95) / percentile(local, 95)).toFixed(1)}×   target: under 1000 ms`,
    )
  } finally {
    clearInterval(keepAlive)
    await server.close()
    await writer.dispose()
  }
}

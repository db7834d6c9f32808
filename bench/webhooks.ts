// Benchmark (issue "Webhooks"): (1) events per second delivered by the dispatcher to
// a local receiver that answers 200, beside plain signed POSTs from 8 concurrent
// senders to the same receiver; (2) the ledger write rate with 8 webhooks subscribed
// to every event versus none, in the same run (target: under 10% cost). The
// receiver runs in a child process, as a real one would not share our event loop.
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { createAccount } from '../src/ledger/accounts.js'
import { ingestBatchInUnit } from '../src/ledger/ingest.js'
import { createTransaction } from '../src/ledger/transactions.js'
import { systemClock } from '../src/clock.js'
import { logHead } from '../src/events/store.js'
import { attemptDelivery } from '../src/webhooks/delivery.js'
import { WebhookDispatcher } from '../src/webhooks/dispatcher.js'
import { createWebhook } from '../src/webhooks/registry.js'
import { freshSqlite, perSecond, report, timed } from './support.js'

const DELIVERY_EVENTS = Number(process.env.COFFER_BENCH_WEBHOOK_EVENTS ?? 4_000)
const DELIVERY_BATCH = 200
const WRITE_ITEMS = Number(process.env.COFFER_BENCH_ITEMS ?? 5_000)
const SUBSCRIBED = 8

const RECEIVER_SOURCE = `
const http = require('node:http')
const server = http.createServer((req, res) => {
  req.resume()
  req.on('end', () => res.writeHead(200).end())
})
server.keepAliveTimeout = 30000
server.listen(0, '127.0.0.1', () => console.log(server.address().port))
`

async function startReceiver(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', RECEIVER_SOURCE], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout })
  const port = await new Promise<string>((resolve) => lines.once('line', resolve))
  return { url: `http://127.0.0.1:${port}/hook`, child }
}

function txn(i: number) {
  return {
    id: `csv:bench-${i}`,
    account_id: 'csv:bench',
    amount: `-${(i % 9973) + 1}.${String(i % 100).padStart(2, '0')}`,
    date: `2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
    description: `Bench ${i}`,
  }
}

/** Events delivered per second by the dispatcher, fed in batches that fit the queue. */
async function dispatcherDeliveryRate(url: string): Promise<number> {
  const db = await freshSqlite('webhook-delivery')
  const dispatcher = new WebhookDispatcher(db.ctx)
  try {
    await createWebhook(db.ctx, { url, event_types: ['transaction.created'] })
    await dispatcher.start()
    const { ms } = await timed(async () => {
      for (let start = 0; start < DELIVERY_EVENTS; start += DELIVERY_BATCH) {
        const transactions = Array.from({ length: DELIVERY_BATCH }, (_, i) => txn(start + i))
        await db.ctx.ledger.mutate((uow) =>
          ingestBatchInUnit(uow, {
            source: 'csv',
            organizations: [{ id: 'csv:bank', name: 'Bank' }],
            accounts: [
              { id: 'csv:bench', org_id: 'csv:bank', name: 'Bench', currency: 'USD', balance: '0' },
            ],
            transactions,
          }),
        )
        await dispatcher.whenSettled(await logHead(db.ctx.db.kysely))
      }
    })
    const dropped = (await db.ctx.metrics.webhookDropped.get()).values[0]?.value ?? 0
    if (dropped > 0) console.log(`  (warning: ${dropped} jobs dropped)`)
    return perSecond(DELIVERY_EVENTS, ms)
  } finally {
    await dispatcher.stop()
    await db.dispose()
  }
}

/** The same number of signed POSTs from 8 concurrent senders, no log or queue. */
async function plainPostRate(url: string): Promise<number> {
  const body = JSON.stringify({ type: 'transaction.created', data: txn(0) })
  let next = 0
  const { ms } = await timed(() =>
    Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < DELIVERY_EVENTS) {
          next += 1
          const result = await attemptDelivery(
            { url, secret: 'whsec_bench' },
            { type: 'transaction.created', event_id: String(next) },
            body,
            { clock: systemClock, timeoutMs: 10_000 },
          )
          if (!result.ok) throw new Error(`bench receiver answered ${result.error}`)
        }
      }),
    ),
  )
  return perSecond(DELIVERY_EVENTS, ms)
}

/** Manual transactions per second through the mutation path, with `webhooks` subscribed. */
async function ledgerWriteRate(url: string, webhooks: number): Promise<number> {
  const db = await freshSqlite(`webhook-write-${webhooks}`)
  const dispatcher = new WebhookDispatcher(db.ctx)
  try {
    for (let i = 0; i < webhooks; i++) {
      await createWebhook(db.ctx, { url: `${url}?n=${i}`, event_types: ['*'] })
    }
    await dispatcher.start()
    const account = await createAccount(db.ctx, { name: 'Bench', currency: 'USD' })
    const { ms } = await timed(async () => {
      for (let i = 0; i < WRITE_ITEMS; i++) {
        const t = txn(i)
        await createTransaction(db.ctx, {
          account_id: account.id,
          amount: t.amount,
          date: t.date,
          description: t.description,
        })
      }
    })
    return perSecond(WRITE_ITEMS, ms)
  } finally {
    await dispatcher.stop()
    await db.dispose()
  }
}

export async function benchWebhooks(): Promise<void> {
  const receiver = await startReceiver()
  try {
    // Warm up the HTTP client, the JIT and the page cache for both sides.
    await plainPostRate(receiver.url)
    const plain = await plainPostRate(receiver.url)
    const delivered = await dispatcherDeliveryRate(receiver.url)
    console.log(
      `\n## webhooks: ${DELIVERY_EVENTS} transaction.created events to one local receiver`,
    )
    console.log(
      `  ${'delivered by the dispatcher'.padEnd(44)} ${String(delivered).padStart(9)} events/s`,
    )
    console.log(
      `  ${'plain signed POSTs, 8 concurrent senders'.padEnd(44)} ${String(plain).padStart(9)} requests/s  (baseline, same run)`,
    )
    console.log(`  baseline / figure = ${(plain / delivered).toFixed(2)}×`)

    // Alternate the two setups and keep each one's best run, so drift hits both.
    const none: number[] = []
    const subscribed: number[] = []
    for (let round = 0; round < 2; round++) {
      none.push(await ledgerWriteRate(receiver.url, 0))
      subscribed.push(await ledgerWriteRate(receiver.url, SUBSCRIBED))
    }
    report(
      `webhooks: ledger write rate, ${WRITE_ITEMS} manual transactions (SQLite)`,
      {
        label: `${SUBSCRIBED} webhooks subscribed to every event`,
        perSecond: Math.max(...subscribed),
      },
      { label: 'no webhook subscribed', perSecond: Math.max(...none) },
      'under 10% cost (ratio ≤ 1.11×)',
    )
  } finally {
    receiver.child.kill()
  }
}

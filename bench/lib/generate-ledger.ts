// A generated ledger for the search and rules benchmarks, written with raw bulk
// SQL into a database the real migrations built. Deterministic (a seeded
// generator): the same rows every run, so figures compare across runs.
//
// Shape, per row: one of 200 merchants as payee and in the description with one
// of 10 cities ("Card purchase at <merchant>, <city> #<n>"; each of the 20 named
// merchants such as Walgreens is on 0.25% of rows, a coffee shop on about 13%,
// Seattle on 10%: the query mix of issue 16); a date spread over 2015–2024; an amount
// mostly between -100 and 100 (about 5% below -100); a `category` label on 70%
// of rows (12 values), a `trip` label on 2%; extension `tax.deductible` on 10%
// (true on a third of those), `tax.rate` on 5%. Three accounts.
import pg from 'pg'
import SqliteDatabase from '../../src/db/sqlite-binding.js'
import { RECOUNT_TRANSACTIONS_SQL } from '../../src/ledger/transaction-counts.js'
import type { BenchDb } from '../support.js'

export const CATEGORIES = [
  'food',
  'rent',
  'travel',
  'fuel',
  'utilities',
  'health',
  'shopping',
  'fun',
  'gifts',
  'education',
  'fees',
  'other',
] as const

const MERCHANT_STEMS = [
  'Starbucks',
  'Blue Bottle',
  'Whole Foods',
  'Shell',
  'Uber',
  'Amazon',
  'Netflix',
  'Spotify',
  'Delta',
  'Ikea',
  'Target',
  'Costco',
  'Walgreens',
  'Chevron',
  'Lyft',
  'Airbnb',
  'Trader Joes',
  'Safeway',
  'Home Depot',
  'Comcast',
]
/** The shops: about one in seven is a coffee shop. */
const SHOPS = Array.from({ length: 180 }, (_, i) => (i < 25 ? `Corner Coffee ${i}` : `Shop ${i}`))
export const CITIES = [
  'Seattle',
  'Portland',
  'Austin',
  'Boston',
  'Denver',
  'Chicago',
  'Miami',
  'Phoenix',
  'Atlanta',
  'Dallas',
] as const
/** 200 merchants: 20 named ones (each on 0.25% of rows) and 180 shops for the rest. */
export const MERCHANTS: readonly string[] = [...MERCHANT_STEMS, ...SHOPS]

function merchantOf(rand: () => number): string {
  return rand() < 0.05
    ? MERCHANT_STEMS[Math.floor(rand() * MERCHANT_STEMS.length)]!
    : MERCHANTS[MERCHANT_STEMS.length + Math.floor(rand() * 180)]!
}

export const ACCOUNTS = [
  { id: 'bench:checking', name: 'Everyday Checking' },
  { id: 'bench:card', name: 'Travel Card' },
  { id: 'bench:savings', name: 'Savings' },
] as const

const UNIT_ROWS = 10_000

function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function amountOf(rand: () => number): string {
  const roll = rand()
  // 5% large debits, 10% credits, the rest small debits; always two decimals.
  const cents =
    roll < 0.05
      ? -(10_001 + Math.floor(rand() * 500_000))
      : roll < 0.15
        ? 1 + Math.floor(rand() * 300_000)
        : -(1 + Math.floor(rand() * 10_000))
  const sign = cents < 0 ? '-' : ''
  const abs = Math.abs(cents)
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`
}

function dateOf(rand: () => number): string {
  const day = Math.floor(rand() * 3652) // 2015-01-01 .. 2024-12-30
  const at = new Date(Date.UTC(2015, 0, 1) + day * 86_400_000 + Math.floor(rand() * 86_400) * 1000)
  return `${at.toISOString().slice(0, 19)}Z`
}

/** One generated transaction with its labels and extensions. */
export interface LedgerRow {
  id: string
  accountId: string
  amount: string
  date: string
  description: string
  payee: string
  memo: string | null
  pending: 0 | 1
  labels: Array<[key: string, value: string]>
  extensions: Array<[key: string, value: string]>
}

/**
 * The rows of a generated ledger, in batches of up to `batchRows`: the one
 * source of both writers, so SQLite and PostgreSQL hold the very same ledger.
 */
export function* ledgerRows(
  options: { rows: number; seed?: number },
  batchRows: number,
): Generator<LedgerRow[]> {
  const rand = seeded(options.seed ?? 1)
  for (let start = 0; start < options.rows; start += batchRows) {
    const batch: LedgerRow[] = []
    for (let i = start; i < Math.min(options.rows, start + batchRows); i++) {
      const id = `csv:${String(i).padStart(8, '0')}`
      const merchant = merchantOf(rand)
      const labels: LedgerRow['labels'] = []
      const extensions: LedgerRow['extensions'] = []
      if (rand() < 0.7) labels.push(['category', CATEGORIES[Math.floor(rand() * 12)]!])
      if (rand() < 0.02) labels.push(['trip', rand() < 0.5 ? 'paris' : 'tokyo'])
      if (rand() < 0.1) extensions.push(['tax.deductible', rand() < 1 / 3 ? 'true' : 'false'])
      if (rand() < 0.05) extensions.push(['tax.rate', String(Math.floor(rand() * 25))])
      batch.push({
        id,
        accountId: ACCOUNTS[Math.floor(rand() * ACCOUNTS.length)]!.id,
        amount: amountOf(rand),
        date: dateOf(rand),
        description: `Card purchase at ${merchant}, ${CITIES[Math.floor(rand() * CITIES.length)]!} #${i}`,
        payee: merchant,
        memo: rand() < 0.1 ? `memo ${i % 1000}` : null,
        pending: rand() < 0.01 ? 1 : 0,
        labels,
        extensions,
      })
    }
    yield batch
  }
}

/** The created/updated/synced stamp of every generated row. */
const GENERATED_AT = '2025-01-01T00:00:00Z'

/**
 * Fills the (migrated, empty) SQLite database at `path` with `rows` transactions
 * and their labels and extensions. Every transaction is queued for its search
 * document, as the ledger's insert path does; the caller builds them
 * (src/search/indexer.ts), as `coffer serve` does after an import.
 */
export function generateLedger(path: string, options: { rows: number; seed?: number }): void {
  const sqlite = new SqliteDatabase(path)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  try {
    const now = GENERATED_AT
    sqlite
      .prepare(
        `insert or ignore into organizations (id, name, domain, source, created_at, updated_at) values ('manual', 'Manual', null, 'manual', ?, ?)`,
      )
      .run(now, now)
    const insertAccount = sqlite.prepare(
      `insert into accounts (id, org_id, name, currency, balance, source, created_at, updated_at, synced_at) values (?, 'manual', ?, 'USD', '0', 'manual', ?, ?, ?)`,
    )
    for (const account of ACCOUNTS) insertAccount.run(account.id, account.name, now, now, now)
    const insertTx = sqlite.prepare(
      `insert into transactions (id, account_id, amount, date, description, payee, memo, pending, source, created_at, updated_at, synced_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, 'csv', ?, ?, ?)`,
    )
    const insertLabel = sqlite.prepare(
      `insert into transaction_labels (transaction_id, key, value) values (?, ?, ?)`,
    )
    const insertExtension = sqlite.prepare(
      `insert into transaction_extensions (transaction_id, key, value) values (?, ?, ?)`,
    )
    const unit = sqlite.transaction((batch: LedgerRow[]) => {
      for (const row of batch) {
        for (const [key, value] of row.labels) insertLabel.run(row.id, key, value)
        for (const [key, value] of row.extensions) insertExtension.run(row.id, key, value)
        insertTx.run(
          row.id,
          row.accountId,
          row.amount,
          row.date,
          row.description,
          row.payee,
          row.memo,
          row.pending,
          now,
          now,
          now,
        )
      }
    })
    for (const batch of ledgerRows(options, UNIT_ROWS)) unit(batch)
    sqlite.exec(
      'insert into search_pending (transaction_id) select id from transactions where true on conflict do nothing',
    )
    for (const statement of RECOUNT_TRANSACTIONS_SQL) sqlite.exec(statement)
    // Their summary days, as the ledger's insert step queues them (src/search/rollups.ts).
    sqlite.exec(
      'insert into summary_pending (day, account_id) select distinct substr(date, 1, 10), account_id from transactions where true on conflict do nothing',
    )
    // Statistics for the tables filled here only. The search index is built
    // later (bench: indexAllQueuedDocuments): a row count of its empty FTS5
    // shadow table taken now makes SQLite delete merged segments by scanning the
    // whole index (a full scan per merge: seconds per write at a million rows).
    for (const table of ['accounts', ...GENERATED_TABLES]) sqlite.exec(`analyze ${table}`)
  } finally {
    sqlite.close()
  }
}

/** Rows per statement on PostgreSQL: each table's batch is one INSERT over arrays. */
const POSTGRES_BATCH_ROWS = 5_000
const GENERATED_TABLES = ['transactions', 'transaction_labels', 'transaction_extensions']

/**
 * Fills the (migrated, empty) PostgreSQL schema that `dsn` selects (its
 * search_path) with the same rows as generateLedger, then vacuums and analyzes
 * it. No search documents: the pg_trgm indexes are the database's. The
 * secondary indexes of the generated tables are dropped for the load and
 * created again from their own definitions (as pg_restore does), so the schema
 * ends as the migrations built it.
 */
export async function generateLedgerPostgres(
  dsn: string,
  options: { rows: number; seed?: number },
): Promise<void> {
  const client = new pg.Client({ connectionString: dsn })
  await client.connect()
  try {
    const now = GENERATED_AT
    await client.query(`set maintenance_work_mem = '256MB'`)
    await client.query('begin')
    await client.query(
      `insert into organizations (id, name, domain, source, created_at, updated_at) values ('manual', 'Manual', null, 'manual', $1, $1) on conflict do nothing`,
      [now],
    )
    for (const account of ACCOUNTS) {
      await client.query(
        `insert into accounts (id, org_id, name, currency, balance, source, created_at, updated_at, synced_at) values ($1, 'manual', $2, 'USD', '0', 'manual', $3, $3, $3)`,
        [account.id, account.name, now],
      )
    }
    // Indexes that back a constraint (primary keys) stay.
    const { rows: indexes } = await client.query<{ name: string; definition: string }>(
      `select i.indexname as name, i.indexdef as definition from pg_indexes i
       where i.schemaname = current_schema() and i.tablename = any($1)
         and not exists (select 1 from pg_constraint c
           where c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`,
      [GENERATED_TABLES],
    )
    for (const { name } of indexes)
      await client.query(`drop index ${client.escapeIdentifier(name)}`)
    for (const batch of ledgerRows(options, POSTGRES_BATCH_ROWS)) {
      await client.query(
        `insert into transactions (id, account_id, amount, date, description, payee, memo, pending, source, created_at, updated_at, synced_at)
         select t.*, 'csv', $9, $9, $9
         from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::integer[]) as t`,
        [
          batch.map((r) => r.id),
          batch.map((r) => r.accountId),
          batch.map((r) => r.amount),
          batch.map((r) => r.date),
          batch.map((r) => r.description),
          batch.map((r) => r.payee),
          batch.map((r) => r.memo),
          batch.map((r) => r.pending),
          now,
        ],
      )
      for (const [table, pairs] of [
        ['transaction_labels', batch.flatMap((r) => r.labels.map((l) => [r.id, ...l]))],
        ['transaction_extensions', batch.flatMap((r) => r.extensions.map((e) => [r.id, ...e]))],
      ] as const) {
        await client.query(
          `insert into ${table} (transaction_id, key, value)
           select * from unnest($1::text[], $2::text[], $3::text[])`,
          [0, 1, 2].map((column) => pairs.map((p) => p[column])),
        )
      }
    }
    for (const { definition } of indexes) await client.query(definition)
    for (const statement of RECOUNT_TRANSACTIONS_SQL) await client.query(statement)
    await client.query('commit')
    // Vacuum as well: it sets the visibility map, as autovacuum does soon after a
    // bulk load on a default server, so counts can be index-only scans.
    await client.query(`vacuum (analyze) accounts, ${GENERATED_TABLES.join(', ')}`)
  } catch (error) {
    await client.query('rollback').catch(() => {})
    throw new Error('bench: generating the PostgreSQL ledger', { cause: error })
  } finally {
    await client.end()
  }
}

/** Fills a fresh bench database (bench/support.ts) on its own engine. */
export async function generateLedgerIn(
  db: Pick<BenchDb, 'path' | 'dsn'>,
  options: { rows: number; seed?: number },
): Promise<void> {
  if (db.dsn === null) generateLedger(db.path, options)
  else await generateLedgerPostgres(db.dsn, options)
}

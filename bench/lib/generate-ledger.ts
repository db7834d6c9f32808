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
import SqliteDatabase from '../../src/db/sqlite-binding.js'

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

/**
 * Fills the (migrated, empty) SQLite database at `path` with `rows` transactions
 * and their labels and extensions. Every transaction is queued for its search
 * document, as the ledger's insert path does; the caller builds them
 * (src/search/indexer.ts), as `coffer serve` does after an import.
 */
export function generateLedger(path: string, options: { rows: number; seed?: number }): void {
  const rand = seeded(options.seed ?? 1)
  const sqlite = new SqliteDatabase(path)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  try {
    const now = '2025-01-01T00:00:00Z'
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
    const unit = sqlite.transaction((start: number, end: number) => {
      for (let i = start; i < end; i++) {
        const id = `csv:${String(i).padStart(8, '0')}`
        const merchant = merchantOf(rand)
        if (rand() < 0.7) insertLabel.run(id, 'category', CATEGORIES[Math.floor(rand() * 12)]!)
        if (rand() < 0.02) insertLabel.run(id, 'trip', rand() < 0.5 ? 'paris' : 'tokyo')
        if (rand() < 0.1)
          insertExtension.run(id, 'tax.deductible', rand() < 1 / 3 ? 'true' : 'false')
        if (rand() < 0.05) insertExtension.run(id, 'tax.rate', String(Math.floor(rand() * 25)))
        insertTx.run(
          id,
          ACCOUNTS[Math.floor(rand() * ACCOUNTS.length)]!.id,
          amountOf(rand),
          dateOf(rand),
          `Card purchase at ${merchant}, ${CITIES[Math.floor(rand() * CITIES.length)]!} #${i}`,
          merchant,
          rand() < 0.1 ? `memo ${i % 1000}` : null,
          rand() < 0.01 ? 1 : 0,
          now,
          now,
          now,
        )
      }
    })
    for (let i = 0; i < options.rows; i += UNIT_ROWS) unit(i, Math.min(options.rows, i + UNIT_ROWS))
    sqlite.exec(
      'insert into search_pending (transaction_id) select id from transactions where true on conflict do nothing',
    )
    sqlite.exec('analyze')
  } finally {
    sqlite.close()
  }
}

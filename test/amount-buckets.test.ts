// SQLite's index of amount buckets (migration 0018, src/search/amount-bucket.ts).
// A ledger upgraded through the migration answers amount searches exactly from
// it, an import that died with the old index dropped does not build that one
// again, searches use the new index, and amounts at and beside the powers of
// ten (where log10 rounds) are found on the right side of every bound.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { compareDecimal } from '../src/decimal.js'
import { amountBucketSql } from '../src/search/amount-bucket.js'
import { processSandbox, startTestApp, type TestAppHandle } from './helpers/app.js'
import { createAccount, createTransaction } from './helpers/ledger.js'
import { ledgerAtSchema } from './helpers/older-schema.js'

const BEFORE = '0017-transactions-fillfactor'
const AT = '2024-05-01T00:00:00Z'

/** id and amount: either side of both bounds of -100..-50, and inside the bands around them. */
const ROWS = [
  ['man_a', '-100'],
  ['man_b', '-100.0000000000000000001'],
  ['man_c', '-75.25'],
  ['man_d', '-50'],
  ['man_e', '-49.9999999999999999999'],
  ['man_f', '12'],
] as const

async function searchIds(app: TestAppHandle, q: string): Promise<{ ids: string[]; total: number }> {
  const res = await app.request(
    'GET',
    `/api/v1/transactions/search?q=${encodeURIComponent(q)}&limit=500`,
  )
  assert.equal(res.status, 200, res.text)
  const ids = (res.body.transactions as Array<{ id: string }>).map((tx) => tx.id).sort()
  return { ids, total: res.body.total as number }
}

test('a ledger upgraded through 0018 has buckets instead of the index of amounts alone, and answers amount ranges exactly', async (t) => {
  const sandbox = await processSandbox(t, 'upgrade-0018')
  if (sandbox.schema) return t.skip('SQLite only: PostgreSQL keeps its numeric amount index')
  const rows = ROWS.map(([id, amount]) => ({ id, amount, description: 'Groceries' }))
  await ledgerAtSchema(sandbox, BEFORE, rows, async (k) => {
    // A first import that died part-way: the index dropped, its build still listed.
    const { rows } = await sql<{ definition: string }>`
      select sql as definition from sqlite_master where name = 'transactions_amount_real'`.execute(
      k,
    )
    assert.equal(rows.length, 1, 'the schema before 0018 has the index')
    await sql`drop index transactions_amount_real`.execute(k)
    await sql`insert into deferred_indexes (name, definition, table_name, deferred_at)
      values ('transactions_amount_real', ${rows[0]!.definition}, 'transactions', ${AT})`.execute(k)
  })

  const app = await startTestApp(t, { reuse: { dir: sandbox.dir, schema: sandbox.schema } })
  assert.deepEqual(await searchIds(app, 'amount:-100..-50'), {
    ids: ['man_a', 'man_c', 'man_d'],
    total: 3,
  })
  const k = app.ctx.db.kysely
  const left = await sql<{ name: string }>`
    select name from sqlite_master where name = 'transactions_amount_real'
    union all select name from deferred_indexes`.execute(k)
  assert.deepEqual(left.rows, [], 'neither the old index nor its deferred build is left')
  // The index holds the expression the searches build, so that the planner uses it.
  const index = await sql<{ definition: string }>`
    select sql as definition from sqlite_master where name = 'transactions_amount_bucket'`.execute(
    k,
  )
  assert.ok(index.rows[0]?.definition.includes(amountBucketSql('cast(amount as real)')))
  const plan = await sql<{ detail: string }>`explain query plan select count(*) from transactions
    where ${sql.raw(amountBucketSql('cast(transactions.amount as real)'))} between -40000 and -30000`.execute(
    k,
  )
  assert.match(plan.rows.map((r) => r.detail).join('\n'), /transactions_amount_bucket/)
})

test('amounts at and beside the powers of ten fall on the right side of every bound', async (t) => {
  const app = await startTestApp(t)
  const acct = await createAccount(app, { name: 'Cash', currency: 'USD' })
  const amounts: string[] = []
  for (const power of [
    '0.001',
    '0.1',
    '1',
    '10',
    '100',
    '1000',
    '1000000',
    '10000000000000000000000',
  ]) {
    for (const nudge of ['', '0000000000000000001', '9999999999999999999']) {
      // power, a hair above it, and a hair below the next digit's worth of it.
      const value = nudge === '' ? power : `${power}${power.includes('.') ? '' : '.'}${nudge}`
      amounts.push(value, `-${value}`)
    }
    // Just below the power: 99.9999…, 0.0999….
    const below = power.includes('.')
      ? `${power.slice(0, -1)}0${'9'.repeat(20)}`
      : `${String(BigInt(power) - 1n)}.${'9'.repeat(20)}`
    amounts.push(below, `-${below}`)
  }
  amounts.push('0', '-0.00', '12.50', '-12.5')
  const ids = new Map<string, string>()
  for (const amount of amounts) {
    const tx = await createTransaction(app, { account_id: acct.id, amount, date: '2024-03-01' })
    ids.set(tx.id as string, amount)
  }
  const queries: Array<[string, (a: string) => boolean]> = []
  for (const bound of [
    '1000',
    '-1000',
    '100',
    '-100',
    '0.1',
    '-0.1',
    '1',
    '10000000000000000000000',
    '12.5',
  ]) {
    queries.push(
      [`amount:>=${bound}`, (a) => compareDecimal(a, bound) >= 0],
      [`amount:<${bound}`, (a) => compareDecimal(a, bound) < 0],
      [`amount:=${bound}`, (a) => compareDecimal(a, bound) === 0],
      [`-amount:=${bound}`, (a) => compareDecimal(a, bound) !== 0],
    )
  }
  queries.push([
    'amount:-1000..-0.1',
    (a) => compareDecimal(a, '-1000') >= 0 && compareDecimal(a, '-0.1') <= 0,
  ])
  for (const [q, accepts] of queries) {
    const expected = [...ids]
      .filter(([, amount]) => accepts(amount))
      .map(([id]) => id)
      .sort()
    const found = await searchIds(app, q)
    assert.deepEqual(found.ids, expected, q)
    assert.equal(found.total, expected.length, q)
  }
})

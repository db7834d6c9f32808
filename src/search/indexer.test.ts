// The SQLite search documents: a new transaction's are written with it; a queued
// transaction must still be found (it is a candidate until indexed), an indexed
// one through its document, and edits and deletes must never leave a stale answer.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bareContext } from '../../test/helpers/context.js'
import { csvBatch, csvRows } from '../../test/helpers/ledger.js'
import { CompiledQuery, sql } from 'kysely'
import { createAccount } from '../ledger/accounts.js'
import { setTransactionLabels } from '../ledger/labels.js'
import { createTransaction, deleteTransaction, updateTransaction } from '../ledger/transactions.js'
import { ingestBatchInUnit } from '../ledger/ingest.js'
import { writeKeyedValuesManyInUnit } from '../ledger/keyed-values.js'
import { LABELS } from '../ledger/labels.js'
import { findTransactionsForChange } from '../ledger/snapshots.js'
import {
  documentNumbersOf,
  indexAllQueuedDocuments,
  indexQueuedDocuments,
  KEYS_DOCUMENTS_PER_UNIT,
} from './indexer.js'
import { searchTransactions } from './service.js'

test('new transactions are indexed at once; queued and indexed ones answer alike; edits and deletes re-queue', async (t) => {
  // A bare service context: no indexer runs unless this test runs it.
  const ctx = await bareContext(t)
  const db = ctx.db.kysely
  const count = async (table: 'search_pending' | 'search_keys_pending') =>
    (await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db)).rows[0]!.n
  const queued = async () => (await count('search_pending')) + (await count('search_keys_pending'))
  const keysDocuments = async (match: string) =>
    (
      await sql<{
        n: number
      }>`select count(*) as n from search_keys where search_keys match ${match}`.execute(db)
    ).rows[0]!.n
  const found = async (q: string) =>
    (await searchTransactions(ctx, { q })).transactions.map((tx) => tx.description)

  const account = await createAccount(ctx, { name: 'Everyday', currency: 'USD' })
  const rows = []
  for (let i = 0; i < 5; i++) {
    rows.push(
      await createTransaction(ctx, {
        account_id: account.id,
        amount: `-${i + 1}.00`,
        date: `2024-01-0${i + 1}`,
        description: i === 0 ? 'Zanzibar coffee' : `Groceries ${i}`,
      }),
    )
  }
  // New transactions get their documents in the unit that inserts them: nothing queued.
  assert.equal(await queued(), 0)
  assert.deepEqual(await found('zanzibar'), ['Zanzibar coffee'])

  // Queued (as migration 0004's backfill queues every row), nothing rebuilt: found all the same.
  await sql`insert into search_pending (transaction_id) select id from transactions`.execute(db)
  assert.equal(await queued(), 5)
  assert.deepEqual(await found('zanzibar'), ['Zanzibar coffee'])

  // Indexed in batches smaller than the queue.
  assert.equal(await indexQueuedDocuments(ctx.ledger, 3), 3)
  assert.equal(await indexAllQueuedDocuments(ctx.ledger), 2)
  assert.equal(await queued(), 0)
  assert.deepEqual(await found('zanzibar'), ['Zanzibar coffee'])
  assert.deepEqual(await found('groceries').then((d) => d.length), 4)

  // An edit re-queues; the old text no longer matches, the new one does, indexed or not.
  // A label change writes the transaction's keys document as it commits: nothing queued.
  await updateTransaction(ctx, rows[0]!.id, { description: 'Kilimanjaro tea' })
  await setTransactionLabels(ctx, rows[1]!.id, { trip: 'serengeti' })
  assert.equal(await count('search_pending'), 1)
  assert.equal(await count('search_keys_pending'), 0)
  assert.equal(await keysDocuments('"serengeti"'), 1)
  for (const state of ['queued', 'indexed']) {
    assert.deepEqual(await found('zanzibar'), [], state)
    assert.deepEqual(await found('kilimanjaro'), ['Kilimanjaro tea'], state)
    assert.deepEqual(await found('serengeti'), ['Groceries 1'], state)
    assert.deepEqual(await found('"trip:ser"'), ['Groceries 1'], state)
    await indexAllQueuedDocuments(ctx.ledger)
  }
  assert.equal(await queued(), 0)
  // A label removed: its keys document goes with it; the text's stays.
  await setTransactionLabels(ctx, rows[1]!.id, {})
  assert.equal(await keysDocuments('"serengeti"'), 0)
  for (const state of ['queued', 'indexed']) {
    assert.deepEqual(await found('serengeti'), [], state)
    assert.deepEqual(await found('"groceries 1"'), ['Groceries 1'], state)
    await indexAllQueuedDocuments(ctx.ledger)
  }
  assert.equal(
    (await sql<{ n: number }>`select count(*) as n from search_keys`.execute(db)).rows[0]!.n,
    0,
  )

  // A delete leaves no document behind once indexed, and no answer before.
  await deleteTransaction(ctx, rows[0]!.id)
  assert.deepEqual(await found('kilimanjaro'), [])
  await indexAllQueuedDocuments(ctx.ledger)
  assert.equal(
    (await sql<{ n: number }>`select count(*) as n from search_text`.execute(db)).rows[0]!.n,
    4,
  )
  assert.deepEqual(
    (
      await sql<{
        n: number
      }>`select count(*) as n from search_text where search_text match '"kilimanjaro"'`.execute(db)
    ).rows[0]!.n,
    0,
  )
})

test('a unit that changes more keys than it writes documents for queues the rest; answers stay exact', async (t) => {
  const ctx = await bareContext(t)
  const db = ctx.db.kysely
  const rows = KEYS_DOCUMENTS_PER_UNIT + 50
  const ids = Array.from({ length: rows }, (_, i) => `csv:many-${i}`)
  await ctx.ledger.mutate((uow) => ingestBatchInUnit(uow, csvBatch(csvRows(ids))))
  // One unit labels them all, as a rules run does.
  await ctx.ledger.mutate(async (uow) => {
    const befores = await findTransactionsForChange(uow.trx, ids)
    await writeKeyedValuesManyInUnit(
      uow,
      [LABELS],
      ids.map((id, i) => ({
        before: befores.get(id)!,
        next: { labels: { batch: i % 2 === 0 ? 'okavango' : 'zambezi' } },
      })),
    )
  })
  const count = async (query: string) =>
    (await sql<{ n: number }>`${sql.raw(query)}`.execute(db)).rows[0]!.n
  const queued = await count('select count(*) as n from search_keys_pending')
  const written = await count('select count(*) as n from search_keys')
  assert.ok(queued > 0, 'past the bound, keys documents are queued')
  assert.ok(written > 0 && written <= KEYS_DOCUMENTS_PER_UNIT, `${written} written in the unit`)
  assert.equal(queued + written, rows, 'each change is written or queued')
  const total = async (q: string) => (await searchTransactions(ctx, { q, limit: 1 })).total
  for (const state of ['queued', 'indexed']) {
    assert.equal(await total('okavango'), rows / 2, state)
    assert.equal(await total('label:batch=zambezi'), rows / 2, state)
    await indexAllQueuedDocuments(ctx.ledger)
  }
  assert.equal(await count('select count(*) as n from search_keys'), rows)
})

test('a change looks its document numbers up by id, whatever the statistics say', async (t) => {
  const ctx = await bareContext(t)
  const db = ctx.db.kysely
  const ids = Array.from({ length: 2_000 }, (_, i) => `csv:stats-${i}`)
  await ctx.ledger.mutate((uow) => ingestBatchInUnit(uow, csvBatch(csvRows(ids))))
  // Statistics as a ledger analysed before its documents were numbered has them
  // (the benchmarks' generated ledgers): no row with a number.
  const { rows: before } = await sql<{ id: string; n: number }>`select id, search_n as n
    from transactions`.execute(db)
  await sql`update transactions set search_n = null`.execute(db)
  await sql`analyze transactions`.execute(db)
  for (const { id, n } of before)
    await sql`update transactions set search_n = ${n} where id = ${id}`.execute(db)
  const query = documentNumbersOf(ids.slice(0, 50)).compile(db)
  const plan = await db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
  )
  const steps = plan.rows.map((row) => row.detail).join(' | ')
  assert.match(steps, /^SCAN j\b/, `the ids come first: ${steps}`)
  assert.match(
    steps,
    /SEARCH t USING [A-Z ]*INDEX sqlite_autoindex_transactions_1 \(id=\?\)/,
    steps,
  )
  const { rows } = await documentNumbersOf(ids.slice(0, 50)).execute(db)
  assert.equal(rows.length, 50)
})

// The SQLite search documents: a new transaction's are written with it; a queued
// transaction must still be found (it is a candidate until indexed), an indexed
// one through its document, and edits and deletes must never leave a stale answer.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bareContext } from '../../test/helpers/context.js'
import { sql } from 'kysely'
import { createAccount } from '../ledger/accounts.js'
import { setTransactionLabels } from '../ledger/labels.js'
import { createTransaction, deleteTransaction, updateTransaction } from '../ledger/transactions.js'
import { indexAllQueuedDocuments, indexQueuedDocuments } from './indexer.js'
import { searchTransactions } from './service.js'

test('new transactions are indexed at once; queued and indexed ones answer alike; edits and deletes re-queue', async (t) => {
  // A bare service context: no indexer runs unless this test runs it.
  const ctx = await bareContext(t)
  const db = ctx.db.kysely
  const count = async (table: 'search_pending' | 'search_keys_pending') =>
    (await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db)).rows[0]!.n
  const queued = async () => (await count('search_pending')) + (await count('search_keys_pending'))
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
  // A label change re-queues the transaction's keys document alone.
  await updateTransaction(ctx, rows[0]!.id, { description: 'Kilimanjaro tea' })
  await setTransactionLabels(ctx, rows[1]!.id, { trip: 'serengeti' })
  assert.equal(await count('search_pending'), 1)
  assert.equal(await count('search_keys_pending'), 1)
  for (const state of ['queued', 'indexed']) {
    assert.deepEqual(await found('zanzibar'), [], state)
    assert.deepEqual(await found('kilimanjaro'), ['Kilimanjaro tea'], state)
    assert.deepEqual(await found('serengeti'), ['Groceries 1'], state)
    assert.deepEqual(await found('"trip:ser"'), ['Groceries 1'], state)
    await indexAllQueuedDocuments(ctx.ledger)
  }
  assert.equal(await queued(), 0)
  // A label removed: its keys document goes, indexed or not; the text's stays.
  await setTransactionLabels(ctx, rows[1]!.id, {})
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
    (await sql<{ n: number }>`select count(*) as n from search_documents`.execute(db)).rows[0]!.n,
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

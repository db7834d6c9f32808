// The summary rollups drainer holds its passes while bulk writes go on (an
// import, a plugin working through a backlog): those writes queue the same days
// again and again, and each pass re-sums whole days. It catches up once they end.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { bareContext } from '../../test/helpers/context.js'
import { startBulkWrites } from '../db/bulk.js'
import { createAccount } from '../ledger/accounts.js'
import { createTransaction } from '../ledger/transactions.js'
import { summaryRollupsDrainer } from './rollups.js'

test('summary rollups: passes are held while bulk writes go on, and catch up after', async (t) => {
  const ctx = await bareContext(t)
  const db = ctx.db.kysely
  const queued = async () =>
    Number(
      (await sql<{ n: number }>`select count(*) as n from summary_pending`.execute(db)).rows[0]!.n,
    )
  const account = await createAccount(ctx, { name: 'Checking', currency: 'USD' })
  const write = (date: string) =>
    createTransaction(ctx, { account_id: account.id, amount: '-1.00', date, description: 'x' })
  const drainer = summaryRollupsDrainer(ctx)
  t.after(() => drainer.stop())

  await write('2024-01-01')
  assert.equal(await queued(), 1)
  await drainer.run()
  assert.equal(await queued(), 0, 'with no bulk writes, a pass rebuilds the queued day')

  const end = await startBulkWrites(db)
  await write('2024-01-02')
  await drainer.run()
  assert.equal(await queued(), 1, 'held: the last pass was moments ago and bulk writes go on')
  await end()
  await drainer.run()
  assert.equal(await queued(), 0, 'caught up once the bulk writes ended')
})

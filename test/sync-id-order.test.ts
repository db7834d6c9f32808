// Into a large ledger a sync writes new rows in id order, a window at a time
// (src/sync/merge-batch.ts): every row still lands once, with its event, and the
// log shows the order the units wrote them in.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import type { IngestTransaction } from '../src/ledger/ingest.js'
import { ID_ORDER, mergeBatch, readAheadRows, SYNC_UNIT_ROWS } from '../src/sync/merge-batch.js'
import { zeroCounts } from '../src/sync/runs.js'
import { startTestApp } from './helpers/app.js'
import {
  csvBatch,
  eventsAfter,
  headSequence,
  ingest,
  keptAndCountedTransactions,
} from './helpers/ledger.js'

/** Rows whose ids, like a CSV row's hash, follow no order of the file. */
function hashedRows(count: number): IngestTransaction[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `csv:${createHash('sha256').update(`row ${i}`).digest('hex').slice(0, 32)}`,
    account_id: 'csv:checking',
    amount: `-${i}.00`,
    date: '2024-03-01',
    description: `row ${i}`,
  }))
}

/** A source's batch that hands its rows over 1,000 at a time, as a file is read. */
function streamed(rows: IngestTransaction[]) {
  const batch = csvBatch()
  return {
    organizations: batch.organizations!,
    accounts: batch.accounts!,
    transactions: (async function* () {
      for (let at = 0; at < rows.length; at += 1000) yield rows.slice(at, at + 1000)
    })(),
    summary: () => ({ skipped: 0, warnings: [] }),
  }
}

const sortedIds = (rows: IngestTransaction[]) => rows.map((r) => r.id).sort()

test('into a large ledger new rows go in id order after the first unit; a re-sync goes as read', async (t) => {
  const app = await startTestApp(t)
  await ingest(app, csvBatch(hashedRows(1).map((r) => ({ ...r, id: 'csv:already-here' }))))
  // The ledger counts as large from one row; a window of two units.
  const order = { fromRows: 1, windowRows: 2 * SYNC_UNIT_ROWS }
  const rows = hashedRows(SYNC_UNIT_ROWS + 2 * SYNC_UNIT_ROWS + 2000)
  const head = await headSequence(app)

  const counts = zeroCounts()
  const merged: number[] = []
  await mergeBatch(app.ctx, 'csv', streamed(rows), counts, (n) => merged.push(n), undefined, order)
  assert.equal(counts.inserted, rows.length)
  assert.deepEqual(merged, [5000, 10000, 15000, 17000], 'whole units, the rest last')

  const created = (await eventsAfter(app, head, { filter: '&type=transaction.created' })).map(
    (e) => e.entity_id,
  )
  const first = rows.slice(0, SYNC_UNIT_ROWS)
  const window = rows.slice(SYNC_UNIT_ROWS, 3 * SYNC_UNIT_ROWS)
  const rest = rows.slice(3 * SYNC_UNIT_ROWS)
  assert.deepEqual(created, [...first.map((r) => r.id), ...sortedIds(window), ...sortedIds(rest)])
  assert.notDeepEqual(
    sortedIds(window),
    window.map((r) => r.id),
    'the file is not in id order',
  )
  const { kept, counted } = await keptAndCountedTransactions(app)
  assert.deepEqual(counted, { 'csv:checking': rows.length + 1 })
  assert.deepEqual(kept, counted)

  // The same rows again, in another order: each unchanged, none written twice.
  const again = zeroCounts()
  await mergeBatch(app.ctx, 'csv', streamed([...rows].reverse()), again, () => {}, undefined, order)
  assert.deepEqual(
    { inserted: again.inserted, updated: again.updated, unchanged: again.unchanged },
    { inserted: 0, updated: 0, unchanged: rows.length },
  )
  assert.deepEqual((await keptAndCountedTransactions(app)).counted, counted)
})

test('a sync reads ahead only into a large ledger, and only while its rows are mostly new', () => {
  const order = ID_ORDER
  const large = order.fromRows
  assert.equal(readAheadRows(order, large - 1, 5000, 5000), 0, 'a small ledger: as read')
  assert.equal(readAheadRows(order, large, 0, 0), 0, 'the first unit: as read')
  assert.equal(readAheadRows(order, large, 5000, 5000), order.windowRows, 'new rows: sorted')
  assert.equal(readAheadRows(order, large, 5000, 2500), order.windowRows, 'half new: sorted')
  assert.equal(readAheadRows(order, large, 5000, 2499), 0, 'mostly there already: as read')
  assert.equal(readAheadRows(order, large, 5000, 0), 0, 'a re-sync: as read')
})

// Re-syncs of files larger than one merge chunk (1000 rows), where the engine
// switches to its one-statement refresh of unchanged rows: a changed row, a
// re-export that writes a row differently, and new rows deep in the file must
// still be found, with exactly their events.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import {
  allTransactions,
  eventsAfter,
  headSequence,
  startCsvApp,
  syncNow,
  type Json,
} from './sync-helpers.js'
import { StepClock } from './helpers/ledger.js'
import { assertLogFoldsToLedger } from './helpers/log-fold.js'

const ROWS = 3500

function line(i: number, overrides: { amount?: string; description?: string } = {}): string {
  const day = String((i % 28) + 1).padStart(2, '0')
  const amount = overrides.amount ?? `-${i}.50`
  return `2024-03-${day},${overrides.description ?? `Purchase ${i}`},${amount}\n`
}

function file(lines: string[]): string {
  return `Date,Description,Amount\n${lines.join('')}`
}

test('re-sync past the first chunk: unchanged rows refreshed, changed and new rows found', async (t) => {
  const lines = Array.from({ length: ROWS }, (_, i) => line(i))
  // Times are kept to the second: the test moves the clock so that a refresh shows.
  const clock = new StepClock()
  const { app, root } = await startCsvApp(t, [{ name: 'Big', files: { 'big.csv': file(lines) } }], {
    clock,
  })
  const path = join(root, 'Big', 'big.csv')
  const first = await syncNow(app)
  assert.deepEqual(first.counts.csv, { inserted: ROWS, updated: 0, unchanged: 0, skipped: 0 })
  const before = new Map<string, Json>(
    (await allTransactions(app, 'csv:big')).map((r: Json) => [r.description, r]),
  )

  // Unchanged: no event but sync.completed, and every row's synced_at moves on.
  clock.advance(60)
  const head = await headSequence(app)
  const again = await syncNow(app)
  assert.deepEqual(again.counts.csv, { inserted: 0, updated: 0, unchanged: ROWS, skipped: 0 })
  assert.deepEqual(
    (await eventsAfter(app, head)).map((e: Json) => e.type),
    ['sync.completed'],
  )
  const refreshed = await allTransactions(app, 'csv:big')
  assert.equal(refreshed.length, ROWS)
  for (const row of refreshed) {
    assert.ok(row.synced_at > before.get(row.description).synced_at, row.description)
  }

  // Late in the file: one amount written differently (same id, new stored text),
  // one description re-spaced (same id), one row dropped and two new ones added.
  lines[2500] = line(2500, { amount: '-2500.5' })
  lines[3100] = line(3100, { description: 'Purchase  3100' })
  lines.splice(3300, 1)
  lines.push(line(ROWS), line(ROWS + 1))
  writeFileSync(path, file(lines))
  const head2 = await headSequence(app)
  const changed = await syncNow(app)
  assert.deepEqual(changed.counts.csv, {
    inserted: 2,
    updated: 2,
    unchanged: ROWS - 3,
    skipped: 0,
  })
  const events = await eventsAfter(app, head2)
  const byType = (type: string) =>
    events
      .filter((e: Json) => e.type === type)
      .map((e: Json) => e.data.description)
      .sort()
  assert.deepEqual(byType('transaction.updated'), ['Purchase  3100', 'Purchase 2500'])
  assert.deepEqual(byType('transaction.created'), [`Purchase ${ROWS}`, `Purchase ${ROWS + 1}`])
  assert.equal(events.length, 5)
  assert.equal(events.at(-1).type, 'sync.completed')
  const updated = events.find((e: Json) => e.data.description === 'Purchase 2500')
  assert.equal(updated.entity_id, before.get('Purchase 2500').id)
  assert.equal(updated.data.amount, '-2500.5')
  await assertLogFoldsToLedger(app)
})

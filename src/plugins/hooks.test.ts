// The hook loop over the real event log: a backlog reaches a plugin in batches
// that grow past the queue's size (their writes share a unit of work), in
// order, each event once; a lone event is handed over at once.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import { bareContext } from '../../test/helpers/context.js'
import { csvBatch, csvRows } from '../../test/helpers/ledger.js'
import { logHead } from '../events/store.js'
import { createAccount } from '../ledger/accounts.js'
import { ingestBatchInUnit } from '../ledger/ingest.js'
import { createTransaction } from '../ledger/transactions.js'
import { HOOK_BATCH_EVENTS, HookRunner, type HookTarget } from './hooks.js'
import type { HookName } from './manifest.js'

/**
 * A target that records each batch it is handed (the ids of its events) and
 * takes a moment over each, as a plugin's hooks do, so that the queue fills
 * behind it.
 */
function recordingTarget(): HookTarget & { batches: string[][] } {
  const batches: string[][] = []
  return {
    name: 'recorder',
    hooks: ['onTransactionCreate'] as HookName[],
    batches,
    runBatch: async (calls) => {
      batches.push(calls.map((call) => (call.arg as { entity_id: string }).entity_id))
      await delay(5)
      return { ran: calls.length, written: Promise.resolve() }
    },
    writePending: async () => {},
    saveCursor: async () => {},
  }
}

test('a backlog is handed over in batches that grow past the queue; a lone event at once', async (t) => {
  const ctx = await bareContext(t, { env: { SERVICE_PLUGINS_QUEUE_SIZE: '16' } })
  assert.equal(ctx.config.plugins.queue_size, 16)
  const rows = 3 * HOOK_BATCH_EVENTS
  const ids = Array.from({ length: rows }, (_, i) => `csv:backlog-${i}`)
  await ctx.ledger.mutate((uow) => ingestBatchInUnit(uow, csvBatch(csvRows(ids))))
  const target = recordingTarget()
  const runner = new HookRunner(ctx, target, 0)
  runner.start()
  t.after(() => runner.stop())
  await runner.whenHandled(await logHead(ctx.db.kysely))

  const created = target.batches.flat().filter((id) => id.startsWith('csv:backlog-'))
  assert.deepEqual(created, ids, 'every event once, in order')
  const sizes = target.batches.map((batch) => batch.length)
  const shown = `${sizes.length} batches: ${sizes.slice(0, 12).join(', ')}…`
  assert.ok(sizes[0]! <= 16, `the first batch is at most what the queue held: ${sizes[0]}`)
  assert.ok(
    sizes.every((size) => size <= HOOK_BATCH_EVENTS),
    `no batch over ${HOOK_BATCH_EVENTS}: ${shown}`,
  )
  assert.ok(
    sizes.filter((size) => size === HOOK_BATCH_EVENTS).length >= 2,
    `the backlog grew to full batches: ${shown}`,
  )

  // Caught up: a new event is handed over alone, without waiting for more.
  const before = target.batches.length
  const account = await createAccount(ctx, { name: 'Manual', currency: 'USD' })
  const tx = await createTransaction(ctx, {
    account_id: account.id,
    amount: '-2.00',
    date: '2024-01-02',
    description: 'lone',
  })
  await runner.whenHandled(await logHead(ctx.db.kysely))
  assert.deepEqual(target.batches.slice(before), [[tx.id]])
})

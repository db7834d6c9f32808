// Units of work that follow one another run in microtasks (better-sqlite3 is
// synchronous), so without a turn between them a chain of units held the event
// loop (requests, timers, SSE) until it ended. A unit that finds the loop
// starved gives it a turn first (Ledger.loopTurn).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bareContext } from '../../test/helpers/context.js'
import { createAccount } from './accounts.js'
import { createTransaction } from './transactions.js'

test('a chain of units of work gives the event loop turns while it runs', async (t) => {
  const ctx = await bareContext(t)
  const account = await createAccount(ctx, { name: 'Everyday', currency: 'USD' })
  const units = 1500
  let done = 0
  let doneWhenTimerRan: number | null = null
  setImmediate(() => (doneWhenTimerRan = done))
  // Back to back, as a sync's units and a plugin's take turns: no timer, no I/O between them.
  for (let i = 0; i < units; i++) {
    await createTransaction(ctx, {
      account_id: account.id,
      amount: '-1.00',
      date: '2024-01-01',
      description: `unit ${i}`,
    })
    done++
  }
  assert.notEqual(doneWhenTimerRan, null, 'the loop had no turn during the whole chain')
  assert.ok(doneWhenTimerRan! < units, `the timer ran only after all ${units} units`)
})

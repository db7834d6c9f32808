// A hook call's budget counts the thread's CPU time and its waits on its own
// promises, not the clock time it spends without a core or waiting on the host.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CallBudget, REUSE_READING_MS } from './budget.js'

/** A clock and a CPU clock moved by hand; the CPU clock runs at `share` of the clock's rate. */
function clocks(share: number | null) {
  const state = { now: 1_000_000, cpu: 500, reads: 0 }
  return {
    state,
    advance(ms: number) {
      state.now += ms
      if (share !== null) state.cpu += ms * share
    },
    wait(ms: number) {
      state.now += ms
    },
    budget: (limitMs: number) =>
      new CallBudget(
        limitMs,
        () => {
          state.reads++
          return share === null ? null : state.cpu
        },
        () => state.now,
      ),
  }
}

test('a thread that gets a tenth of a core is stopped at its CPU time, not the clock', () => {
  const c = clocks(0.1)
  const budget = c.budget(1_000)
  budget.start()
  c.advance(999)
  assert.equal(budget.spent(), false)
  c.advance(2)
  assert.equal(budget.spent(), false, 'the clock passed the limit, the CPU time did not')
  c.advance(8_900) // 990 ms of CPU in all
  assert.equal(budget.spent(), false)
  c.advance(200) // 1,010 ms of CPU
  assert.equal(budget.spent(), true)
})

test('a thread that runs all the time is stopped at the limit, as by a clock', () => {
  const c = clocks(1)
  const budget = c.budget(1_000)
  budget.start()
  c.advance(1_000)
  assert.equal(budget.spent(), false)
  c.advance(1)
  assert.equal(budget.spent(), true)
})

test("waiting on the host does not count; waiting on the plugin's own promises does", () => {
  const c = clocks(1)
  const budget = c.budget(1_000)
  budget.start()
  c.advance(600)
  c.wait(5_000)
  budget.waitedOnHost(5_000)
  assert.equal(budget.spent(), false)
  assert.equal(budget.msLeft, 400)
  c.wait(400)
  budget.waitedOnPlugin(400)
  c.advance(1)
  assert.equal(budget.spent(), true, '600 ms of CPU and 400 ms waiting on itself')
})

test('without a CPU clock the clock decides; stop() spends nothing', () => {
  const c = clocks(null)
  const budget = c.budget(1_000)
  budget.start()
  c.wait(1_001)
  assert.equal(budget.spent(), true)
  budget.stop()
  c.wait(10_000)
  assert.equal(budget.spent(), false)
  budget.start()
  assert.equal(budget.spent(), false)
})

test('calls started close together share one CPU reading, and are charged from it', () => {
  const c = clocks(1)
  const budget = c.budget(1_000)
  budget.start()
  assert.equal(c.state.reads, 1)
  for (let call = 0; call < 5; call++) {
    c.advance(2)
    budget.stop()
    budget.start()
  }
  assert.equal(c.state.reads, 1, 'no new reading within REUSE_READING_MS of the last')
  // The last call started 10 ms after the reading and is charged those 10 ms.
  c.advance(990)
  assert.equal(budget.spent(), false)
  c.advance(1)
  assert.equal(budget.spent(), true, '991 ms of its own, 1,001 from the reading')
  budget.stop()
  c.advance(REUSE_READING_MS + 1)
  budget.start()
  assert.equal(c.state.reads, 3, 'a stale reading is taken again')
  c.advance(1_000)
  assert.equal(budget.spent(), false)
})

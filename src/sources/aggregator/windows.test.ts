// The windows of history a sync asks for and the budget of a scheduled sync (CONTRACT 4).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MAX_HISTORY_WINDOWS, scheduledRequestBudget, windowBack, windowCount } from './windows.js'

const DAY = 86_400
const NOW = 1_714_564_800

test('a lookback is covered by windows of at most 90 days, newest first, the oldest shortened', () => {
  const windows = []
  for (let i = 0; ; i++) {
    const w = windowBack(NOW, 200, i)
    if (w === null) break
    windows.push([(NOW - w.start) / DAY, (NOW - w.end) / DAY])
  }
  assert.deepEqual(windows, [
    [90, 0],
    [180, 90],
    [200, 180],
  ])
  assert.deepEqual(windowBack(NOW, 90, 0), { start: NOW - 90 * DAY, end: NOW })
  assert.equal(windowBack(NOW, 90, 1), null)
  assert.deepEqual(windowBack(NOW, 1, 0), { start: NOW - DAY, end: NOW })
})

test('lookback 0 walks back window after window, up to a bound', () => {
  assert.equal(windowCount(0), MAX_HISTORY_WINDOWS)
  assert.deepEqual(windowBack(NOW, 0, 3), { start: NOW - 360 * DAY, end: NOW - 270 * DAY })
  assert.equal(windowBack(NOW, 0, MAX_HISTORY_WINDOWS), null)
})

test("a scheduled sync's share of the bridge's 24 requests a day", () => {
  const HOUR = 3_600_000
  assert.equal(scheduledRequestBudget(6 * HOUR), 6)
  assert.equal(scheduledRequestBudget(24 * HOUR), 24)
  assert.equal(scheduledRequestBudget(90 * 60_000), 1)
  // Polls more often than hourly still get one request each.
  assert.equal(scheduledRequestBudget(1000), 1)
})

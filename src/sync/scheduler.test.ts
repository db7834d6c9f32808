// The schedule follows sync.interval as it changes: a shorter interval stored
// while a long wait is under way applies at once (the wait starts again), not
// when the old timer fires hours later.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bareContext } from '../../test/helpers/context.js'
import type { SyncEngine } from './engine.js'
import { SyncScheduler } from './scheduler.js'

test('a changed sync.interval applies to the wait under way', async (t) => {
  const ctx = await bareContext(t, { env: { SERVICE_SYNC_INTERVAL: '6h' } })
  t.mock.timers.enable({ apis: ['setTimeout'] })
  let runs = 0
  const engine = {
    trigger: async () => {
      runs++
      return { done: Promise.resolve() }
    },
  } as unknown as SyncEngine
  const scheduler = new SyncScheduler(ctx, engine)
  scheduler.start()
  t.after(() => scheduler.stop())

  t.mock.timers.tick(60 * 60_000)
  assert.equal(runs, 0, 'nothing is due within the first hour of 6h')

  // What the settings service does when sync.interval is stored.
  ctx.config.sync.interval = '1m'
  ctx.signals.emit('settings.applied', ['sync.interval'])
  t.mock.timers.tick(60_000)
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(runs, 1, 'the new interval applies at once')

  // Another key changing leaves the wait alone; turning it off stops the runs.
  ctx.signals.emit('settings.applied', ['log.level'])
  ctx.config.sync.interval = '0'
  ctx.signals.emit('settings.applied', ['sync.interval'])
  t.mock.timers.tick(10 * 60_000)
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(runs, 1)
})

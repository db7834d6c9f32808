// Event retention (SPEC 8) against a real SQLite built by the migrations: events
// older than retention_days go, newer ones stay, 0 keeps everything, and a
// follower whose cursor is below the oldest kept event continues from it.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { bareContext } from '../../test/helpers/context.js'
import type { ServiceContext } from '../context.js'
import { createAccount } from '../ledger/accounts.js'
import { followEvents } from './follow.js'
import { EventRetention, pruneEvents } from './retention.js'
import { readEventsAfter } from './store.js'

class MovableClock {
  constructor(public ms: number) {}
  now(): Date {
    return new Date(this.ms)
  }
}

const DAY_MS = 86_400_000

function context(t: TestContext, clock: MovableClock, retentionDays: number) {
  return bareContext(t, { clock, env: { SERVICE_EVENTS_RETENTION_DAYS: String(retentionDays) } })
}

async function sequences(ctx: ServiceContext): Promise<number[]> {
  return (await readEventsAfter(ctx.db.kysely, 0, 1000)).map((e) => e.sequence)
}

test('events older than retention_days are pruned; newer ones and 0 days keep', async (t) => {
  const clock = new MovableClock(Date.parse('2024-01-01T00:00:00Z'))
  const ctx = await context(t, clock, 0)
  for (const name of ['a', 'b', 'c']) await createAccount(ctx, { name, currency: 'USD' })
  clock.ms += 10 * DAY_MS
  for (const name of ['d', 'e']) await createAccount(ctx, { name, currency: 'USD' })
  clock.ms += 2 * DAY_MS

  assert.equal(await pruneEvents(ctx, 0), 0, '0 keeps events forever')
  assert.equal(await pruneEvents(ctx, 13), 0, 'nothing is older than 13 days')
  assert.deepEqual(await sequences(ctx), [1, 2, 3, 4, 5])
  assert.equal(await pruneEvents(ctx, 5), 3)
  assert.deepEqual(await sequences(ctx), [4, 5])
  assert.equal(await pruneEvents(ctx, 5), 0)

  // A cursor older than the oldest kept event just reads on from the oldest one.
  const controller = new AbortController()
  const seen: number[] = []
  for await (const event of followEvents({
    db: ctx.db.kysely,
    bus: ctx.bus,
    after: 1,
    signal: controller.signal,
  })) {
    seen.push(event.sequence)
    if (seen.length === 2) controller.abort()
  }
  assert.deepEqual(seen, [4, 5])
})

test('the schedule prunes once at start with events.retention_days > 0', async (t) => {
  const clock = new MovableClock(Date.parse('2024-01-01T00:00:00Z'))
  const ctx = await context(t, clock, 7)
  await createAccount(ctx, { name: 'old', currency: 'USD' })
  clock.ms += 8 * DAY_MS
  await createAccount(ctx, { name: 'new', currency: 'USD' })
  const retention = new EventRetention(ctx)
  retention.start()
  await retention.stop()
  assert.deepEqual(await sequences(ctx), [2])
})

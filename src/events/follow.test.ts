// The durable follower against a real SQLite log, with a bus the test drives by
// hand: replay then live, an event seen both in the replay and in the buffer,
// a drop while lagging, filters, and abort.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { bareContext } from '../../test/helpers/context.js'
import type { ServiceContext } from '../context.js'
import { EventBus, type Subscription } from './bus.js'
import { followEvents } from './follow.js'
import { readEventsAfter } from './store.js'
import type { EventEnvelope } from './types.js'

function context(t: TestContext): Promise<ServiceContext> {
  return bareContext(t)
}

/** Appends `count` events to the log (one unit of work) and returns them. */
async function append(
  ctx: ServiceContext,
  count: number,
  type: 'account.updated' | 'account.created' = 'account.updated',
): Promise<EventEnvelope[]> {
  const head = (await readEventsAfter(ctx.db.kysely, 0, 1_000_000)).at(-1)?.sequence ?? 0
  await ctx.ledger.mutate(async (uow) => {
    for (let i = 0; i < count; i++) {
      uow.emit({ type, entity_type: 'account', entity_id: `acct-${head + i}`, data: { i } })
    }
  })
  return readEventsAfter(ctx.db.kysely, head, 1_000_000)
}

function follower(ctx: ServiceContext, bus: EventBus, after: number, filter = {}) {
  const controller = new AbortController()
  const events = followEvents({ db: ctx.db.kysely, bus, after, filter, signal: controller.signal })
  return { events, controller }
}

async function take(events: AsyncGenerator<EventEnvelope>, count: number): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < count; i++) {
    const next = await events.next()
    assert.equal(next.done, false)
    out.push(next.value.sequence)
  }
  return out
}

function seqs(events: readonly EventEnvelope[]): number[] {
  return events.map((e) => e.sequence)
}

test('replays the log after `after`, then yields live events from the bus', async (t) => {
  const ctx = await context(t)
  const bus = new EventBus()
  const old = await append(ctx, 5)
  const { events, controller } = follower(ctx, bus, old[1]!.sequence)
  assert.deepEqual(await take(events, 3), seqs(old.slice(2)))
  assert.equal(bus.subscriberCount, 1, 'subscribed while replaying')

  const pending = events.next()
  const live = await append(ctx, 2)
  bus.publish(live)
  assert.equal(((await pending).value as EventEnvelope).sequence, live[0]!.sequence)
  assert.deepEqual(await take(events, 1), [live[1]!.sequence])

  controller.abort()
  assert.deepEqual(await events.next(), { done: true, value: undefined })
  assert.equal(bus.subscriberCount, 0)
})

test('an event both in the replay and in the buffer is yielded once', async (t) => {
  const ctx = await context(t)
  const committed = await append(ctx, 4)
  // Events that commit between the subscribe and the log read reach both the
  // buffer and the replay: this bus puts them in the buffer at subscribe time.
  class OverlappingBus extends EventBus {
    override subscribe(capacity?: number): Subscription {
      const sub = super.subscribe(capacity)
      for (const event of committed.slice(1)) assert.equal(sub.offer(event), true)
      return sub
    }
  }
  const bus = new OverlappingBus()
  const { events, controller } = follower(ctx, bus, 0)
  assert.deepEqual(await take(events, 4), seqs(committed))
  const pending = events.next()
  const live = await append(ctx, 1)
  bus.publish(live)
  assert.equal(((await pending).value as EventEnvelope).sequence, live[0]!.sequence)
  controller.abort()
})

test('a follower dropped for lagging replays the gap and misses nothing', async (t) => {
  const ctx = await context(t)
  let drops = 0
  const bus = new EventBus(() => drops++)
  const first = await append(ctx, 1)
  const { events, controller } = follower(ctx, bus, 0)
  assert.deepEqual(await take(events, 1), seqs(first))
  // The follower is not reading while 200 events are published: it is dropped.
  const burst = await append(ctx, 200)
  bus.publish(burst)
  assert.equal(drops, 1)
  assert.equal(bus.subscriberCount, 0)
  assert.deepEqual(await take(events, 200), seqs(burst))
  // It subscribed again and follows live events.
  assert.equal(bus.subscriberCount, 1)
  const pending = events.next()
  const live = await append(ctx, 1)
  bus.publish(live)
  assert.equal(((await pending).value as EventEnvelope).sequence, live[0]!.sequence)
  controller.abort()
})

test('a filter applies to the replay and to live events', async (t) => {
  const ctx = await context(t)
  const bus = new EventBus()
  const mixed = [...(await append(ctx, 2)), ...(await append(ctx, 2, 'account.created'))]
  const { events, controller } = follower(ctx, bus, 0, { type: 'account.created' })
  assert.deepEqual(await take(events, 2), seqs(mixed.slice(2)))
  const pending = events.next()
  const other = await append(ctx, 3)
  bus.publish(other)
  const wanted = await append(ctx, 1, 'account.created')
  bus.publish(wanted)
  assert.equal(((await pending).value as EventEnvelope).sequence, wanted[0]!.sequence)
  controller.abort()
  assert.deepEqual(await events.next(), { done: true, value: undefined })
})

test('abort while waiting for a live event ends the generator', async (t) => {
  const ctx = await context(t)
  const bus = new EventBus()
  const { events, controller } = follower(ctx, bus, 0)
  const pending = events.next()
  // Let it subscribe and find the log empty.
  for (let i = 0; i < 100 && bus.subscriberCount === 0; i++) await new Promise(setImmediate)
  assert.equal(bus.subscriberCount, 1)
  controller.abort()
  assert.deepEqual(await pending, { done: true, value: undefined })
  assert.equal(bus.subscriberCount, 0)
})

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { BUS_BUFFER_EVENTS, EventBus } from './bus.js'
import type { EventEnvelope } from './types.js'

function envelope(sequence: number): EventEnvelope {
  return {
    sequence,
    event_id: `00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`,
    type: 'account.updated',
    entity_type: 'account',
    entity_id: `a${sequence}`,
    occurred_at: '2024-05-01T12:00:00Z',
    data: { n: sequence },
  }
}

function range(from: number, to: number): EventEnvelope[] {
  return Array.from({ length: to - from + 1 }, (_, i) => envelope(from + i))
}

async function drain(sub: { next(): Promise<EventEnvelope | null> }, count: number) {
  const out: number[] = []
  for (let i = 0; i < count; i++) out.push((await sub.next())!.sequence)
  return out
}

test('every subscriber gets every event, in publish order', async () => {
  const bus = new EventBus()
  const a = bus.subscribe()
  const b = bus.subscribe()
  assert.equal(bus.subscriberCount, 2)
  bus.publish(range(1, 3))
  bus.publish([envelope(4)])
  assert.deepEqual(await drain(a, 4), [1, 2, 3, 4])
  assert.deepEqual(await drain(b, 4), [1, 2, 3, 4])
})

test('a waiting reader is woken by the next publish', async () => {
  const bus = new EventBus()
  const sub = bus.subscribe()
  const pending = sub.next()
  bus.publish([envelope(7)])
  assert.equal((await pending)?.sequence, 7)
})

test('the buffer holds 64 events; one more drops the subscriber and counts it', async () => {
  assert.equal(BUS_BUFFER_EVENTS, 64)
  let drops = 0
  const bus = new EventBus(() => drops++)
  const slow = bus.subscribe()
  const fast = bus.subscribe()
  bus.publish(range(1, 64))
  assert.equal(slow.dropped, false)
  assert.equal(drops, 0)
  // The fast one keeps up; the slow one is a full buffer behind when 65 arrives.
  assert.deepEqual(
    await drain(fast, 64),
    range(1, 64).map((e) => e.sequence),
  )
  bus.publish([envelope(65)])
  assert.equal(slow.dropped, true)
  assert.equal(slow.closed, true)
  assert.equal(drops, 1)
  assert.equal(bus.subscriberCount, 1)
  // A dropped subscriber reads nothing more: the consumer replays from the log.
  assert.equal(await slow.next(), null)
  assert.equal((await fast.next())?.sequence, 65)
  // Publishing never blocks and never drops the same subscriber twice.
  bus.publish(range(66, 200))
  assert.equal(drops, 2, 'the fast one, now not reading, is dropped once')
  assert.equal(bus.subscriberCount, 0)
})

test('a single publish larger than the buffer drops a subscriber that is not waiting', () => {
  let drops = 0
  const bus = new EventBus(() => drops++)
  const sub = bus.subscribe()
  bus.publish(range(1, 65))
  assert.equal(sub.dropped, true)
  assert.equal(drops, 1)
})

test('close wakes a waiting reader with null and detaches the subscriber', async () => {
  const bus = new EventBus()
  const sub = bus.subscribe()
  const pending = sub.next()
  sub.close()
  assert.equal(await pending, null)
  assert.equal(sub.dropped, false)
  assert.equal(bus.subscriberCount, 0)
  bus.publish([envelope(1)])
  assert.equal(await sub.next(), null)
  sub.close() // idempotent
})

test('closeAll ends every subscription', async () => {
  const bus = new EventBus()
  const subs = [bus.subscribe(), bus.subscribe(), bus.subscribe()]
  const pending = subs[0]!.next()
  bus.closeAll()
  assert.equal(await pending, null)
  assert.equal(bus.subscriberCount, 0)
  for (const sub of subs) assert.equal(sub.closed, true)
})

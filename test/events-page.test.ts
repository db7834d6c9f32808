// Pages of the event log are bounded by bytes as well as by count (store.ts
// readPage, EVENT_PAGE_BYTES): a page stops at the first event whose data takes
// it past the budget, always holds at least one event, and a page cut short is
// not the end of the log, for every reader (GET /events, the SSE replay, the
// durable follower). Runs on PostgreSQL too when COFFER_TEST_POSTGRES_DSN is set.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { EventBus } from '../src/events/bus.js'
import { followEvents } from '../src/events/follow.js'
import {
  appendEvents,
  EVENT_PAGE_BYTES,
  readEventPage,
  readNewestEvents,
} from '../src/events/store.js'
import type { EventEnvelope, NewEvent } from '../src/events/types.js'
import { expectStatus } from './helpers/http.js'
import { startTestApp, type TestAppHandle } from './helpers/app.js'
import { SseClient } from './helpers/sse.js'

const OCCURRED_AT = '2024-05-01T12:00:00Z'
/** Data of about 300 KB: three fit in a page's budget, the fourth passes it. */
const LARGE_DATA_CHARS = 300_000

function event(entityId: string, chars: number): NewEvent {
  return {
    type: 'account.updated',
    entity_type: 'account',
    entity_id: entityId,
    data: { blob: 'x'.repeat(chars) },
  }
}

/** A small event, six large ones (entity `big`), a small one: their sequences. */
async function appendMixedLog(app: TestAppHandle): Promise<number[]> {
  const events = [
    event('small', 10),
    ...Array.from({ length: 6 }, () => event('big', LARGE_DATA_CHARS)),
    event('small', 10),
  ]
  const appended = await app.ctx.db.kysely
    .transaction()
    .execute((trx) => appendEvents(trx, events, OCCURRED_AT))
  return appended.map((e) => e.sequence)
}

const seqs = (events: readonly EventEnvelope[]) => events.map((e) => e.sequence)

/** Bytes of the data of `events` as the log holds it. */
const dataBytes = (events: readonly EventEnvelope[]) =>
  events.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e.data)), 0)

test('a page of the log stops once its events pass the byte budget, keeping at least one', async (t) => {
  const app = await startTestApp(t)
  const db = app.ctx.db.kysely
  const [small, b1, b2, b3, b4, b5, b6, last] = await appendMixedLog(app)
  const after = small! - 1

  // small + 3 large stay under 1 MiB; the 4th large passes it and ends the page.
  const first = await readEventPage(db, after, 500)
  assert.deepEqual(seqs(first.events), [small, b1, b2, b3, b4])
  assert.equal(first.more, true, 'a page cut by bytes is not the end of the log')
  assert.ok(dataBytes(first.events.slice(0, -1)) < EVENT_PAGE_BYTES)
  const second = await readEventPage(db, b4!, 500)
  assert.deepEqual(seqs(second.events), [b5, b6, last])
  assert.equal(second.more, false)
  assert.deepEqual(await readEventPage(db, last!, 500), { events: [], more: false })

  // The count still bounds a page of small events.
  const counted = await readEventPage(db, after, 1)
  assert.deepEqual([seqs(counted.events), counted.more], [[small], true])

  // An event larger than the whole budget is read alone: paging moves on.
  const tiny = await readEventPage(db, small!, 500, {}, 1000)
  assert.deepEqual([seqs(tiny.events), tiny.more], [[b1], true])

  // A filter sizes only the events it wants.
  const filtered = await readEventPage(db, after, 500, { entity_id: 'big' })
  assert.deepEqual(seqs(filtered.events), [b1, b2, b3, b4])
  const filteredSmall = await readEventPage(db, after, 500, { entity_id: 'small' })
  assert.deepEqual([seqs(filteredSmall.events), filteredSmall.more], [[small, last], false])

  // The newest events are kept, counted from the newest back.
  assert.deepEqual(seqs(await readNewestEvents(db, 100)), [b3, b4, b5, b6, last])
  assert.deepEqual(seqs(await readNewestEvents(db, 2)), [b6, last])
})

// A follower that took a short page for the end of the log would wait here for good.
test(
  'the durable follower replays pages cut by bytes in full, then follows live',
  { timeout: 60_000 },
  async (t) => {
    const app = await startTestApp(t)
    const sequences = await appendMixedLog(app)
    const bus = new EventBus()
    const controller = new AbortController()
    t.after(() => controller.abort())
    const events = followEvents({
      db: app.ctx.db.kysely,
      bus,
      after: sequences[0]! - 1,
      signal: controller.signal,
    })
    const seen: number[] = []
    for (const _ of sequences) seen.push((await events.next()).value!.sequence)
    assert.deepEqual(seen, sequences)
    const live = await app.ctx.db.kysely
      .transaction()
      .execute((trx) => appendEvents(trx, [event('small', 10)], OCCURRED_AT))
    bus.publish(live)
    assert.equal((await events.next()).value!.sequence, live[0]!.sequence)
    controller.abort()
  },
)

/** Extension values of 8000 characters: each extension.set event carries the whole transaction. */
async function transactionWithLargeEvents(app: TestAppHandle, keys: number): Promise<number> {
  const account = await expectStatus(app, 'POST', '/api/v1/accounts', 201, {
    name: 'Cash',
    currency: 'usd',
  })
  const tx = await expectStatus(app, 'POST', '/api/v1/transactions', 201, {
    account_id: account.id,
    amount: '-1.00',
    date: '2024-04-30',
    payee: 'Bakery',
  })
  const before = (await expectStatus(app, 'GET', '/api/v1/events?newest=1', 200)).next as number
  const extensions = Object.fromEntries(
    Array.from({ length: keys }, (_, i) => [`k${i}`, String(i % 10).repeat(8000)]),
  )
  await expectStatus(app, 'PUT', `/api/v1/transactions/${tx.id}/extensions`, 200, { extensions })
  return before
}

/** Every event's sequence after `before`, read by sequence alone (no page of the log in between). */
async function sequencesAfter(app: TestAppHandle, before: number): Promise<number[]> {
  const rows = await app.ctx.db.kysely
    .selectFrom('events')
    .select('sequence')
    .where('sequence', '>', before)
    .orderBy('sequence')
    .execute()
  return rows.map((row) => Number(row.sequence))
}

test('GET /events pages through large events by `next` without missing or repeating one', async (t) => {
  const app = await startTestApp(t)
  const before = await transactionWithLargeEvents(app, 40)
  const expected = await sequencesAfter(app, before)
  assert.ok(expected.length >= 40)

  const pages: EventEnvelope[][] = []
  let after = before
  for (;;) {
    const page = await expectStatus(app, 'GET', `/api/v1/events?after=${after}&limit=1000`, 200)
    if (page.events.length === 0) {
      assert.equal(page.next, after)
      break
    }
    assert.equal(page.next, page.events.at(-1).sequence, '`next` is where the page ended')
    pages.push(page.events)
    after = page.next
  }
  assert.deepEqual(seqs(pages.flat()), expected, 'every event once, in order')
  assert.ok(
    pages.length > 1,
    `pages of fewer than 1000 events: ${pages.map((p) => p.length).join(', ')}`,
  )
  for (const page of pages) {
    // The budget was not yet passed before the page's last event.
    assert.ok(dataBytes(page.slice(0, -1)) < EVENT_PAGE_BYTES, `page of ${page.length} events`)
  }

  const newest = await expectStatus(app, 'GET', '/api/v1/events?newest=1000', 200)
  assert.ok(newest.events.length < expected.length, 'newest is bounded by bytes too')
  assert.deepEqual(
    seqs(newest.events),
    expected.slice(-newest.events.length),
    'the newest are kept',
  )
})

test('an SSE replay of large events sends every one once, in order', async (t) => {
  const app = await startTestApp(t)
  const before = await transactionWithLargeEvents(app, 40)
  const expected = await sequencesAfter(app, before)
  const client = await SseClient.open(app, `?after=${before}`)
  t.after(() => client.close())
  await client.untilFrames(expected.length)
  assert.deepEqual(
    client.frames.map((f) => Number(f.id)),
    expected,
  )
})

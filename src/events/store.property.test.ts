// Properties of the event envelope (store.ts): an event appended to the log reads
// back, by sequence and by page, as the envelope the unit of work appended, and the
// JSON that SSE frames and webhook bodies carry parses back to that envelope.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { bareContext } from '../../test/helpers/context.js'
import { holdsAsync } from '../../test/helpers/property.js'
import { eventJson } from './json.js'
import {
  appendEventRows,
  appendEvents,
  asLogged,
  readEvent,
  readEventsAfter,
  toEventRows,
} from './store.js'
import { ENTITY_TYPES, EVENT_TYPES, type NewEvent } from './types.js'

const OCCURRED_AT = '2024-02-29T12:00:00Z'
// Event ids are UUIDv7 (time-ordered, src/events/event-id.ts).
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const newEvent = (data: fc.Arbitrary<unknown>): fc.Arbitrary<NewEvent> =>
  fc.record(
    {
      type: fc.constantFrom(...EVENT_TYPES),
      entity_type: fc.constantFrom(...ENTITY_TYPES),
      entity_id: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
      data,
    },
    { noNullPrototype: true },
  )

// Snapshots as the ledger writes them: exact amounts as text, nulls, nested objects.
const jsonData = fc.jsonValue({ maxDepth: 4, noUnicodeString: false })

test('an appended event reads back as the same envelope, and its JSON parses back to it', async (t) => {
  const ctx = await bareContext(t)
  await holdsAsync(
    fc.asyncProperty(
      fc.array(newEvent(jsonData), { minLength: 1, maxLength: 3 }),
      async (events) => {
        const appended = await ctx.db.kysely
          .transaction()
          .execute((trx) => appendEvents(trx, events, OCCURRED_AT))
        assert.equal(appended.length, events.length)
        const page = await readEventsAfter(ctx.db.kysely, appended[0]!.sequence - 1, 10)
        assert.equal(page.length, events.length)
        for (const [i, envelope] of appended.entries()) {
          const event = events[i]!
          // The log holds the data as JSON text: -0 reads back as 0 (fc.jsonValue makes -0).
          const expected = {
            sequence: envelope.sequence,
            event_id: envelope.event_id,
            type: event.type,
            entity_type: event.entity_type,
            entity_id: event.entity_id,
            occurred_at: OCCURRED_AT,
            data: JSON.parse(JSON.stringify(event.data)) as unknown,
          }
          if (i > 0) assert.equal(envelope.sequence, appended[i - 1]!.sequence + 1)
          assert.match(envelope.event_id, UUID_V7)
          // Live consumers and replays both read the log: each sees what was appended.
          assert.deepEqual(await readEvent(ctx.db.kysely, envelope.sequence), expected)
          assert.deepEqual(page[i], expected)
          // What appendEvents hands back and what the log reads serialise to the same bytes.
          assert.equal(JSON.stringify(envelope), JSON.stringify(page[i]))
          // The text SSE and webhooks send, made from the row's own JSON, is those bytes too.
          assert.equal(eventJson(page[i]), JSON.stringify(expected))
          assert.deepEqual(JSON.parse(JSON.stringify(expected)), expected)
        }
      },
    ),
    { share: 1 },
  )
})

// Data that JSON does not carry as it is: undefined, -0, NaN, dates.
const loose = fc.oneof(
  jsonData,
  fc.constantFrom(undefined, -0, Number.NaN, Number.POSITIVE_INFINITY),
  fc.record(
    { a: fc.constantFrom(undefined, -0, Number.NaN), b: jsonData },
    { noNullPrototype: true },
  ),
  fc.array(fc.constantFrom(undefined, Number.NaN, 1), { maxLength: 3 }),
  fc.date({ noInvalidDate: true }),
)

test('data that JSON does not carry as it is (undefined, -0, NaN, dates) reads back as JSON makes it', async (t) => {
  const ctx = await bareContext(t)
  await holdsAsync(
    fc.asyncProperty(newEvent(loose), async (event) => {
      const [appended] = await ctx.db.kysely
        .transaction()
        .execute((trx) => appendEvents(trx, [event], OCCURRED_AT))
      const read = await readEvent(ctx.db.kysely, appended!.sequence)
      assert.ok(read)
      assert.deepEqual(read.data, JSON.parse(JSON.stringify(event.data ?? null)))
      assert.deepEqual(JSON.parse(JSON.stringify(read)), read)
    }),
    { share: 0.5 },
  )
})

test('a commit published as it is in hand (publisher.ts) is what a read of the log gives, to the byte', async (t) => {
  const ctx = await bareContext(t)
  await holdsAsync(
    fc.asyncProperty(fc.array(newEvent(loose), { minLength: 1, maxLength: 3 }), async (events) => {
      const rows = toEventRows(events, OCCURRED_AT)
      const appended = await ctx.db.kysely
        .transaction()
        .execute((trx) => appendEventRows(trx, rows))
      const inHand = asLogged(appended, rows)
      const page = await readEventsAfter(ctx.db.kysely, appended[0]!.sequence - 1, 10)
      assert.deepEqual(inHand, page)
      for (const [i, event] of inHand.entries()) {
        const emitted = events[i]!.data
        if (typeof emitted === 'object' && emitted !== null)
          assert.notStrictEqual(event.data, emitted, 'no object shared with the unit')
        assert.equal(eventJson(event), JSON.stringify(page[i]))
        assert.deepEqual(JSON.parse(eventJson(event)), page[i])
      }
    }),
    { share: 0.5 },
  )
})

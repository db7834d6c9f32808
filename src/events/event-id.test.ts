import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newEventId } from './event-id.js'

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

test('event ids are version 7 UUIDs that sort by their millisecond', () => {
  const ids = Array.from({ length: 2000 }, (_, i) => newEventId(1_700_000_000_000 + i))
  for (const id of ids) assert.match(id, UUID_V7)
  assert.equal(new Set(ids).size, ids.length)
  assert.deepEqual([...ids].sort(), ids)
  // The timestamp is the first 48 bits.
  assert.equal(Number.parseInt(ids[0]!.replace('-', '').slice(0, 12), 16), 1_700_000_000_000)
  assert.match(newEventId(), UUID_V7)
})

// The cursor codec: a round trip for any id, and refusals naming `cursor`.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Invalid } from './errors.js'
import {
  CURSOR_MAX_CHARS,
  decodeCursor,
  encodeCursor,
  keysetPageOf,
  resolveKeysetPage,
} from './page.js'

const scope = ['transactions', null, 'category', null, null, null]
const key = { date: '2024-05-01T00:00:00Z', id: 'csv:abc' }

function refused(work: () => unknown): void {
  assert.throws(work, (e: unknown) => e instanceof Invalid && e.errors?.[0]?.field === 'cursor')
}

test('a cursor round-trips any id, and fits the accepted length for a long one', () => {
  assert.deepEqual(decodeCursor(scope, encodeCursor(scope, key)), key)
  const long = { date: key.date, id: 'ключ\u0001🔑"\\'.repeat(60) }
  const cursor = encodeCursor(scope, long)
  assert.ok(cursor.length <= CURSOR_MAX_CHARS, `${cursor.length}`)
  assert.deepEqual(decodeCursor(scope, cursor), long)
})

test('a cursor of another scope, altered or malformed is refused', () => {
  const cursor = encodeCursor(scope, key)
  refused(() => decodeCursor(['transactions', null, null, null, null, null], cursor))
  refused(() => decodeCursor(scope, cursor.slice(0, -2)))
  refused(() => decodeCursor(scope, '%%%'))
  refused(() => decodeCursor(scope, Buffer.from('null').toString('base64url')))
  refused(() => resolveKeysetPage({ cursor, offset: 1 }, scope))
  assert.deepEqual(resolveKeysetPage({ cursor, offset: 0, limit: 5000 }, scope), {
    limit: 1000,
    offset: 0,
    after: key,
    scope,
  })
})

test('keysetPageOf trims the extra row and points after the last one kept', () => {
  const rows = [3, 2, 1].map((n) => ({ date: key.date, id: `r${n}` }))
  const page = resolveKeysetPage({ limit: 2 }, scope)
  const { rows: kept, next_cursor } = keysetPageOf(rows, page)
  assert.deepEqual(kept, rows.slice(0, 2))
  assert.deepEqual(decodeCursor(scope, next_cursor!), rows[1])
  assert.equal(keysetPageOf(rows.slice(0, 2), page).next_cursor, null)
  assert.equal(keysetPageOf(rows, resolveKeysetPage({ limit: 0 }, scope)).next_cursor, null)
})

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
    order: 'desc',
    scope,
  })
})

test('a cursor carries its order and continues only that order', () => {
  const desc = encodeCursor(scope, key)
  const asc = encodeCursor(scope, key, 'asc')
  const payload = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  // Newest first is the form cursors had before `order`: those still work.
  assert.deepEqual(Object.keys(payload(desc)), ['v', 'd', 'i', 'h'])
  assert.equal(payload(asc).o, 'asc')
  assert.notEqual(payload(asc).h, payload(desc).h)
  assert.deepEqual(decodeCursor(scope, asc, 'asc'), key)
  assert.deepEqual(resolveKeysetPage({ cursor: asc, order: 'asc' }, scope).after, key)
  const otherOrder = (work: () => unknown) =>
    assert.throws(
      work,
      (e: unknown) =>
        e instanceof Invalid &&
        e.errors?.[0]?.field === 'cursor' &&
        /order=/.test(e.errors[0].message),
    )
  otherOrder(() => decodeCursor(scope, desc, 'asc'))
  otherOrder(() => decodeCursor(scope, asc, 'desc'))
  otherOrder(() => resolveKeysetPage({ cursor: asc }, scope))
  // The order flipped by hand is an altered cursor, in either direction.
  const reencode = (p: object) => Buffer.from(JSON.stringify(p), 'utf8').toString('base64url')
  const { o: _o, ...withoutOrder } = payload(asc)
  refused(() => decodeCursor(scope, reencode(withoutOrder), 'desc'))
  refused(() => decodeCursor(scope, reencode({ ...payload(desc), o: 'asc' }), 'asc'))
  refused(() => decodeCursor(scope, reencode({ ...payload(asc), o: 'desc' }), 'desc'))
  // An asc page's next cursor is an asc cursor.
  const rows = [1, 2, 3].map((n) => ({ date: key.date, id: `r${n}` }))
  const page = resolveKeysetPage({ limit: 2, order: 'asc' }, scope)
  const { next_cursor } = keysetPageOf(rows, page)
  assert.deepEqual(decodeCursor(scope, next_cursor!, 'asc'), rows[1])
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

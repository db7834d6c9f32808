// The row id is the dedup key of CSV rows: these values must never change.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { ROW_HASH_ID } from '../../search/row-hash-ids.js'
import { csvRowId } from './row-id.js'

const base = {
  account_id: 'csv:checking',
  date: '2024-03-05T00:00:00Z',
  amount: '-12.50',
  description: 'Coffee Shop',
  payee: null,
  memo: null,
}

test('the recipe of docs/csv.md, pinned', () => {
  const key = JSON.stringify([
    'csv:checking',
    '2024-03-05T00:00:00Z',
    '-12.5',
    'Coffee Shop',
    '',
    '',
  ])
  const expected = `csv:${createHash('sha256').update(key).digest('hex').slice(0, 32)}`
  assert.equal(csvRowId(base), expected)
  // The shape search keeps out of its trigram documents (search/row-hash-ids.ts).
  assert.match(csvRowId(base), ROW_HASH_ID)
})

test('a fixed value, so a change of the recipe fails here', () => {
  assert.equal(csvRowId(base), 'csv:dbd6fa2c51a9c87fc7830b7656e82b60')
})

test('equal amounts and spacing variants share an id; any field change does not', () => {
  assert.equal(csvRowId({ ...base, amount: '-12.5' }), csvRowId(base))
  assert.equal(csvRowId({ ...base, description: '  Coffee   Shop ' }), csvRowId(base))
  for (const change of [
    { account_id: 'csv:savings' },
    { date: '2024-03-06T00:00:00Z' },
    { amount: '12.50' },
    { description: 'coffee shop' },
    { payee: 'Coffee Shop' },
    { memo: 'x' },
  ]) {
    assert.notEqual(csvRowId({ ...base, ...change }), csvRowId(base), JSON.stringify(change))
  }
})

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { diffExtensions, diffLabels } from './history.js'

test('extension diffs ignore key order inside object values', () => {
  assert.deepEqual(
    diffExtensions(
      { 'a.b': { x: 1, y: [1, { p: 2, q: 3 }] } },
      { 'a.b': { y: [1, { q: 3, p: 2 }], x: 1 } },
    ),
    {},
  )
})

test('extension diffs see type changes that print alike', () => {
  assert.deepEqual(diffExtensions({ 'a.b': '1' }, { 'a.b': 1 }), {
    'extensions.a.b': { from: '1', to: 1 },
  })
  assert.deepEqual(diffExtensions({ 'a.b': [1, 2] }, { 'a.b': [2, 1] }), {
    'extensions.a.b': { from: [1, 2], to: [2, 1] },
  })
})

test('label diffs list added, changed and removed keys', () => {
  assert.deepEqual(diffLabels({ a: '1', b: '2' }, { b: '3', c: '4' }), {
    'labels.a': { from: '1', to: null },
    'labels.b': { from: '2', to: '3' },
    'labels.c': { from: null, to: '4' },
  })
})

// A plugin's write calls are checked as REST checks the same change.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { changeOf } from './changes.js'

test('a write call is checked as the REST body would be', () => {
  assert.deepEqual(changeOf('applyLabels', ['tx', { Category: 'food' }]), {
    field: 'labels',
    keys: { category: 'food' },
  })
  assert.deepEqual(changeOf('setExtension', ['tx', 'x.n', null]), {
    field: 'extensions',
    keys: { 'x.n': null },
  })
  // The key that would vanish into a prototype is refused, not dropped.
  assert.throws(() => changeOf('setExtension', ['tx', '__proto__', 1]), /is reserved/)
  assert.throws(() => changeOf('applyLabels', ['tx', { 'a b': 'x' }]), /a label key is/)
})

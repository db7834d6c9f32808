// The pure checks of label and extension maps, which every door and the plugin
// sandbox's worker share (src/plugins/changes.test.ts: a plugin's calls).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Invalid } from '../errors.js'
import { validateExtensions, validateLabels } from './keyed-checks.js'

test('"__proto__" is refused as a key, never dropped on the way', () => {
  // An own "__proto__" property, as JSON.parse makes one.
  const input = JSON.parse('{"__proto__": {"p": true}, "ok": 1}') as Record<string, unknown>
  assert.throws(
    () => validateExtensions(input),
    (error: unknown) =>
      error instanceof Invalid &&
      JSON.stringify(error.errors) ===
        JSON.stringify([
          { field: 'extensions.__proto__', message: 'the key "__proto__" is reserved' },
        ]),
  )
  // Label keys start with a letter or digit: refused by the pattern already.
  assert.throws(() => validateLabels(JSON.parse('{"__proto__": "x"}')), Invalid)
  // Keys that merely contain it are ordinary keys.
  assert.deepEqual(validateExtensions({ 'a.__proto__': 1 }), { 'a.__proto__': 1 })
})

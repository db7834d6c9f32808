import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { renderConfigDocs } from './docs.js'

test('docs/configuration.md is generated from the key table (run npm run docs:config)', () => {
  const committed = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8')
  assert.equal(committed, renderConfigDocs())
})

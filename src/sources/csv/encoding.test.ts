import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Utf8Check } from './encoding.js'

function checked(parts: Buffer[]): boolean {
  const check = new Utf8Check()
  for (const part of parts) check.feed(part)
  return check.end()
}

test('UTF-8 split anywhere is UTF-8; a stray, overlong or cut-off sequence is not', () => {
  const text = Buffer.from('a é – 😀 z') // 1-, 2-, 3- and 4-byte characters
  for (let at = 0; at <= text.length; at++) {
    for (let second = at; second <= text.length; second++) {
      const parts = [text.subarray(0, at), text.subarray(at, second), text.subarray(second)]
      assert.equal(checked(parts), true, `split at ${at} and ${second}`)
    }
  }
  const bad = [
    Buffer.from([0x61, 0x80, 0x62]), // a continuation byte with no lead
    Buffer.from([0xc0, 0xaf]), // an overlong "/"
    Buffer.from([0x43, 0x61, 0x66, 0xe9]), // "Caf" and é in Windows-1252, last in the file
    Buffer.from([0xe2, 0x80]), // a 3-byte character cut off at the end
  ]
  for (const bytes of bad) {
    assert.equal(checked([bytes]), false, bytes.toString('hex'))
    for (let at = 1; at < bytes.length; at++)
      assert.equal(
        checked([bytes.subarray(0, at), bytes.subarray(at)]),
        false,
        `${bytes.toString('hex')} at ${at}`,
      )
  }
})

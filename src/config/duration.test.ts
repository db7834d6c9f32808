import { test } from 'node:test'
import assert from 'node:assert/strict'
import { parseDuration } from './duration.js'

test('parseDuration reads Go-style durations into milliseconds', () => {
  const cases: [string, number][] = [
    ['0', 0],
    ['500ms', 500],
    ['10s', 10_000],
    ['1.5s', 1500],
    ['6h', 6 * 3_600_000],
    ['1h30m', 90 * 60_000],
    ['2m3s', 123_000],
    ['250us', 0.25],
    ['250µs', 0.25],
    ['1000000ns', 1],
    ['.5s', 500],
    ['+5s', 5000],
    ['0s', 0],
  ]
  for (const [text, ms] of cases) assert.equal(parseDuration(text), ms, text)
})

test('parseDuration rejects bad input with a message naming the problem', () => {
  const cases: [string, RegExp][] = [
    ['', /empty/],
    ['-5s', /negative/],
    ['10', /missing unit/],
    ['5x', /unknown unit "x"/],
    ['5 s', /unknown unit " s"/],
    ['s', /unexpected "s"/],
    ['1h30', /missing unit/],
    ['abc', /unexpected/],
    ['+', /missing number/],
  ]
  for (const [text, message] of cases) {
    assert.throws(() => parseDuration(text), message, text)
    assert.throws(
      () => parseDuration(text),
      (error: Error) => error.message.startsWith(`invalid duration ${JSON.stringify(text)}:`),
    )
  }
})

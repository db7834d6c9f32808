import assert from 'node:assert/strict'
import { test } from 'node:test'
import { readAhead } from './read-ahead.js'

test('pages come in order, at most `pages` ahead of the consumer', async () => {
  let produced = 0
  async function* source(): AsyncGenerator<number> {
    for (let i = 1; i <= 6; i++) {
      produced = i
      yield i
    }
  }
  const seen: Array<[number, number]> = []
  for await (const page of readAhead(source(), 2)) {
    // Yield to the event loop once: every pending step of the source runs first,
    // so how far it read ahead does not depend on timing.
    await new Promise((resolve) => setImmediate(resolve))
    seen.push([page, produced])
  }
  assert.deepEqual(
    seen.map(([page]) => page),
    [1, 2, 3, 4, 5, 6],
  )
  // While the consumer holds page n, the source has produced at most n + 2.
  for (const [page, ahead] of seen) assert.ok(ahead <= page + 2, `${ahead} produced at ${page}`)
  assert.ok(
    seen.some(([page, ahead]) => ahead > page),
    'something was read ahead',
  )
})

test('a failure arrives after the pages before it', async () => {
  async function* source(): AsyncGenerator<number> {
    yield 1
    yield 2
    throw new Error('page 3 failed')
  }
  const seen: number[] = []
  await assert.rejects(async () => {
    for await (const page of readAhead(source(), 5)) seen.push(page)
  }, /page 3 failed/)
  assert.deepEqual(seen, [1, 2])
})

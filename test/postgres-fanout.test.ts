// Several Coffer processes may share one PostgreSQL database (DESIGN "Storage"):
// a change made through one must reach the live subscribers of the other.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { followEvents } from '../src/events/follow.js'
import { POSTGRES_DSN, startTestApp } from './helpers/app.js'

test(
  'events committed by one process reach the bus of another, in order',
  { skip: !POSTGRES_DSN && 'COFFER_TEST_POSTGRES_DSN not set' },
  async (t) => {
    const first = await startTestApp(t)
    const second = await startTestApp(null, { reuse: { dir: first.dir, schema: first.schema } })
    t.after(() => second.stop())

    const controller = new AbortController()
    const seen: number[] = []
    const following = (async () => {
      for await (const event of followEvents({
        db: second.ctx.db.kysely,
        bus: second.ctx.bus,
        after: 0,
        signal: controller.signal,
      })) {
        seen.push(event.sequence)
        if (seen.length === 21) controller.abort()
      }
    })()

    const account = await first.request('POST', '/api/v1/accounts', {
      body: { name: 'Shared', currency: 'EUR' },
    })
    assert.equal(account.status, 201)
    // Writes from both processes, interleaved.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? first : second).request('POST', '/api/v1/transactions', {
          body: { account_id: account.body.id, amount: `${i}.00`, date: '2024-03-01' },
        }),
      ),
    )
    const deadline = setTimeout(() => controller.abort(), 10_000)
    await following
    clearTimeout(deadline)

    const log = await second.request('GET', '/api/v1/events?limit=1000')
    const expected = log.body.events.map((e: { sequence: number }) => e.sequence)
    assert.equal(expected.length, 21)
    assert.deepEqual(seen, expected)
  },
)

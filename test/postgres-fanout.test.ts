// Several Coffer processes may share one PostgreSQL database (DESIGN "Storage"):
// a change made through one must reach the live subscribers of the other.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { POSTGRES_DSN, startTestApp } from './helpers/app.js'
import { expectStatus } from './helpers/http.js'
import { keptAndCountedTransactions } from './helpers/ledger.js'

test(
  'events committed by one process reach the bus of another, in order',
  { skip: !POSTGRES_DSN && 'COFFER_TEST_POSTGRES_DSN not set' },
  async (t) => {
    const first = await startTestApp(t)
    const second = await startTestApp(null, { reuse: { dir: first.dir, schema: first.schema } })
    t.after(() => second.stop())

    // A subscriber of the second process's bus, not a follower: a follower replays the
    // log, so it would see the first process's events even if they never crossed over.
    const subscription = second.ctx.bus.subscribe()
    t.after(() => subscription.close())

    const account = await expectStatus(first, 'POST', '/api/v1/accounts', 201, {
      name: 'Shared',
      currency: 'EUR',
    })
    // Writes from both processes, interleaved.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        expectStatus(i % 2 === 0 ? first : second, 'POST', '/api/v1/transactions', 201, {
          account_id: account.id,
          amount: `${i}.00`,
          date: '2024-03-01',
        }),
      ),
    )
    const seen: number[] = []
    const deadline = setTimeout(() => subscription.close(), 10_000)
    while (seen.length < 21) {
      const event = await subscription.next()
      if (event === null) break
      seen.push(event.sequence)
    }
    clearTimeout(deadline)
    assert.equal(subscription.dropped, false)

    const log = await second.request('GET', '/api/v1/events?limit=1000')
    const expected = log.body.events.map((e: { sequence: number }) => e.sequence)
    assert.equal(expected.length, 21)
    assert.deepEqual(seen, expected)

    // Both processes kept the account's count of transactions through the same row.
    for (const app of [first, second]) {
      const list = await expectStatus(
        app,
        'GET',
        `/api/v1/accounts/${account.id}/transactions`,
        200,
      )
      assert.equal(list.total, 20)
    }
    const { kept, counted } = await keptAndCountedTransactions(first)
    assert.deepEqual(kept, counted)
  },
)

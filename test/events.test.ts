// The event log through REST (SPEC 2.6, 6.1; CONTRACT 6 "Events query"): paging
// by `after` and `limit`, filters, `newest`, one event by sequence, bad
// parameters, `events.enabled = false`, and that a rolled-back unit of work
// publishes nothing (neither in the log nor on the bus).
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import type { Subscription } from '../src/events/bus.js'
import type { EventEnvelope } from '../src/events/types.js'
import { ingestBatchInUnit } from '../src/ledger/ingest.js'
import { insertTransactionsInUnit } from '../src/ledger/transaction-insert.js'
import { expectStatus } from './helpers/http.js'
import { startTestApp, type TestAppHandle } from './helpers/app.js'

const T0 = '2024-05-01T12:00:00Z'
const fixedClock = { now: () => new Date(T0) }
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

async function page(
  app: TestAppHandle,
  query: string,
): Promise<{ events: EventEnvelope[]; next: number }> {
  return expectStatus(app, 'GET', `/api/v1/events${query}`, 200)
}

/** The whole log, read in pages of 1000 by following `next`. */
async function allEvents(app: TestAppHandle): Promise<EventEnvelope[]> {
  const out: EventEnvelope[] = []
  let after = 0
  for (;;) {
    const p = await page(app, `?after=${after}&limit=1000`)
    if (p.events.length === 0) {
      assert.equal(p.next, after)
      return out
    }
    out.push(...p.events)
    after = p.next
  }
}

function seqs(events: readonly EventEnvelope[]): number[] {
  return events.map((e) => e.sequence)
}

function problemBody(status: number, title: string, detail: string, errors?: object[]): object {
  return { type: 'about:blank', title, status, detail, ...(errors ? { errors } : {}) }
}

async function expectProblem(
  app: TestAppHandle,
  path: string,
  expected: object,
  method = 'GET',
): Promise<void> {
  const res = await app.request(method, path)
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, res.text)
  assert.deepEqual(res.body, expected, `${method} ${path}`)
}

test('the envelope of every event: sequence, event_id, occurred_at and a full snapshot', async (t) => {
  const app = await startTestApp(t, { clock: fixedClock })
  const acct = await expectStatus(app, 'POST', '/api/v1/accounts', 201, {
    name: 'Cash',
    currency: 'usd',
  })
  const tx = await expectStatus(app, 'POST', '/api/v1/transactions', 201, {
    account_id: acct.id,
    amount: '-12.50',
    date: '2024-04-30',
    payee: 'Bakery',
  })
  const edited = await expectStatus(app, 'PUT', `/api/v1/transactions/${tx.id}`, 200, {
    memo: 'bread',
  })
  const renamed = await expectStatus(app, 'PUT', `/api/v1/accounts/${acct.id}`, 200, {
    name: 'Wallet',
  })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${tx.id}/labels`, 200, {
    labels: { food: 'yes' },
  })
  const labelled = await expectStatus(app, 'GET', `/api/v1/transactions/${tx.id}`, 200)
  await expectStatus(app, 'DELETE', `/api/v1/transactions/${tx.id}`, 204)

  const events = await allEvents(app)
  assert.deepEqual(
    events.map(({ type, entity_type, entity_id }) => ({ type, entity_type, entity_id })),
    [
      { type: 'account.created', entity_type: 'account', entity_id: acct.id },
      { type: 'transaction.created', entity_type: 'transaction', entity_id: tx.id },
      { type: 'transaction.updated', entity_type: 'transaction', entity_id: tx.id },
      { type: 'account.updated', entity_type: 'account', entity_id: acct.id },
      { type: 'label.applied', entity_type: 'transaction', entity_id: tx.id },
      { type: 'transaction.deleted', entity_type: 'transaction', entity_id: tx.id },
    ],
  )
  // Data is the full snapshot of the entity as the API shows it.
  assert.deepEqual(events[0]!.data, acct)
  assert.deepEqual(events[1]!.data, tx)
  assert.deepEqual(events[2]!.data, edited)
  assert.deepEqual(events[3]!.data, renamed)
  const { change, ...labelSnapshot } = events[4]!.data as Record<string, unknown>
  assert.deepEqual(labelSnapshot, labelled)
  assert.deepEqual(change, { key: 'food', value: 'yes', previous: null })
  // A deleted event carries the last-known state.
  assert.deepEqual(events[5]!.data, labelled)

  for (const [i, event] of events.entries()) {
    assert.ok(Number.isInteger(event.sequence) && event.sequence > 0, `sequence ${event.sequence}`)
    if (i > 0) assert.ok(event.sequence > events[i - 1]!.sequence, 'strictly increasing')
    assert.match(event.event_id, UUID)
    assert.match(event.occurred_at, RFC3339_UTC)
    assert.equal(event.occurred_at, T0)
  }
  assert.equal(new Set(events.map((e) => e.event_id)).size, events.length, 'event ids are unique')

  // One event by sequence is the same envelope; an unknown sequence is 404.
  for (const event of events) {
    assert.deepEqual(await expectStatus(app, 'GET', `/api/v1/events/${event.sequence}`, 200), event)
  }
  const unknown = events.at(-1)!.sequence + 1000
  await expectProblem(
    app,
    `/api/v1/events/${unknown}`,
    problemBody(404, 'Not Found', `event ${unknown} not found`),
  )
  await expectProblem(app, '/api/v1/events/0', problemBody(404, 'Not Found', 'event 0 not found'))
})

test('after, limit, next and the filters page through the log', async (t) => {
  const app = await startTestApp(t, { clock: fixedClock })
  const a = await expectStatus(app, 'POST', '/api/v1/accounts', 201, { name: 'A', currency: 'usd' })
  const b = await expectStatus(app, 'POST', '/api/v1/accounts', 201, { name: 'B', currency: 'eur' })
  const txs: Array<{ id: string }> = []
  for (let i = 0; i < 4; i++) {
    txs.push(
      await expectStatus(app, 'POST', '/api/v1/transactions', 201, {
        account_id: i % 2 === 0 ? a.id : b.id,
        amount: `${i + 1}.00`,
        date: '2024-04-01',
      }),
    )
  }
  await expectStatus(app, 'PUT', `/api/v1/accounts/${a.id}`, 200, { name: 'A2' })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${txs[0]!.id}/labels`, 200, {
    labels: { k: 'v' },
  })

  const all = await allEvents(app)
  assert.equal(all.length, 8)

  // Defaults: after 0, everything (fewer than 100 here); next is the last sequence.
  assert.deepEqual(await page(app, ''), { events: all, next: all.at(-1)!.sequence })
  // after: only later events.
  const cut = all[2]!.sequence
  assert.deepEqual(await page(app, `?after=${cut}`), {
    events: all.slice(3),
    next: all.at(-1)!.sequence,
  })
  // limit: the first N after the cursor, next is the last returned.
  assert.deepEqual(await page(app, `?after=${cut}&limit=2`), {
    events: all.slice(3, 5),
    next: all[4]!.sequence,
  })
  // Following next with a small limit visits every event exactly once.
  const walked: EventEnvelope[] = []
  let cursor = 0
  for (let guard = 0; guard < 20; guard++) {
    const p = await page(app, `?after=${cursor}&limit=3`)
    if (p.events.length === 0) break
    walked.push(...p.events)
    cursor = p.next
  }
  assert.deepEqual(walked, all)
  // No event: next is `after` itself (also past the head, and with limit=0).
  const head = all.at(-1)!.sequence
  assert.deepEqual(await page(app, `?after=${head}`), { events: [], next: head })
  assert.deepEqual(await page(app, `?after=${head + 50}`), { events: [], next: head + 50 })
  assert.deepEqual(await page(app, `?after=${cut}&limit=0`), { events: [], next: cut })

  // Filters, alone and combined, with after and limit.
  const created = all.filter((e) => e.type === 'transaction.created')
  assert.equal(created.length, 4)
  assert.deepEqual(await page(app, '?type=transaction.created'), {
    events: created,
    next: created.at(-1)!.sequence,
  })
  assert.deepEqual(
    await page(app, `?type=transaction.created&after=${created[1]!.sequence}&limit=1`),
    {
      events: [created[2]],
      next: created[2]!.sequence,
    },
  )
  const accountEvents = all.filter((e) => e.entity_type === 'account')
  assert.deepEqual(
    accountEvents.map((e) => e.type),
    ['account.created', 'account.created', 'account.updated'],
  )
  assert.deepEqual(await page(app, '?entity_type=account'), {
    events: accountEvents,
    next: accountEvents.at(-1)!.sequence,
  })
  const ofA = all.filter((e) => e.entity_id === a.id)
  assert.equal(ofA.length, 2)
  assert.deepEqual(await page(app, `?entity_id=${a.id}`), {
    events: ofA,
    next: ofA.at(-1)!.sequence,
  })
  const tx0 = all.filter((e) => e.entity_id === txs[0]!.id)
  assert.deepEqual(
    tx0.map((e) => e.type),
    ['transaction.created', 'label.applied'],
  )
  assert.deepEqual(
    await page(app, `?entity_type=transaction&entity_id=${txs[0]!.id}&type=label.applied`),
    {
      events: [tx0[1]],
      next: tx0[1]!.sequence,
    },
  )
  // A filter that matches nothing: next stays at `after`.
  assert.deepEqual(await page(app, '?type=rule.created'), { events: [], next: 0 })
  assert.deepEqual(await page(app, `?type=rule.created&after=${cut}`), { events: [], next: cut })
  assert.deepEqual(await page(app, '?entity_id=nobody'), { events: [], next: 0 })

  // newest=N: the newest N, oldest first; with a filter; more than exist gives all.
  assert.deepEqual(await page(app, '?newest=3'), { events: all.slice(-3), next: head })
  assert.deepEqual(await page(app, '?newest=1'), { events: all.slice(-1), next: head })
  assert.deepEqual(await page(app, '?newest=2&type=transaction.created'), {
    events: created.slice(-2),
    next: created.at(-1)!.sequence,
  })
  assert.deepEqual(await page(app, '?newest=500'), { events: all, next: head })
})

test('limit defaults to 100 and is clamped to 1000', async (t) => {
  const app = await startTestApp(t, { clock: fixedClock })
  const count = 1100
  await app.ctx.ledger.mutate((uow) =>
    ingestBatchInUnit(uow, {
      source: 'csv',
      organizations: [{ id: 'csv:bank', name: 'Bank' }],
      accounts: [
        { id: 'csv:checking', org_id: 'csv:bank', name: 'Checking', currency: 'USD', balance: '0' },
      ],
      transactions: Array.from({ length: count }, (_, i) => ({
        id: `csv:${String(i).padStart(5, '0')}`,
        account_id: 'csv:checking',
        amount: '1.00',
        date: '2024-01-01T00:00:00Z',
      })),
    }),
  )
  const all = await allEvents(app)
  assert.equal(all.length, count + 1) // account.created, then one transaction.created each

  const byDefault = await page(app, '')
  assert.deepEqual(seqs(byDefault.events), seqs(all.slice(0, 100)))
  assert.equal(byDefault.next, all[99]!.sequence)

  const clamped = await page(app, '?limit=5000')
  assert.deepEqual(seqs(clamped.events), seqs(all.slice(0, 1000)))
  assert.equal(clamped.next, all[999]!.sequence)

  const rest = await page(app, `?after=${clamped.next}&limit=1000`)
  assert.deepEqual(seqs(rest.events), seqs(all.slice(1000)))

  // newest is clamped the same way, and stays ascending.
  const newest = await page(app, '?newest=5000')
  assert.deepEqual(seqs(newest.events), seqs(all.slice(-1000)))
  assert.equal(newest.next, all.at(-1)!.sequence)
})

test('bad query parameters and sequences are 400 problems', async (t) => {
  const app = await startTestApp(t)
  await expectStatus(app, 'POST', '/api/v1/accounts', 201, { name: 'A', currency: 'usd' })
  const invalid = (field: string, message: string) =>
    problemBody(400, 'Bad Request', `invalid querystring: ${field} ${message}`, [
      { field, message },
    ])
  await expectProblem(app, '/api/v1/events?after=-1', invalid('after', 'must be >= 0'))
  await expectProblem(app, '/api/v1/events?after=abc', invalid('after', 'must be integer'))
  await expectProblem(app, '/api/v1/events?after=1.5', invalid('after', 'must be integer'))
  await expectProblem(app, '/api/v1/events?limit=abc', invalid('limit', 'must be integer'))
  await expectProblem(app, '/api/v1/events?limit=-1', invalid('limit', 'must be >= 0'))
  await expectProblem(
    app,
    '/api/v1/events?limit=1&limit=2',
    invalid('limit', 'is given more than once'),
  )
  await expectProblem(app, '/api/v1/events?newest=0', invalid('newest', 'must be >= 1'))
  await expectProblem(
    app,
    '/api/v1/events?type=',
    invalid('type', 'must NOT have fewer than 1 characters'),
  )
  await expectProblem(
    app,
    '/api/v1/events/abc',
    problemBody(400, 'Bad Request', 'invalid params: sequence must be integer', [
      { field: 'sequence', message: 'must be integer' },
    ]),
  )
  await expectProblem(
    app,
    '/api/v1/events/-3',
    problemBody(400, 'Bad Request', 'invalid params: sequence must be >= 0', [
      { field: 'sequence', message: 'must be >= 0' },
    ]),
  )
  // Cursors beyond any database integer are refused, not passed to the database.
  for (const path of [
    '/api/v1/events?after=99999999999999999999999',
    '/api/v1/events?after=1e400',
    '/api/v1/events/99999999999999999999999',
    '/api/v1/events/1e400',
  ]) {
    const res = await app.request('GET', path)
    assert.equal(res.status, 400, `${path}: ${res.text}`)
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/)
  }
})

test('events.enabled = false: event routes answer 503, mutations still commit with history', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_EVENTS_ENABLED: 'false' }, clock: fixedClock })
  const off = problemBody(
    503,
    'Service Unavailable',
    'the event log is turned off (events.enabled = false)',
  )
  for (const path of [
    '/api/v1/events',
    '/api/v1/events?newest=1',
    '/api/v1/events/1',
    '/api/v1/events/stream',
  ]) {
    await expectProblem(app, path, off)
  }
  const sub = app.ctx.bus.subscribe()
  const acct = await expectStatus(app, 'POST', '/api/v1/accounts', 201, {
    name: 'Cash',
    currency: 'usd',
  })
  const tx = await expectStatus(app, 'POST', '/api/v1/transactions', 201, {
    account_id: acct.id,
    amount: '5',
    date: '2024-04-01',
  })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${tx.id}`, 200, { amount: '6' })
  assert.deepEqual(await expectStatus(app, 'GET', `/api/v1/transactions/${tx.id}`, 200), {
    ...tx,
    amount: '6',
  })
  const hist = await expectStatus(app, 'GET', `/api/v1/transactions/${tx.id}/history`, 200)
  assert.deepEqual(
    hist.versions.map((v: { version: number; kind: string; diff: unknown }) => [
      v.version,
      v.kind,
      v.diff,
    ]),
    [
      [1, 'imported', {}],
      [2, 'edited', { amount: { from: '5', to: '6' } }],
    ],
  )
  // Nothing was published: the subscription has nothing queued.
  assert.equal(
    await Promise.race([sub.next(), Promise.resolve('nothing queued')]),
    'nothing queued',
  )
  sub.close()

  // Nothing was written to the log either: the same database with events on shows none.
  await app.stop()
  const again = await startTestApp(null, { reuse: { dir: app.dir, schema: app.schema } })
  try {
    assert.deepEqual(await page(again, ''), { events: [], next: 0 })
    assert.equal((await expectStatus(again, 'GET', '/api/v1/transactions', 200)).total, 1)
  } finally {
    await again.stop()
  }
})

/**
 * Asserts that nothing reached `sub` so far: a sentinel change published after
 * the failed one must be the very first thing the subscription receives.
 */
async function expectNothingBefore(app: TestAppHandle, sub: Subscription): Promise<void> {
  const sentinel = await expectStatus(app, 'POST', '/api/v1/accounts', 201, {
    name: 'Sentinel',
    currency: 'usd',
  })
  const first = await sub.next()
  assert.ok(first, 'the sentinel event arrives')
  assert.equal(first.type, 'account.created')
  assert.equal(first.entity_id, sentinel.id)
  sub.close()
  assert.equal(await sub.next(), null)
}

test('a unit of work that throws rolls back and publishes nothing', async (t) => {
  const app = await startTestApp(t, { clock: fixedClock })
  const acct = await expectStatus(app, 'POST', '/api/v1/accounts', 201, {
    name: 'Cash',
    currency: 'usd',
  })
  const before = await allEvents(app)
  const sub = app.ctx.bus.subscribe()

  // 1. A transaction inserted through the internal helper (row, history, event), then a throw.
  const id = `man_${randomUUID()}`
  await assert.rejects(
    app.ctx.ledger.mutate(async (uow) => {
      await insertTransactionsInUnit(uow, [
        {
          id,
          account_id: acct.id,
          amount: '1.00',
          date: '2024-04-01T00:00:00Z',
          description: null,
          payee: null,
          memo: null,
          pending: 0,
          source: 'manual',
          created_at: uow.now,
          updated_at: uow.now,
          synced_at: uow.now,
        },
      ])
      throw new Error('boom after insert')
    }),
    /boom after insert/,
  )
  // 2. A bare emitted event, then a throw.
  await assert.rejects(
    app.ctx.ledger.mutate(async (uow) => {
      uow.emit({ type: 'account.updated', entity_type: 'account', entity_id: acct.id, data: acct })
      throw new Error('boom after emit')
    }),
    /boom after emit/,
  )

  assert.deepEqual(await allEvents(app), before)
  const missing = await app.request('GET', `/api/v1/transactions/${id}`)
  assert.equal(missing.status, 404, missing.text)
  assert.deepEqual((await expectStatus(app, 'GET', '/api/v1/transactions', 200)).transactions, [])
  const hist = await app.request('GET', `/api/v1/transactions/${id}/history`)
  assert.ok(
    hist.status === 404 || (hist.status === 200 && hist.body.versions.length === 0),
    hist.text,
  )
  assert.deepEqual(await expectStatus(app, 'GET', `/api/v1/accounts/${acct.id}`, 200), acct)
  await expectNothingBefore(app, sub)
})

test('a request that fails inside its unit of work leaves the event log unchanged', async (t) => {
  const app = await startTestApp(t, { clock: fixedClock })
  const acct = await expectStatus(app, 'POST', '/api/v1/accounts', 201, {
    name: 'Cash',
    currency: 'usd',
  })
  const tx = await expectStatus(app, 'POST', '/api/v1/transactions', 201, {
    account_id: acct.id,
    amount: '1',
    date: '2024-04-01',
  })
  await app.ctx.ledger.mutate((uow) =>
    ingestBatchInUnit(uow, {
      source: 'csv',
      organizations: [{ id: 'csv:bank', name: 'Bank' }],
      accounts: [
        { id: 'csv:checking', org_id: 'csv:bank', name: 'Checking', currency: 'USD', balance: '0' },
      ],
    }),
  )
  const before = await allEvents(app)
  const txsBefore = await expectStatus(app, 'GET', '/api/v1/transactions', 200)
  const sub = app.ctx.bus.subscribe()

  const unknownAccount = await app.request('POST', '/api/v1/transactions', {
    body: { account_id: 'man_acct_nope', amount: '1', date: '2024-04-01' },
  })
  assert.equal(unknownAccount.status, 400, unknownAccount.text)
  assert.deepEqual(
    unknownAccount.body,
    problemBody(400, 'Bad Request', 'account_id: account man_acct_nope does not exist', [
      { field: 'account_id', message: 'account man_acct_nope does not exist' },
    ]),
  )
  const moveToUnknown = await app.request('PUT', `/api/v1/transactions/${tx.id}`, {
    body: { account_id: 'man_acct_nope', amount: '2' },
  })
  assert.equal(moveToUnknown.status, 400, moveToUnknown.text)
  const syncedDelete = await app.request('DELETE', '/api/v1/accounts/csv:checking')
  assert.equal(syncedDelete.status, 409, syncedDelete.text)

  assert.deepEqual(await allEvents(app), before)
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/transactions', 200), txsBefore)
  await expectNothingBefore(app, sub)
})

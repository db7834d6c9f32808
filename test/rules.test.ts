// Rules over HTTP (CONTRACT 8; SPEC 2.9, 4.3, 6.2): CRUD and validation, runs
// (one rule, all rules), unapply and preview, with their exact counts, events and
// history, and rules applied to new transactions as they are created.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { sql } from 'kysely'
import { parseQuery, QueryError } from '../src/search/index.js'
import { ENGINE, startTestApp, type TestAppHandle } from './helpers/app.js'
import {
  createAccount,
  createTransaction,
  csvBatch,
  eventBodiesAfter,
  expectNoEvents,
  headSequence,
  history,
  ingest,
  problem,
  StepClock,
  T0,
} from './helpers/ledger.js'
import { expectProblem, expectStatus } from './helpers/http.js'
import { assertLogFoldsToLedger } from './helpers/log-fold.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

/** Two synced rows: a Starbucks purchase and a Deli one. */
const SYNCED_ROWS = [
  {
    id: 'csv:1',
    account_id: 'csv:checking',
    amount: '-3.00',
    date: '2024-02-01T00:00:00Z',
    payee: 'Starbucks',
  },
  {
    id: 'csv:2',
    account_id: 'csv:checking',
    amount: '-9.00',
    date: '2024-02-02T00:00:00Z',
    payee: 'Deli',
  },
]

const RULE_ID = /^rule_[0-9a-f-]{36}$/

/** What the search parser itself says about a query that does not parse. */
function parserMessage(query: string): string {
  try {
    parseQuery(query)
  } catch (error) {
    assert.ok(error instanceof QueryError)
    return error.errors![0]!.message
  }
  throw new Error(`${query} parses`)
}

async function setup(t: TestContext, clock = new StepClock()) {
  const app = await startTestApp(t, { clock })
  const acct = await createAccount(app, { name: 'Cash', currency: 'USD' })
  const tx = (payee: string, amount = '-4.50', date = '2024-01-15') =>
    createTransaction(app, { account_id: acct.id, amount, date, payee })
  return { app, acct, clock, tx }
}

function rulePath(id: string, action = ''): string {
  return `/api/v1/rules/${encodeURIComponent(id)}${action}`
}

async function createRule(app: TestAppHandle, body: object): Promise<Json> {
  return expectStatus(app, 'POST', '/api/v1/rules', 201, body)
}

async function getTx(app: TestAppHandle, id: string): Promise<Json> {
  return expectStatus(app, 'GET', `/api/v1/transactions/${encodeURIComponent(id)}`, 200)
}

/** The rules table is empty and the event log did not move. */
async function expectNothingWritten(app: TestAppHandle, action: () => Promise<unknown>) {
  await expectNoEvents(app, action)
  const list = await expectStatus(app, 'GET', '/api/v1/rules', 200)
  assert.equal(list.total, 0)
}

// ---------------------------------------------------------------- CRUD

test('create, get, list, replace and delete a rule, with rule.* events carrying the rule', async (t) => {
  const clock = new StepClock()
  const { app, tx } = await setup(t, clock)
  const coffee = await tx('Starbucks')
  const mark = await headSequence(app)

  const created = await createRule(app, {
    name: 'Coffee',
    query: 'payee:starbucks',
    labels: { Category: 'coffee' },
  })
  assert.match(created.id, RULE_ID)
  assert.deepEqual(created, {
    id: created.id,
    name: 'Coffee',
    query: 'payee:starbucks',
    labels: { category: 'coffee' },
    extensions: {},
    enabled: true,
    created_at: T0,
    updated_at: T0,
  })
  assert.deepEqual(await expectStatus(app, 'GET', rulePath(created.id), 200), created)

  const t1 = clock.advance(60)
  const second = await createRule(app, {
    name: 'Tax',
    query: 'amount:<0',
    extensions: { 'tax.deductible': true },
    enabled: false,
  })
  assert.equal(second.enabled, false)
  assert.equal(second.created_at, t1)

  // Oldest first, paged.
  const list = await expectStatus(app, 'GET', '/api/v1/rules', 200)
  assert.deepEqual(list, { rules: [created, second], total: 2, limit: 100, offset: 0 })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/rules?limit=1&offset=1', 200), {
    rules: [second],
    total: 2,
    limit: 1,
    offset: 1,
  })

  // A full replace: omitted labels/extensions/enabled take their defaults.
  const t2 = clock.advance(60)
  const replaced = await expectStatus(app, 'PUT', rulePath(created.id), 200, {
    name: 'Coffee shops',
    query: 'payee:starbucks OR payee:"blue bottle"',
    extensions: { 'merchant.kind': 'cafe' },
  })
  assert.deepEqual(replaced, {
    id: created.id,
    name: 'Coffee shops',
    query: 'payee:starbucks OR payee:"blue bottle"',
    labels: {},
    extensions: { 'merchant.kind': 'cafe' },
    enabled: true,
    created_at: T0,
    updated_at: t2,
  })
  // Replacing keeps its place in the order.
  const after = await expectStatus(app, 'GET', '/api/v1/rules', 200)
  assert.deepEqual(
    after.rules.map((r: Json) => r.id),
    [created.id, second.id],
  )

  const res = await app.request('DELETE', rulePath(second.id))
  assert.equal(res.status, 204)
  assert.equal(res.text, '')
  await expectProblem(app, 'GET', rulePath(second.id), 404)

  const events = await eventBodiesAfter(app, mark)
  assert.deepEqual(events, [
    {
      type: 'rule.created',
      entity_type: 'rule',
      entity_id: created.id,
      occurred_at: T0,
      data: created,
    },
    {
      type: 'rule.created',
      entity_type: 'rule',
      entity_id: second.id,
      occurred_at: t1,
      data: second,
    },
    {
      type: 'rule.updated',
      entity_type: 'rule',
      entity_id: created.id,
      occurred_at: t2,
      data: replaced,
    },
    {
      type: 'rule.deleted',
      entity_type: 'rule',
      entity_id: second.id,
      occurred_at: t2,
      data: second,
    },
  ])
  // Creating or replacing a rule changed no transaction.
  assert.deepEqual((await getTx(app, coffee.id)).labels, {})
  assert.deepEqual(
    (await history(app, coffee.id)).map((v) => v.kind),
    ['imported'],
  )
})

test('validation: 400 with the field named, and nothing written', async (t) => {
  const { app } = await setup(t)
  const ok = { name: 'R', query: 'payee:x', labels: { a: 'b' } }
  const bad = async (body: object, field: string, detail?: RegExp) => {
    let answer: Json
    await expectNothingWritten(app, async () => {
      answer = await expectProblem(app, 'POST', '/api/v1/rules', 400, body)
    })
    assert.deepEqual(
      answer.errors.map((e: Json) => e.field),
      [field],
      JSON.stringify(answer),
    )
    if (detail) assert.match(answer.detail, detail)
    return answer
  }
  await bad({ ...ok, name: '' }, 'name')
  await bad({ ...ok, name: '   ' }, 'name')
  await bad({ ...ok, name: 'x'.repeat(201) }, 'name', /at most 200 characters/)
  assert.equal((await createRule(app, { ...ok, name: 'x'.repeat(200) })).name.length, 200)
  await expectStatus(
    app,
    'DELETE',
    rulePath((await expectStatus(app, 'GET', '/api/v1/rules', 200)).rules[0].id),
    204,
  )

  // The parser's own message, with the offset, under the field `query`.
  for (const query of [
    'payee:x AND (amount:<0',
    'amount:abc',
    'date:2024-02-30',
    'pending:maybe',
  ]) {
    const answer = await bad({ ...ok, query }, 'query', /offset \d+/)
    assert.deepEqual(
      answer,
      problem(400, `query: ${parserMessage(query)}`, [
        { field: 'query', message: parserMessage(query) },
      ]),
    )
  }

  await bad({ ...ok, query: `payee:${'x'.repeat(4096)}` }, 'query', /at most 4096 characters/)
  await bad({ name: 'R', query: 'payee:x' }, 'labels', /at least one label or extension/)
  await bad({ name: 'R', query: 'payee:x', labels: {}, extensions: {} }, 'labels')

  const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']))
  await bad({ ...ok, labels: many }, 'labels', /at most 50 keys/)
  await bad({ ...ok, labels: { ['k'.repeat(65)]: 'v' } }, `labels.${'k'.repeat(65)}`)
  await bad({ ...ok, labels: { k: 'v'.repeat(257) } }, 'labels.k', /at most 256/)
  await bad({ ...ok, labels: { 'bad key': 'v' } }, 'labels.bad key')
  const manyExt = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`x.k${i}`, 1]))
  await bad({ ...ok, extensions: manyExt }, 'extensions', /at most 50 keys/)
  await bad({ ...ok, extensions: { ['e'.repeat(101)]: 1 } }, `extensions.${'e'.repeat(101)}`)
  await bad(
    { ...ok, extensions: { 'x.big': 'v'.repeat(8 * 1024) } },
    'extensions.x.big',
    /8192 bytes/,
  )

  // Strict bodies: unknown fields and wrong JSON types.
  await bad({ ...ok, color: 'red' }, 'color')
  await bad({ ...ok, enabled: 'yes' }, 'enabled')
  await bad({ ...ok, name: 5 }, 'name')
  await bad({ ...ok, labels: { a: 1 } }, 'labels.a')
  await bad({ query: 'payee:x', labels: { a: 'b' } }, 'name')
  await bad({ name: 'R', labels: { a: 'b' } }, 'query')

  // PUT validates the same way, and leaves the rule as it was.
  const rule = await createRule(app, ok)
  const mark = await headSequence(app)
  const put = await expectProblem(app, 'PUT', rulePath(rule.id), 400, { name: 'R', query: '(' })
  assert.deepEqual(
    put.errors.map((e: Json) => e.field),
    ['query'],
  )
  await expectProblem(app, 'PUT', rulePath(rule.id), 400, { name: 'R', query: 'payee:x' })
  assert.deepEqual(await eventBodiesAfter(app, mark), [])
  assert.deepEqual(await expectStatus(app, 'GET', rulePath(rule.id), 200), rule)
})

test('404 for every route of an unknown rule, and nothing written', async (t) => {
  const { app } = await setup(t)
  const body = { name: 'R', query: 'payee:x', labels: { a: 'b' } }
  const missing = 'rule_nope'
  await expectNoEvents(app, async () => {
    for (const [method, action, payload] of [
      ['GET', '', undefined],
      ['PUT', '', body],
      ['DELETE', '', undefined],
      ['POST', '/run', undefined],
      ['POST', '/unapply', undefined],
    ] as const) {
      assert.deepEqual(
        await expectProblem(app, method, rulePath(missing, action), 404, payload),
        problem(404, `rule ${missing} not found`),
      )
    }
  })
})

// ---------------------------------------------------------------- runs

test('POST /rules/{id}/run: exact counts, per-key events, labeled/extended versions, idempotent', async (t) => {
  const clock = new StepClock()
  const { app, tx } = await setup(t, clock)
  const a = await tx('Starbucks #12', '-4.50', '2024-01-15')
  const b = await tx('STARBUCKS', '-3.00', '2024-01-16')
  const c = await tx('Grocer', '-40.00', '2024-01-17')
  // Already carries the rule's label and extension: matched, not updated.
  const d = await tx('starbucks reserve', '-6.00', '2024-01-18')
  await expectStatus(app, 'PUT', `/api/v1/transactions/${d.id}/labels`, 200, {
    labels: { category: 'coffee' },
  })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${d.id}/extensions`, 200, {
    extensions: { 'merchant.name': 'Starbucks' },
  })
  // A rule changes nothing until it runs.
  const rule = await createRule(app, {
    name: 'Coffee',
    query: 'payee:starbucks',
    labels: { category: 'coffee' },
    extensions: { 'merchant.name': 'Starbucks' },
  })
  assert.deepEqual((await getTx(app, a.id)).labels, {})

  const t1 = clock.advance(60)
  const mark = await headSequence(app)
  assert.deepEqual(await expectStatus(app, 'POST', rulePath(rule.id, '/run'), 200), {
    matched: 3,
    updated: 2,
  })
  const events = await eventBodiesAfter(app, mark)
  // Transactions in id order (not the order they matched: newest first); labels,
  // then extensions, per transaction.
  const [first, second] = [a.id, b.id].sort()
  assert.deepEqual(
    events.map((e) => [e.type, e.entity_id]),
    [
      ['label.applied', first],
      ['extension.set', first],
      ['label.applied', second],
      ['extension.set', second],
      ['rule.executed', rule.id],
    ],
  )
  const applied = events.find((e) => e.type === 'label.applied' && e.entity_id === a.id)!
  const after = await getTx(app, a.id)
  assert.deepEqual(after.labels, { category: 'coffee' })
  assert.deepEqual(after.extensions, { 'merchant.name': 'Starbucks' })
  assert.deepEqual(applied, {
    type: 'label.applied',
    entity_type: 'transaction',
    entity_id: a.id,
    occurred_at: t1,
    data: {
      ...after,
      extensions: {},
      change: { key: 'category', value: 'coffee', previous: null },
    },
  })
  assert.deepEqual(events.at(-1), {
    type: 'rule.executed',
    entity_type: 'rule',
    entity_id: rule.id,
    occurred_at: t1,
    data: { rule_id: rule.id, matched: 3, updated: 2 },
  })
  const versions = await history(app, a.id)
  assert.deepEqual(
    versions.map((v) => [v.kind, v.diff]),
    [
      ['imported', {}],
      ['labeled', { 'labels.category': { from: null, to: 'coffee' } }],
      ['extended', { 'extensions.merchant.name': { from: null, to: 'Starbucks' } }],
    ],
  )
  assert.deepEqual(versions[2].snapshot, after)
  assert.deepEqual((await getTx(app, c.id)).labels, {})
  assert.equal((await history(app, d.id)).length, 3) // imported, labeled, extended by hand

  // The second run finds every key in place.
  const mark2 = await headSequence(app)
  assert.deepEqual(await expectStatus(app, 'POST', rulePath(rule.id, '/run'), 200), {
    matched: 3,
    updated: 0,
  })
  assert.deepEqual(
    (await eventBodiesAfter(app, mark2)).map((e) => [e.type, e.data]),
    [['rule.executed', { rule_id: rule.id, matched: 3, updated: 0 }]],
  )
  assert.equal((await history(app, a.id)).length, 3)
})

test('POST /rules/run: enabled rules oldest first, a later rule wins, only the net result is written', async (t) => {
  const clock = new StepClock()
  const { app, tx } = await setup(t, clock)
  const coffee = await tx('Starbucks', '-4.50')
  const grocer = await tx('Grocer', '-40.00')
  const salary = await tx('Employer', '2000.00')
  const spending = await createRule(app, {
    name: 'Spending',
    query: 'amount:<0',
    labels: { category: 'spending', kind: 'out' },
  })
  const coffeeRule = await createRule(app, {
    name: 'Coffee',
    query: 'payee:starbucks',
    labels: { category: 'coffee' },
    extensions: { 'merchant.name': 'Starbucks' },
  })
  const disabled = await createRule(app, {
    name: 'Off',
    query: 'amount:>0',
    labels: { category: 'income' },
    enabled: false,
  })

  const t1 = clock.advance(60)
  const mark = await headSequence(app)
  assert.deepEqual(await expectStatus(app, 'POST', '/api/v1/rules/run', 200), {
    matched: 2,
    updated: 2,
  })
  assert.deepEqual((await getTx(app, coffee.id)).labels, { category: 'coffee', kind: 'out' })
  assert.deepEqual((await getTx(app, coffee.id)).extensions, { 'merchant.name': 'Starbucks' })
  assert.deepEqual((await getTx(app, grocer.id)).labels, { category: 'spending', kind: 'out' })
  assert.deepEqual((await getTx(app, salary.id)).labels, {})

  const events = await eventBodiesAfter(app, mark)
  // One event per key with the net value: never "spending" then "coffee".
  const forCoffee = events.filter((e) => e.entity_id === coffee.id)
  assert.deepEqual(
    forCoffee.map((e) => [e.type, (e.data as Json).change]),
    [
      ['label.applied', { key: 'category', value: 'coffee', previous: null }],
      ['label.applied', { key: 'kind', value: 'out', previous: null }],
      ['extension.set', { key: 'merchant.name', value: 'Starbucks', previous: null }],
    ],
  )
  assert.deepEqual(events.at(-1), {
    type: 'rule.executed',
    entity_type: 'rule',
    entity_id: '*',
    occurred_at: t1,
    data: { rule_id: null, matched: 2, updated: 2 },
  })
  assert.equal(events.length, 3 + 2 + 1)
  // One labeled and one extended version for the coffee row.
  assert.deepEqual(
    (await history(app, coffee.id)).map((v) => [v.kind, v.diff]),
    [
      ['imported', {}],
      [
        'labeled',
        {
          'labels.category': { from: null, to: 'coffee' },
          'labels.kind': { from: null, to: 'out' },
        },
      ],
      ['extended', { 'extensions.merchant.name': { from: null, to: 'Starbucks' } }],
    ],
  )

  // Idempotent.
  assert.deepEqual(await expectStatus(app, 'POST', '/api/v1/rules/run', 200), {
    matched: 2,
    updated: 0,
  })
  // A disabled rule runs when asked by id.
  assert.deepEqual(await expectStatus(app, 'POST', rulePath(disabled.id, '/run'), 200), {
    matched: 1,
    updated: 1,
  })
  assert.deepEqual((await getTx(app, salary.id)).labels, { category: 'income' })

  // Running the older rule alone overwrites the newer one's value on the shared key.
  assert.deepEqual(await expectStatus(app, 'POST', rulePath(spending.id, '/run'), 200), {
    matched: 2,
    updated: 1,
  })
  assert.equal((await getTx(app, coffee.id)).labels.category, 'spending')
  // ... and the full run puts the later rule's value back.
  assert.deepEqual(await expectStatus(app, 'POST', '/api/v1/rules/run', 200), {
    matched: 2,
    updated: 1,
  })
  assert.equal((await getTx(app, coffee.id)).labels.category, 'coffee')

  // With no enabled rule: nothing matched, still one rule.executed.
  for (const rule of [spending, coffeeRule]) {
    await expectStatus(app, 'PUT', rulePath(rule.id), 200, {
      name: rule.name,
      query: rule.query,
      labels: rule.labels,
      extensions: rule.extensions,
      enabled: false,
    })
  }
  const mark2 = await headSequence(app)
  assert.deepEqual(await expectStatus(app, 'POST', '/api/v1/rules/run', 200), {
    matched: 0,
    updated: 0,
  })
  assert.deepEqual(
    (await eventBodiesAfter(app, mark2)).map((e) => e.type),
    ['rule.executed'],
  )
  await assertLogFoldsToLedger(app)
})

test('runs reach synced transactions too', async (t) => {
  const { app } = await setup(t)
  await ingest(app, csvBatch(SYNCED_ROWS))
  const rule = await createRule(app, {
    name: 'Checking coffee',
    query: 'account:checking payee:starbucks',
    labels: { category: 'coffee' },
  })
  assert.deepEqual(await expectStatus(app, 'POST', rulePath(rule.id, '/run'), 200), {
    matched: 1,
    updated: 1,
  })
  assert.deepEqual((await getTx(app, 'csv:1')).labels, { category: 'coffee' })
  assert.equal((await getTx(app, 'csv:1')).source, 'csv')
  assert.deepEqual((await getTx(app, 'csv:2')).labels, {})
})

/**
 * Makes the database itself refuse to label one transaction: a trigger created in
 * this test's database (the SQLite file, or the test's PostgreSQL schema), so a
 * run fails part-way on a real write with none of our code replaced. Answers a
 * function that drops it again.
 */
async function refuseLabelsFor(app: TestAppHandle, transactionId: string) {
  const db = app.ctx.db.kysely
  const id = sql.lit(transactionId)
  if (ENGINE === 'postgres') {
    await sql`create function refuse_label() returns trigger language plpgsql as $$
      begin
        if new.transaction_id = ${id} then raise exception 'injected: label refused'; end if;
        return new;
      end $$`.execute(db)
    await sql`create trigger refuse_label before insert on transaction_labels
      for each row execute function refuse_label()`.execute(db)
    return async () => {
      await sql`drop trigger refuse_label on transaction_labels`.execute(db)
      await sql`drop function refuse_label()`.execute(db)
    }
  }
  await sql`create trigger refuse_label before insert on transaction_labels
    when new.transaction_id = ${id}
    begin select raise(abort, 'injected: label refused'); end`.execute(db)
  return async () => {
    await sql`drop trigger refuse_label`.execute(db)
  }
}

test('a run is all or nothing: a write failing part-way leaves no label, version or event', async (t) => {
  const { app } = await setup(t)
  // 600 matches, written in id order in chunks of 500: the refused one is in
  // the second chunk, so 549 labels are written (with their versions, and their
  // events queued) before the failure.
  const rows = Array.from({ length: 600 }, (_, i) => ({
    id: `csv:${String(i + 1).padStart(4, '0')}`,
    account_id: 'csv:checking',
    amount: '-3.00',
    date: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString().slice(0, 19) + 'Z',
    payee: 'Starbucks',
  }))
  await ingest(app, csvBatch(rows))
  const rule = await createRule(app, {
    name: 'Coffee',
    query: 'payee:starbucks',
    labels: { category: 'coffee' },
  })
  const dropTrigger = await refuseLabelsFor(app, 'csv:0550')
  const mark = await headSequence(app)

  for (const path of [rulePath(rule.id, '/run'), '/api/v1/rules/run']) {
    assert.deepEqual(await expectStatus(app, 'POST', path, 500), {
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      detail: 'internal error; see the service log',
    })
    // Nothing of the run was applied: not the first transaction it wrote, not one
    // of a later chunk, and no label anywhere; no version; no event, not even rule.executed.
    for (const id of ['csv:0001', 'csv:0500', 'csv:0549']) {
      assert.deepEqual((await getTx(app, id)).labels, {}, id)
      assert.deepEqual(
        (await history(app, id)).map((v: Json) => v.kind),
        ['imported'],
        id,
      )
    }
    assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/labels', 200), { labels: [] })
    assert.equal(await headSequence(app), mark)
    assert.deepEqual(await eventBodiesAfter(app, mark), [])
  }

  // Without the trigger the same run goes through whole: it was that one write.
  await dropTrigger()
  assert.deepEqual(await expectStatus(app, 'POST', rulePath(rule.id, '/run'), 200), {
    matched: 600,
    updated: 600,
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/labels', 200), {
    labels: [{ key: 'category', value: 'coffee', transaction_count: 600 }],
  })
})

// ---------------------------------------------------------------- unapply

test('POST /rules/{id}/unapply removes only keys that still hold the rule values', async (t) => {
  const clock = new StepClock()
  const { app, tx } = await setup(t, clock)
  const a = await tx('Starbucks')
  const b = await tx('Starbucks')
  const c = await tx('Starbucks')
  const rule = await createRule(app, {
    name: 'Coffee',
    query: 'payee:starbucks',
    labels: { category: 'coffee' },
    extensions: { 'merchant.name': 'Starbucks', 'merchant.tags': ['a', { b: 1 }] },
  })
  await expectStatus(app, 'POST', rulePath(rule.id, '/run'), 200)
  // b's category changed since (kept), and it has a key of its own (kept).
  await expectStatus(app, 'PUT', `/api/v1/transactions/${b.id}/labels`, 200, {
    labels: { category: 'tea', trip: 'rome' },
  })
  // c lost everything of the rule since: matched, not changed.
  await expectStatus(app, 'PUT', `/api/v1/transactions/${c.id}/labels`, 200, { labels: {} })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${c.id}/extensions`, 200, {
    extensions: {},
  })

  const t1 = clock.advance(60)
  const mark = await headSequence(app)
  assert.deepEqual(await expectStatus(app, 'POST', rulePath(rule.id, '/unapply'), 200), {
    matched: 3,
    removed: 2,
  })
  assert.deepEqual(await getTx(app, a.id), { ...a, labels: {}, extensions: {} })
  const bNow = await getTx(app, b.id)
  assert.deepEqual(bNow.labels, { category: 'tea', trip: 'rome' })
  assert.deepEqual(bNow.extensions, {})

  const events = await eventBodiesAfter(app, mark)
  assert.deepEqual(
    events.filter((e) => e.entity_id === a.id).map((e) => [e.type, (e.data as Json).change]),
    [
      ['label.removed', { key: 'category', previous: 'coffee' }],
      ['extension.removed', { key: 'merchant.name', previous: 'Starbucks' }],
      ['extension.removed', { key: 'merchant.tags', previous: ['a', { b: 1 }] }],
    ],
  )
  assert.deepEqual(events.at(-1), {
    type: 'rule.executed',
    entity_type: 'rule',
    entity_id: rule.id,
    occurred_at: t1,
    data: { rule_id: rule.id, action: 'unapply', matched: 3, removed: 2 },
  })
  assert.deepEqual(
    (await history(app, a.id)).slice(-2).map((v) => [v.kind, Object.keys(v.diff)]),
    [
      ['labeled', ['labels.category']],
      ['extended', ['extensions.merchant.name', 'extensions.merchant.tags']],
    ],
  )
  // Again: nothing left to remove.
  assert.deepEqual(await expectStatus(app, 'POST', rulePath(rule.id, '/unapply'), 200), {
    matched: 3,
    removed: 0,
  })
  await assertLogFoldsToLedger(app)
})

// ---------------------------------------------------------------- preview

test('POST /rules/preview counts and shows the first 20 that would change, and writes nothing', async (t) => {
  const { app, tx } = await setup(t)
  const made: Json[] = []
  for (let day = 1; day <= 25; day++) {
    made.push(await tx('Starbucks', '-4.50', `2024-03-${String(day).padStart(2, '0')}`))
  }
  await tx('Grocer')
  const holder = made[24] // the newest already has the label
  await expectStatus(app, 'PUT', `/api/v1/transactions/${holder.id}/labels`, 200, {
    labels: { category: 'coffee' },
  })
  const versionsBefore = await history(app, made[0].id)
  let answer: Json
  await expectNoEvents(app, async () => {
    answer = await expectStatus(app, 'POST', '/api/v1/rules/preview', 200, {
      query: 'payee:starbucks',
      labels: { Category: 'coffee' },
    })
  })
  assert.equal(answer.matched, 25)
  assert.equal(answer.would_update, 24)
  // Newest first, as they are now.
  assert.deepEqual(
    answer.transactions,
    made
      .slice(0, 24)
      .reverse()
      .slice(0, 20)
      .map((m) => ({ ...m, labels: {} })),
  )
  assert.deepEqual(await history(app, made[0].id), versionsBefore)
  assert.deepEqual((await getTx(app, made[0].id)).labels, {})

  // Without labels or extensions: counts only.
  assert.deepEqual(
    await expectStatus(app, 'POST', '/api/v1/rules/preview', 200, { query: 'payee:grocer' }),
    { matched: 1, would_update: 0, transactions: [] },
  )
  // Extensions are compared as JSON, whatever the key order.
  await expectStatus(app, 'PUT', `/api/v1/transactions/${holder.id}/extensions`, 200, {
    extensions: { 'x.obj': { a: 1, b: 2 } },
  })
  const ext = await expectStatus(app, 'POST', '/api/v1/rules/preview', 200, {
    query: 'payee:starbucks',
    extensions: { 'x.obj': { b: 2, a: 1 } },
  })
  assert.equal(ext.would_update, 24)

  const bad = await expectProblem(app, 'POST', '/api/v1/rules/preview', 400, {
    query: 'payee:x )',
  })
  assert.deepEqual(
    bad.errors.map((e: Json) => e.field),
    ['query'],
  )
  assert.match(bad.detail, /offset/)
  await expectProblem(app, 'POST', '/api/v1/rules/preview', 400, {
    query: 'x',
    labels: { k: 'v'.repeat(257) },
  })
  await expectProblem(app, 'POST', '/api/v1/rules/preview', 400, { query: 'x', name: 'n' })
})

// ---------------------------------------------------------------- new transactions

test('a new manual transaction is born labelled: in its created event and imported version only', async (t) => {
  const clock = new StepClock()
  const { app, acct } = await setup(t, clock)
  await createRule(app, {
    name: 'Spending',
    query: 'amount:<0',
    labels: { category: 'spending' },
  })
  await createRule(app, {
    name: 'Coffee',
    query: 'payee:starbucks account:cash',
    labels: { category: 'coffee' },
    extensions: { 'merchant.name': 'Starbucks' },
  })
  await createRule(app, {
    name: 'Off',
    query: 'payee:starbucks',
    labels: { off: 'yes' },
    enabled: false,
  })

  const mark = await headSequence(app)
  const created = await createTransaction(app, {
    account_id: acct.id,
    amount: '-4.50',
    date: '2024-01-15',
    payee: 'Starbucks',
  })
  assert.deepEqual(created.labels, { category: 'coffee' })
  assert.deepEqual(created.extensions, { 'merchant.name': 'Starbucks' })
  assert.deepEqual(await getTx(app, created.id), created)

  const events = await eventBodiesAfter(app, mark)
  assert.deepEqual(events, [
    {
      type: 'transaction.created',
      entity_type: 'transaction',
      entity_id: created.id,
      occurred_at: T0,
      data: created,
    },
    {
      type: 'label.applied',
      entity_type: 'transaction',
      entity_id: created.id,
      occurred_at: T0,
      data: { ...created, change: { key: 'category', value: 'coffee', previous: null } },
    },
    {
      type: 'extension.set',
      entity_type: 'transaction',
      entity_id: created.id,
      occurred_at: T0,
      data: { ...created, change: { key: 'merchant.name', value: 'Starbucks', previous: null } },
    },
  ])
  assert.deepEqual(await history(app, created.id), [
    { version: 1, kind: 'imported', occurred_at: T0, snapshot: created, diff: {} },
  ])

  // A row no rule matches is born bare, with no further event.
  const mark2 = await headSequence(app)
  const income = await createTransaction(app, {
    account_id: acct.id,
    amount: '10.00',
    date: '2024-01-16',
    payee: 'Employer',
  })
  assert.deepEqual(income.labels, {})
  assert.deepEqual(
    (await eventBodiesAfter(app, mark2)).map((e) => e.type),
    ['transaction.created'],
  )
  // An edit does not re-apply rules.
  const edited = await expectStatus(app, 'PUT', `/api/v1/transactions/${income.id}`, 200, {
    amount: '-10.00',
  })
  assert.deepEqual(edited.labels, {})
})

test('synced rows are born labelled; a re-sync, changed or not, applies nothing', async (t) => {
  const { app } = await setup(t)
  const rows = SYNCED_ROWS
  await ingest(app, csvBatch([rows[1]!]))
  // `account:` matches the account's name, looked up in the unit that inserts the rows.
  await createRule(app, {
    name: 'Food',
    query: '(payee:starbucks OR payee:deli) account:checking',
    labels: { category: 'food' },
  })
  const mark = await headSequence(app)
  assert.deepEqual(await ingest(app, csvBatch(rows)), { inserted: 1, updated: 0, unchanged: 1 })
  assert.deepEqual((await getTx(app, 'csv:1')).labels, { category: 'food' })
  // csv:2 existed before the rule: the re-sync does not touch it.
  assert.deepEqual((await getTx(app, 'csv:2')).labels, {})
  assert.deepEqual(
    (await eventBodiesAfter(app, mark)).map((e) => [e.type, e.entity_id]),
    [
      ['transaction.created', 'csv:1'],
      ['label.applied', 'csv:1'],
    ],
  )
  assert.deepEqual(
    (await history(app, 'csv:1')).map((v) => [v.kind, v.snapshot.labels]),
    [['imported', { category: 'food' }]],
  )

  // Unchanged re-sync: nothing; a changed row gets its synced version, no rule.
  await expectStatus(app, 'PUT', '/api/v1/transactions/csv:1/labels', 200, { labels: {} })
  await expectNoEvents(app, async () => {
    assert.deepEqual(await ingest(app, csvBatch(rows)), { inserted: 0, updated: 0, unchanged: 2 })
  })
  const mark2 = await headSequence(app)
  await ingest(app, csvBatch([{ ...rows[0]!, amount: '-3.50' }]))
  assert.deepEqual(
    (await eventBodiesAfter(app, mark2)).map((e) => e.type),
    ['transaction.updated'],
  )
  assert.deepEqual((await getTx(app, 'csv:1')).labels, {})
  await assertLogFoldsToLedger(app)
})

// ---------------------------------------------------------------- tiers

test('rules never take a transaction past 50 label or extension keys', async (t) => {
  const { app, tx } = await setup(t)
  const full = await tx('Kiosk')
  const labels = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'x']))
  await expectStatus(app, 'PUT', `/api/v1/transactions/${full.id}/labels`, 200, { labels })
  const rule = await createRule(app, {
    name: 'Two more',
    query: 'payee:kiosk',
    labels: { k0: 'changed', extra1: 'a', extra2: 'b' },
  })
  // The existing key changes; one new key fits, the other does not.
  assert.deepEqual(await expectStatus(app, 'POST', rulePath(rule.id, '/run'), 200), {
    matched: 1,
    updated: 1,
  })
  const after = await getTx(app, full.id)
  assert.equal(Object.keys(after.labels).length, 50)
  assert.equal(after.labels.k0, 'changed')
  assert.equal(after.labels.extra1, 'a')
  assert.equal(after.labels.extra2, undefined)
  // Nothing left that fits: a second run writes nothing.
  assert.deepEqual(await expectStatus(app, 'POST', rulePath(rule.id, '/run'), 200), {
    matched: 1,
    updated: 0,
  })

  // A new transaction that two rules give 60 keys in all is born with 50.
  const wide = (from: number) =>
    Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`w${from + i}`, 'y']))
  await createRule(app, { name: 'Wide A', query: 'payee:bakery', labels: wide(0) })
  await createRule(app, { name: 'Wide B', query: 'payee:bakery', labels: wide(30) })
  const born = await tx('Bakery')
  assert.equal(Object.keys(born.labels).length, 50)
  assert.equal(born.labels.w49, 'y')
  assert.equal(born.labels.w50, undefined)
})

test('rule writes are write tier, reads are read tier', async (t) => {
  const token = 'rules-dashboard-token-0123456789'
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: token } })
  const keyOf = async (scope: string) =>
    (
      await app.request('POST', '/api/v1/security/api-keys', {
        token,
        body: { name: scope, scope },
      })
    ).body.key as string
  const read = await keyOf('read')
  const write = await keyOf('read_write')
  const body = { name: 'R', query: 'payee:x', labels: { a: 'b' } }
  const created = await app.request('POST', '/api/v1/rules', { token: write, body })
  assert.equal(created.status, 201, created.text)
  const id = created.body.id as string
  for (const [method, path, payload] of [
    ['POST', '/api/v1/rules', body],
    ['PUT', rulePath(id), body],
    ['DELETE', rulePath(id), undefined],
    ['POST', rulePath(id, '/run'), undefined],
    ['POST', '/api/v1/rules/run', undefined],
    ['POST', rulePath(id, '/unapply'), undefined],
    ['POST', '/api/v1/rules/preview', { query: 'x' }],
  ] as const) {
    const res = await app.request(method, path, {
      token: read,
      ...(payload ? { body: payload } : {}),
    })
    assert.equal(res.status, 403, `${method} ${path}`)
  }
  assert.equal((await app.request('GET', '/api/v1/rules', { token: read })).status, 200)
  assert.equal((await app.request('GET', rulePath(id), { token: read })).status, 200)
  assert.equal((await app.request('POST', '/api/v1/rules/run', { token: write })).status, 200)
  assert.equal((await app.request('GET', '/api/v1/rules')).status, 401)
})

test('a stored rule that cannot run is skipped and reported; the other rules, syncs and manual entries go on', async (t) => {
  const { app, tx } = await setup(t)
  const coffee = await tx('Starbucks')
  const first = await createRule(app, {
    name: 'Coffee',
    query: 'payee:starbucks',
    labels: { category: 'coffee' },
  })
  const broken = await createRule(app, {
    name: 'Legacy',
    query: 'payee:x',
    labels: { legacy: 'yes' },
  })
  const last = await createRule(app, { name: 'Out', query: 'amount:<0', labels: { kind: 'out' } })
  // As an older version might have stored it: a query today's parser refuses.
  const stored = '(payee:starbucks'
  await app.ctx.db.kysely
    .updateTable('rules')
    .set({ query: stored })
    .where('id', '=', broken.id)
    .execute()
  const detail = `its query no longer parses: ${parserMessage(stored)}`

  const mark = await headSequence(app)
  assert.deepEqual(await expectStatus(app, 'POST', '/api/v1/rules/run', 200), {
    matched: 1,
    updated: 1,
    failed: [{ rule_id: broken.id, name: 'Legacy', detail }],
  })
  assert.deepEqual((await getTx(app, coffee.id)).labels, { category: 'coffee', kind: 'out' })
  const executed = (await eventBodiesAfter(app, mark)).filter((e) => e.type === 'rule.executed')
  assert.deepEqual(
    executed.map((e) => e.data),
    [{ rule_id: null, matched: 1, updated: 1, failed: [broken.id] }],
  )
  assert.ok(app.logs.some((line) => line.includes('rules: \\"Legacy\\" skipped')))

  // Run alone, it says why with a 409; its neighbours still run alone.
  const refused = await expectProblem(app, 'POST', rulePath(broken.id, '/run'), 409)
  assert.equal(refused.detail, `rule ${broken.id} cannot run: ${detail}; replace its query`)
  await expectProblem(app, 'POST', rulePath(broken.id, '/unapply'), 409)
  await expectStatus(app, 'POST', rulePath(first.id, '/run'), 200)
  await expectStatus(app, 'POST', rulePath(last.id, '/run'), 200)

  // New transactions still get the rules that can run.
  const latte = await tx('Starbucks', '-3.00')
  assert.deepEqual(latte.labels, { category: 'coffee', kind: 'out' })

  // Replacing its query mends it.
  await expectStatus(app, 'PUT', rulePath(broken.id), 200, {
    name: 'Legacy',
    query: 'payee:starbucks',
    labels: { legacy: 'yes' },
  })
  assert.deepEqual(await expectStatus(app, 'POST', '/api/v1/rules/run', 200), {
    matched: 2,
    updated: 2,
  })
})

// User-owned metadata over HTTP (SPEC 2.3, 2.4, 3, 6.2; CONTRACT 6): labels,
// extensions and relationships, with their per-key events, history versions,
// vocabularies and limits. They stay editable on synced transactions.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp, type TestAppHandle } from './helpers/app.js'
import {
  createTransaction,
  csvBatch,
  eventBodiesAfter,
  expectNoEvents,
  headSequence,
  history,
  ingest,
  problem,
  problemFields,
  StepClock,
  startWithCashAccount,
  T0,
} from './helpers/ledger.js'
import { expectProblem, expectStatus } from './helpers/http.js'

function labelsPath(id: string): string {
  return `/api/v1/transactions/${encodeURIComponent(id)}/labels`
}

function extensionsPath(id: string): string {
  return `/api/v1/transactions/${encodeURIComponent(id)}/extensions`
}

function relationshipsPath(id: string): string {
  return `/api/v1/transactions/${encodeURIComponent(id)}/relationships`
}

async function getTx(app: TestAppHandle, id: string) {
  return expectStatus(app, 'GET', `/api/v1/transactions/${encodeURIComponent(id)}`, 200)
}

// ---------------------------------------------------------------- labels

test('PUT labels replaces the set, lower-cases keys, emits per-key events and a labeled version', async (t) => {
  const clock = new StepClock()
  const { app, tx } = await startWithCashAccount(t, clock)
  const txn = await tx()
  const mark = await headSequence(app)

  const t1 = clock.advance(60)
  assert.deepEqual(
    await expectStatus(app, 'PUT', labelsPath(txn.id), 200, {
      labels: { Trip: 'Rome', Category: 'Food' },
    }),
    { id: txn.id, labels: { category: 'Food', trip: 'Rome' } },
  )
  const v2 = { ...txn, labels: { category: 'Food', trip: 'Rome' } }
  assert.deepEqual(await getTx(app, txn.id), v2)

  const t2 = clock.advance(60)
  assert.deepEqual(
    await expectStatus(app, 'PUT', labelsPath(txn.id), 200, {
      labels: { category: 'Groceries', note: 'weekly' },
    }),
    { id: txn.id, labels: { category: 'Groceries', note: 'weekly' } },
  )
  const v3 = { ...txn, labels: { category: 'Groceries', note: 'weekly' } }
  assert.deepEqual(await getTx(app, txn.id), v3)

  const t3 = clock.advance(60)
  assert.deepEqual(await expectStatus(app, 'PUT', labelsPath(txn.id), 200, { labels: {} }), {
    id: txn.id,
    labels: {},
  })
  const v4 = { ...txn, labels: {} }

  const event = (
    type: string,
    occurred_at: string,
    data: object,
    change: object,
  ): Record<string, unknown> => ({
    type,
    entity_type: 'transaction',
    entity_id: txn.id,
    occurred_at,
    data: { ...data, change },
  })
  assert.deepEqual(await eventBodiesAfter(app, mark), [
    event('label.applied', t1, v2, { key: 'category', value: 'Food', previous: null }),
    event('label.applied', t1, v2, { key: 'trip', value: 'Rome', previous: null }),
    event('label.applied', t2, v3, { key: 'category', value: 'Groceries', previous: 'Food' }),
    event('label.applied', t2, v3, { key: 'note', value: 'weekly', previous: null }),
    event('label.removed', t2, v3, { key: 'trip', previous: 'Rome' }),
    event('label.removed', t3, v4, { key: 'category', previous: 'Groceries' }),
    event('label.removed', t3, v4, { key: 'note', previous: 'weekly' }),
  ])

  assert.deepEqual(await history(app, txn.id), [
    { version: 1, kind: 'imported', occurred_at: T0, snapshot: txn, diff: {} },
    {
      version: 2,
      kind: 'labeled',
      occurred_at: t1,
      snapshot: v2,
      diff: {
        'labels.category': { from: null, to: 'Food' },
        'labels.trip': { from: null, to: 'Rome' },
      },
    },
    {
      version: 3,
      kind: 'labeled',
      occurred_at: t2,
      snapshot: v3,
      diff: {
        'labels.category': { from: 'Food', to: 'Groceries' },
        'labels.note': { from: null, to: 'weekly' },
        'labels.trip': { from: 'Rome', to: null },
      },
    },
    {
      version: 4,
      kind: 'labeled',
      occurred_at: t3,
      snapshot: v4,
      diff: {
        'labels.category': { from: 'Groceries', to: null },
        'labels.note': { from: 'weekly', to: null },
      },
    },
  ])

  // The same set again (keys in any case) changes nothing: 200, no event, no version.
  await expectStatus(app, 'PUT', labelsPath(txn.id), 200, { labels: { a: '1' } })
  await expectNoEvents(app, async () => {
    assert.deepEqual(
      await expectStatus(app, 'PUT', labelsPath(txn.id), 200, { labels: { A: '1' } }),
      {
        id: txn.id,
        labels: { a: '1' },
      },
    )
  })
  assert.equal((await history(app, txn.id)).length, 5)
})

test('PUT labels validates keys, values and limits and writes nothing on error', async (t) => {
  const { app, tx } = await startWithCashAccount(t)
  const txn = await tx()
  await expectStatus(app, 'PUT', labelsPath(txn.id), 200, { labels: { keep: 'me' } })
  const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']))
  const cases: Array<[unknown, string]> = [
    [{ labels: { ...fifty, k50: 'v' } }, 'labels'],
    [{ labels: { ['k'.repeat(65)]: 'v' } }, `labels.${'k'.repeat(65)}`],
    [{ labels: { long: 'v'.repeat(257) } }, 'labels.long'],
    [{ labels: { 'a b': 'v' } }, 'labels.a b'],
    [{ labels: { 'a:b': 'v' } }, 'labels.a:b'],
    [{ labels: { '': 'v' } }, 'labels.'],
    [{ labels: { Dup: '1', dup: '2' } }, 'labels.dup'],
    [{ labels: { n: 1 } }, 'labels.n'],
    [{ labels: { n: null } }, 'labels.n'],
    [{ labels: { n: 'line\nbreak' } }, 'labels.n'],
    [{ labels: ['a'] }, 'labels'],
    [{}, 'labels'],
    [{ labels: {}, extra: true }, 'extra'],
  ]
  await expectNoEvents(app, async () => {
    for (const [body, field] of cases) {
      const res = await expectProblem(app, 'PUT', labelsPath(txn.id), 400, body)
      assert.deepEqual(problemFields(res), [field], JSON.stringify(body).slice(0, 80))
    }
  })
  assert.deepEqual(
    await expectProblem(app, 'PUT', labelsPath(txn.id), 400, { labels: { long: 'v'.repeat(257) } }),
    problem(400, 'labels.long: a label value is at most 256 characters', [
      { field: 'labels.long', message: 'a label value is at most 256 characters' },
    ]),
  )
  assert.deepEqual((await getTx(app, txn.id)).labels, { keep: 'me' })
  assert.equal((await history(app, txn.id)).length, 2)

  // The limits themselves are accepted.
  const atLimit = { ...fifty }
  delete atLimit.k0
  atLimit['k'.repeat(64)] = 'v'.repeat(256)
  const res = await expectStatus(app, 'PUT', labelsPath(txn.id), 200, { labels: atLimit })
  assert.equal(Object.keys(res.labels).length, 50)
  assert.equal(res.labels['k'.repeat(64)], 'v'.repeat(256))

  await expectNoEvents(app, async () => {
    assert.deepEqual(
      await expectProblem(app, 'PUT', labelsPath('nope'), 404, { labels: { a: 'b' } }),
      problem(404, 'transaction nope not found'),
    )
  })
})

test('GET /labels counts per pair; DELETE /labels/{key} emits one coarse event', async (t) => {
  const clock = new StepClock()
  const { app, tx } = await startWithCashAccount(t, clock)
  const a = await tx('2024-01-01')
  const b = await tx('2024-01-02')
  const c = await tx('2024-01-03')
  await ingest(
    app,
    csvBatch([
      { id: 'csv:s', account_id: 'csv:checking', amount: '1', date: '2024-01-04T00:00:00Z' },
    ]),
  )
  await expectStatus(app, 'PUT', labelsPath(a.id), 200, {
    labels: { category: 'food', trip: 'rome' },
  })
  await expectStatus(app, 'PUT', labelsPath(b.id), 200, { labels: { category: 'food' } })
  await expectStatus(app, 'PUT', labelsPath(c.id), 200, {
    labels: { category: 'travel', trip: 'rome' },
  })
  // Synced transactions carry labels like any other.
  await expectStatus(app, 'PUT', labelsPath('csv:s'), 200, { labels: { category: 'travel' } })

  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/labels', 200), {
    labels: [
      { key: 'category', value: 'food', transaction_count: 2 },
      { key: 'category', value: 'travel', transaction_count: 2 },
      { key: 'trip', value: 'rome', transaction_count: 2 },
    ],
  })

  // ?value= narrows the delete to one pair; the key is matched case-insensitively.
  let mark = await headSequence(app)
  const t1 = clock.advance(60)
  assert.deepEqual(await expectStatus(app, 'DELETE', '/api/v1/labels/Category?value=travel', 200), {
    key: 'category',
    value: 'travel',
    removed_from: 2,
  })
  assert.deepEqual(await eventBodiesAfter(app, mark), [
    {
      type: 'label.removed',
      entity_type: 'label',
      entity_id: 'category',
      occurred_at: t1,
      data: { key: 'category', value: 'travel', removed_from: 2 },
    },
  ])
  assert.deepEqual((await getTx(app, c.id)).labels, { trip: 'rome' })
  assert.deepEqual((await getTx(app, 'csv:s')).labels, {})
  assert.deepEqual((await getTx(app, a.id)).labels, { category: 'food', trip: 'rome' })
  assert.deepEqual((await history(app, c.id)).at(-1), {
    version: 3,
    kind: 'labeled',
    occurred_at: t1,
    snapshot: { ...c, labels: { trip: 'rome' } },
    diff: { 'labels.category': { from: 'travel', to: null } },
  })

  mark = await headSequence(app)
  const t2 = clock.advance(60)
  assert.deepEqual(await expectStatus(app, 'DELETE', '/api/v1/labels/trip', 200), {
    key: 'trip',
    removed_from: 2,
  })
  assert.deepEqual(await eventBodiesAfter(app, mark), [
    {
      type: 'label.removed',
      entity_type: 'label',
      entity_id: 'trip',
      occurred_at: t2,
      data: { key: 'trip', removed_from: 2 },
    },
  ])
  assert.deepEqual((await getTx(app, a.id)).labels, { category: 'food' })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/labels', 200), {
    labels: [{ key: 'category', value: 'food', transaction_count: 2 }],
  })

  // Nothing to remove: the answer says so, and nothing is written.
  await expectNoEvents(app, async () => {
    assert.deepEqual(await expectStatus(app, 'DELETE', '/api/v1/labels/trip', 200), {
      key: 'trip',
      removed_from: 0,
    })
    assert.deepEqual(await expectStatus(app, 'DELETE', '/api/v1/labels/category?value=nope', 200), {
      key: 'category',
      value: 'nope',
      removed_from: 0,
    })
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/labels', 200), {
    labels: [{ key: 'category', value: 'food', transaction_count: 2 }],
  })
})

// ------------------------------------------------------------ extensions

test('PUT extensions keeps exact JSON types, emits per-key events and an extended version', async (t) => {
  const clock = new StepClock()
  const { app, tx } = await startWithCashAccount(t, clock)
  const txn = await tx()
  const mark = await headSequence(app)
  const values = {
    'tax.deductible': true,
    'tax.rate': 0.075,
    'tax.code': 'A-1',
    'Custom.App.Ref': null,
    'custom.app.meta': { nested: [1, 'two', false, null, { x: -0.5 }] },
    'custom.app.list': [],
    'custom.app.empty': {},
    big: 9007199254740991,
    zero: 0,
    negative: -42,
    text: '12.50',
  }
  const t1 = clock.advance(60)
  const res = await expectStatus(app, 'PUT', extensionsPath(txn.id), 200, { extensions: values })
  assert.deepEqual(res, { id: txn.id, extensions: values })
  // Keys come back sorted (byte order), values with their types.
  assert.deepEqual(Object.keys(res.extensions), Object.keys(values).sort())
  const v2 = { ...txn, extensions: values }
  assert.deepEqual(await getTx(app, txn.id), v2)
  // Nothing was coerced: the string "12.50" is not the number 12.5.
  const raw = await app.request('GET', `/api/v1/transactions/${txn.id}`)
  assert.match(raw.text, /"text":"12.50"/)
  assert.match(raw.text, /"tax.rate":0.075/)
  assert.match(raw.text, /"big":9007199254740991/)

  const t2 = clock.advance(60)
  const next = { 'tax.deductible': false, 'tax.rate': 0.075, extra: 'new' }
  assert.deepEqual(
    await expectStatus(app, 'PUT', extensionsPath(txn.id), 200, { extensions: next }),
    {
      id: txn.id,
      extensions: next,
    },
  )
  const v3 = { ...txn, extensions: next }

  const t3 = clock.advance(60)
  assert.deepEqual(
    await expectStatus(app, 'PUT', extensionsPath(txn.id), 200, { extensions: {} }),
    {
      id: txn.id,
      extensions: {},
    },
  )
  const v4 = { ...txn, extensions: {} }

  const events = await eventBodiesAfter(app, mark)
  const sortedKeys = Object.keys(values).sort()
  assert.deepEqual(
    events.slice(0, sortedKeys.length),
    sortedKeys.map((key) => ({
      type: 'extension.set',
      entity_type: 'transaction',
      entity_id: txn.id,
      occurred_at: t1,
      data: { ...v2, change: { key, value: values[key as keyof typeof values], previous: null } },
    })),
  )
  const ev = (type: string, at: string, data: object, change: object) => ({
    type,
    entity_type: 'transaction',
    entity_id: txn.id,
    occurred_at: at,
    data: { ...data, change },
  })
  const removedInV3 = sortedKeys.filter((k) => !(k in next))
  assert.deepEqual(events.slice(sortedKeys.length), [
    // v3: changed, added and removed keys, in key order.
    ...[...removedInV3, 'extra', 'tax.deductible'].sort().map((key) =>
      key === 'extra'
        ? ev('extension.set', t2, v3, { key, value: 'new', previous: null })
        : key === 'tax.deductible'
          ? ev('extension.set', t2, v3, { key, value: false, previous: true })
          : ev('extension.removed', t2, v3, {
              key,
              previous: values[key as keyof typeof values],
            }),
    ),
    // v4: `{}` clears every key.
    ev('extension.removed', t3, v4, { key: 'extra', previous: 'new' }),
    ev('extension.removed', t3, v4, { key: 'tax.deductible', previous: false }),
    ev('extension.removed', t3, v4, { key: 'tax.rate', previous: 0.075 }),
  ])

  const versions = await history(app, txn.id)
  assert.deepEqual(
    versions.map((v: { kind: string; occurred_at: string }) => [v.kind, v.occurred_at]),
    [
      ['imported', T0],
      ['extended', t1],
      ['extended', t2],
      ['extended', t3],
    ],
  )
  assert.deepEqual(versions[1].snapshot, v2)
  assert.deepEqual(
    versions[1].diff,
    Object.fromEntries(
      sortedKeys.map((k) => [
        `extensions.${k}`,
        { from: null, to: values[k as keyof typeof values] },
      ]),
    ),
  )
  assert.deepEqual(versions[2].snapshot, v3)
  assert.deepEqual(versions[2].diff, {
    ...Object.fromEntries(
      removedInV3.map((k) => [
        `extensions.${k}`,
        { from: values[k as keyof typeof values], to: null },
      ]),
    ),
    'extensions.extra': { from: null, to: 'new' },
    'extensions.tax.deductible': { from: true, to: false },
  })
  assert.deepEqual(versions[3], {
    version: 4,
    kind: 'extended',
    occurred_at: t3,
    snapshot: v4,
    diff: {
      'extensions.extra': { from: 'new', to: null },
      'extensions.tax.deductible': { from: false, to: null },
      'extensions.tax.rate': { from: 0.075, to: null },
    },
  })

  // The same set again is no change.
  await expectStatus(app, 'PUT', extensionsPath(txn.id), 200, { extensions: { a: { b: [1] } } })
  await expectNoEvents(app, async () => {
    await expectStatus(app, 'PUT', extensionsPath(txn.id), 200, { extensions: { a: { b: [1] } } })
  })
  assert.equal((await history(app, txn.id)).length, 5)
})

test('keys named like members of every JavaScript object (constructor, valueOf, toString) are keys like any other', async (t) => {
  const { app, tx } = await startWithCashAccount(t)
  const txn = await tx()
  const labels = { constructor: 'x', tostring: 'y' }
  assert.deepEqual(await expectStatus(app, 'PUT', labelsPath(txn.id), 200, { labels }), {
    id: txn.id,
    labels,
  })
  const extensions = { valueOf: true, toString: 1, hasOwnProperty: 'no' }
  await expectStatus(app, 'PUT', extensionsPath(txn.id), 200, { extensions })
  // Dropping them again (this was a 500, and the row was stuck with them).
  await expectStatus(app, 'PUT', extensionsPath(txn.id), 200, { extensions: {} })
  await expectStatus(app, 'PUT', labelsPath(txn.id), 200, { labels: {} })
  const diffs = (await history(app, txn.id)).map((version) => version.diff)
  assert.deepEqual(diffs.slice(1), [
    { 'labels.constructor': { from: null, to: 'x' }, 'labels.tostring': { from: null, to: 'y' } },
    {
      'extensions.hasOwnProperty': { from: null, to: 'no' },
      'extensions.toString': { from: null, to: 1 },
      'extensions.valueOf': { from: null, to: true },
    },
    {
      'extensions.hasOwnProperty': { from: 'no', to: null },
      'extensions.toString': { from: 1, to: null },
      'extensions.valueOf': { from: true, to: null },
    },
    { 'labels.constructor': { from: 'x', to: null }, 'labels.tostring': { from: 'y', to: null } },
  ])
  // A rule that sets one, run and unapplied.
  const rule = await expectStatus(app, 'POST', '/api/v1/rules', 201, {
    name: 'members',
    query: 'amount:-1',
    labels: { constructor: 'r' },
    extensions: { valueOf: 2 },
  })
  assert.deepEqual(await expectStatus(app, 'POST', `/api/v1/rules/${rule.id}/run`, 200), {
    matched: 1,
    updated: 1,
  })
  assert.deepEqual(await expectStatus(app, 'POST', `/api/v1/rules/${rule.id}/unapply`, 200), {
    matched: 1,
    removed: 1,
  })
  assert.deepEqual(await getTx(app, txn.id), { ...txn, labels: {}, extensions: {} })
})

test('GET /extensions lists the key vocabulary with transaction counts', async (t) => {
  const { app, tx } = await startWithCashAccount(t)
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/extensions', 200), [])
  const a = await tx()
  const b = await tx()
  await ingest(
    app,
    csvBatch([
      { id: 'csv:s', account_id: 'csv:checking', amount: '1', date: '2024-01-04T00:00:00Z' },
    ]),
  )
  await expectStatus(app, 'PUT', extensionsPath(a.id), 200, {
    extensions: { 'tax.deductible': true, 'custom.app.id': 'x', flag: 1 },
  })
  await expectStatus(app, 'PUT', extensionsPath(b.id), 200, {
    extensions: { 'tax.deductible': false, 'Tax.Deductible': true },
  })
  await expectStatus(app, 'PUT', extensionsPath('csv:s'), 200, {
    extensions: { 'tax.deductible': null },
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/extensions', 200), [
    { namespace: 'Tax', key: 'Tax.Deductible', transaction_count: 1 },
    { namespace: 'custom', key: 'custom.app.id', transaction_count: 1 },
    { namespace: 'flag', key: 'flag', transaction_count: 1 },
    { namespace: 'tax', key: 'tax.deductible', transaction_count: 3 },
  ])
})

test('PUT extensions enforces limits and refuses numbers it cannot keep exactly', async (t) => {
  const { app, tx } = await startWithCashAccount(t)
  const txn = await tx()
  await expectStatus(app, 'PUT', extensionsPath(txn.id), 200, { extensions: { keep: 1 } })
  const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`ns.k${i}`, i]))
  const cases: Array<[unknown, string]> = [
    [{ extensions: { ...fifty, 'ns.k50': 50 } }, 'extensions'],
    [{ extensions: { ['k'.repeat(101)]: 1 } }, `extensions.${'k'.repeat(101)}`],
    [{ extensions: { big: 'x'.repeat(8 * 1024) } }, 'extensions.big'],
    [{ extensions: { 'a..b': 1 } }, 'extensions.a..b'],
    [{ extensions: { '.a': 1 } }, 'extensions..a'],
    [{ extensions: { 'a b': 1 } }, 'extensions.a b'],
    [{ extensions: { '': 1 } }, 'extensions.'],
    [{ extensions: [1] }, 'extensions'],
    [{ extensions: 'x' }, 'extensions'],
    [{}, 'extensions'],
    [{ extensions: {}, labels: {} }, 'labels'],
  ]
  await expectNoEvents(app, async () => {
    for (const [body, field] of cases) {
      const res = await expectProblem(app, 'PUT', extensionsPath(txn.id), 400, body)
      assert.deepEqual(problemFields(res), [field], JSON.stringify(body).slice(0, 80))
    }
    // 12345678901234567890 is no double: refused rather than rounded.
    for (const number of ['12345678901234567890', '9007199254740993', '1e400']) {
      const res = await app.request('PUT', extensionsPath(txn.id), {
        rawBody: `{"extensions":{"ref":${number}}}`,
      })
      assert.equal(res.status, 400, res.text)
      assert.equal(res.body.status, 400)
      assert.ok(res.body.detail.includes(`the number ${number} cannot be kept exactly`), res.text)
    }
  })
  assert.deepEqual((await getTx(app, txn.id)).extensions, { keep: 1 })
  assert.equal((await history(app, txn.id)).length, 2)

  // At the limits: 50 keys, a 100-character key, a value of exactly 8 KiB of JSON.
  const atLimit: Record<string, unknown> = { ...fifty }
  delete atLimit['ns.k0']
  delete atLimit['ns.k1']
  atLimit['k'.repeat(100)] = true
  atLimit.blob = 'x'.repeat(8 * 1024 - 2)
  const ok = await expectStatus(app, 'PUT', extensionsPath(txn.id), 200, { extensions: atLimit })
  assert.equal(Object.keys(ok.extensions).length, 50)
  assert.equal(ok.extensions.blob.length, 8 * 1024 - 2)
  // A number that a double holds exactly is kept, however it is written.
  const exact = await app.request('PUT', extensionsPath(txn.id), {
    rawBody: '{"extensions":{"ref":12345678901234567000,"small":0.1}}',
  })
  assert.equal(exact.status, 200, exact.text)
  assert.deepEqual(exact.body.extensions, { ref: 12345678901234567000, small: 0.1 })

  await expectNoEvents(app, async () => {
    assert.deepEqual(
      await expectProblem(app, 'PUT', extensionsPath('nope'), 404, { extensions: {} }),
      problem(404, 'transaction nope not found'),
    )
  })
})

// --------------------------------------------------------- relationships

test('relationships: add, read both directions, count kinds, remove, with events', async (t) => {
  const clock = new StepClock()
  const { app, tx } = await startWithCashAccount(t, clock)
  const a = await tx('2024-01-01')
  const b = await tx('2024-01-02')
  const c = await tx('2024-01-03')
  const mark = await headSequence(app)

  const t1 = clock.advance(60)
  const added = await app.request('POST', relationshipsPath(a.id), {
    body: { kind: 'refund_of', target: b.id },
  })
  assert.equal(added.status, 201, added.text)
  assert.deepEqual(added.body, {
    id: a.id,
    relationships: [{ kind: 'refund_of', direction: 'outbound', transaction_id: b.id }],
  })
  await expectStatus(app, 'POST', relationshipsPath(a.id), 201, { kind: 'split_of', target: c.id })
  await expectStatus(app, 'POST', relationshipsPath(c.id), 201, { kind: 'split_of', target: b.id })

  assert.deepEqual(await expectStatus(app, 'GET', relationshipsPath(a.id), 200), {
    id: a.id,
    relationships: [
      { kind: 'refund_of', direction: 'outbound', transaction_id: b.id },
      { kind: 'split_of', direction: 'outbound', transaction_id: c.id },
    ],
  })
  // Inbound edges are derived on the target.
  assert.deepEqual(await expectStatus(app, 'GET', relationshipsPath(b.id), 200), {
    id: b.id,
    relationships: [
      { kind: 'refund_of', direction: 'inbound', transaction_id: a.id },
      { kind: 'split_of', direction: 'inbound', transaction_id: c.id },
    ],
  })
  assert.deepEqual(await expectStatus(app, 'GET', relationshipsPath(c.id), 200), {
    id: c.id,
    relationships: [
      { kind: 'split_of', direction: 'outbound', transaction_id: b.id },
      { kind: 'split_of', direction: 'inbound', transaction_id: a.id },
    ],
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/relationships', 200), {
    relationships: [
      { kind: 'refund_of', count: 1 },
      { kind: 'split_of', count: 2 },
    ],
  })

  // Adding an edge that exists answers the same and emits nothing.
  await expectNoEvents(app, async () => {
    assert.deepEqual(
      await expectStatus(app, 'POST', relationshipsPath(a.id), 201, {
        kind: 'refund_of',
        target: b.id,
      }),
      await expectStatus(app, 'GET', relationshipsPath(a.id), 200),
    )
  })

  const t2 = clock.advance(60)
  assert.deepEqual(
    await expectStatus(
      app,
      'DELETE',
      `${relationshipsPath(a.id)}?kind=refund_of&target=${encodeURIComponent(b.id)}`,
      200,
    ),
    {
      id: a.id,
      relationships: [{ kind: 'split_of', direction: 'outbound', transaction_id: c.id }],
    },
  )
  assert.deepEqual(await expectStatus(app, 'GET', relationshipsPath(b.id), 200), {
    id: b.id,
    relationships: [{ kind: 'split_of', direction: 'inbound', transaction_id: c.id }],
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/relationships', 200), {
    relationships: [{ kind: 'split_of', count: 2 }],
  })

  const ev = (type: string, at: string, source: object & { id: string }, change: object) => ({
    type,
    entity_type: 'transaction',
    entity_id: source.id,
    occurred_at: at,
    data: { ...source, change },
  })
  assert.deepEqual(await eventBodiesAfter(app, mark), [
    ev('relationship.created', t1, a, { kind: 'refund_of', target: b.id }),
    ev('relationship.created', t1, a, { kind: 'split_of', target: c.id }),
    ev('relationship.created', t1, c, { kind: 'split_of', target: b.id }),
    ev('relationship.removed', t2, a, { kind: 'refund_of', target: b.id }),
  ])
  // Edges are not versions of the transaction.
  assert.deepEqual(
    (await history(app, a.id)).map((v: { kind: string }) => v.kind),
    ['imported'],
  )

  // Deleting a transaction removes the edges that point at it, with an event on
  // each surviving source, before its own transaction.deleted.
  const mark2 = await headSequence(app)
  await expectStatus(app, 'DELETE', `/api/v1/transactions/${c.id}`, 204)
  assert.deepEqual(await eventBodiesAfter(app, mark2), [
    ev('relationship.removed', t2, a, { kind: 'split_of', target: c.id }),
    {
      type: 'transaction.deleted',
      entity_type: 'transaction',
      entity_id: c.id,
      occurred_at: t2,
      data: c,
    },
  ])
  assert.deepEqual(await expectStatus(app, 'GET', relationshipsPath(a.id), 200), {
    id: a.id,
    relationships: [],
  })
  assert.deepEqual(await expectStatus(app, 'GET', relationshipsPath(b.id), 200), {
    id: b.id,
    relationships: [],
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/relationships', 200), {
    relationships: [],
  })
})

test('relationships: bad input is 400, unknown ids 404, and nothing is written', async (t) => {
  const { app, tx } = await startWithCashAccount(t)
  const a = await tx()
  const b = await tx()
  await ingest(
    app,
    csvBatch([
      { id: 'csv:s', account_id: 'csv:checking', amount: '1', date: '2024-01-04T00:00:00Z' },
    ]),
  )

  await expectNoEvents(app, async () => {
    const bad: Array<[unknown, string]> = [
      [{ kind: 'Refund', target: b.id }, 'kind'],
      [{ kind: '1st', target: b.id }, 'kind'],
      [{ kind: 'a b', target: b.id }, 'kind'],
      [{ kind: '', target: b.id }, 'kind'],
      [{ kind: 'k'.repeat(65), target: b.id }, 'kind'],
      [{ kind: 7, target: b.id }, 'kind'],
      [{ kind: 'refund_of' }, 'target'],
      [{ target: b.id }, 'kind'],
      [{ kind: 'refund_of', target: b.id, note: 'x' }, 'note'],
    ]
    for (const [body, field] of bad) {
      const res = await expectProblem(app, 'POST', relationshipsPath(a.id), 400, body)
      assert.deepEqual(problemFields(res), [field], JSON.stringify(body))
    }
    assert.deepEqual(
      await expectProblem(app, 'POST', relationshipsPath(a.id), 400, { kind: 'dup', target: a.id }),
      problem(400, 'target: a transaction cannot relate to itself', [
        { field: 'target', message: 'a transaction cannot relate to itself' },
      ]),
    )
    assert.deepEqual(
      await expectProblem(app, 'POST', relationshipsPath(a.id), 400, {
        kind: 'dup',
        target: 'nope',
      }),
      problem(400, 'target: transaction nope does not exist', [
        { field: 'target', message: 'transaction nope does not exist' },
      ]),
    )
    assert.deepEqual(
      await expectProblem(app, 'POST', relationshipsPath('nope'), 404, {
        kind: 'dup',
        target: a.id,
      }),
      problem(404, 'transaction nope not found'),
    )
    assert.deepEqual(
      await expectProblem(app, 'GET', relationshipsPath('nope'), 404),
      problem(404, 'transaction nope not found'),
    )
    for (const [query, fields] of [
      ['', ['kind', 'target']],
      [`?kind=dup`, ['target']],
      [`?target=${b.id}`, ['kind']],
      [`?kind=&target=${b.id}`, ['kind']],
    ] as const) {
      const res = await expectProblem(app, 'DELETE', `${relationshipsPath(a.id)}${query}`, 400)
      assert.deepEqual(problemFields(res), fields, query)
    }
    await expectProblem(app, 'DELETE', `${relationshipsPath(a.id)}?kind=dup&target=${b.id}`, 404)
    await expectProblem(app, 'DELETE', `${relationshipsPath('nope')}?kind=dup&target=${b.id}`, 404)
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/relationships', 200), {
    relationships: [],
  })

  // Synced transactions take edges in both directions.
  await expectStatus(app, 'POST', relationshipsPath('csv:s'), 201, {
    kind: 'transfer',
    target: a.id,
  })
  assert.deepEqual(await expectStatus(app, 'GET', relationshipsPath(a.id), 200), {
    id: a.id,
    relationships: [{ kind: 'transfer', direction: 'inbound', transaction_id: 'csv:s' }],
  })
  assert.deepEqual(
    await expectStatus(
      app,
      'DELETE',
      `${relationshipsPath('csv:s')}?kind=transfer&target=${a.id}`,
      200,
    ),
    { id: 'csv:s', relationships: [] },
  )
})

test('labels and extensions on a synced transaction survive re-syncs', async (t) => {
  const clock = new StepClock()
  const app = await startTestApp(t, { clock })
  const rows = [
    { id: 'csv:s', account_id: 'csv:checking', amount: '-5.00', date: '2024-01-04T00:00:00Z' },
  ]
  await ingest(app, csvBatch(rows))
  await expectStatus(app, 'PUT', labelsPath('csv:s'), 200, { labels: { Category: 'fees' } })
  await expectStatus(app, 'PUT', extensionsPath('csv:s'), 200, {
    extensions: { 'tax.deductible': true },
  })
  await expectStatus(app, 'POST', relationshipsPath('csv:s'), 201, {
    kind: 'related',
    target: (
      await createTransaction(app, { account_id: 'csv:checking', amount: '5', date: '2024-01-05' })
    ).id,
  })

  clock.advance(60)
  await ingest(app, csvBatch(rows))
  const t2 = clock.advance(60)
  await ingest(app, csvBatch([{ ...rows[0]!, amount: '-6.00', memo: 'fee' }]))
  const after = await getTx(app, 'csv:s')
  assert.deepEqual(after, {
    id: 'csv:s',
    account_id: 'csv:checking',
    amount: '-6.00',
    date: '2024-01-04T00:00:00Z',
    description: null,
    payee: null,
    memo: 'fee',
    pending: false,
    source: 'csv',
    labels: { category: 'fees' },
    extensions: { 'tax.deductible': true },
    synced_at: t2,
  })
  assert.equal(
    (await expectStatus(app, 'GET', relationshipsPath('csv:s'), 200)).relationships.length,
    1,
  )
  assert.deepEqual((await history(app, 'csv:s')).at(-1).diff, {
    amount: { from: '-5.00', to: '-6.00' },
    memo: { from: null, to: 'fee' },
  })
})

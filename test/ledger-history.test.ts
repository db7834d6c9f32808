// History and provenance over HTTP (SPEC 2.5, 3; CONTRACT 6): one version per
// change with the snapshot after it and a per-field diff, kept after a delete;
// provenance derived from the row and its versions, with compact summaries.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp } from './helpers/app.js'
import {
  createAccount,
  createTransaction,
  csvBatch,
  expectNoEvents,
  history,
  ingest,
  problem,
  StepClock,
  T0,
} from './helpers/ledger.js'
import { expectProblem, expectStatus } from './helpers/http.js'

test('history records every kind of change of a manual transaction, then its deletion', async (t) => {
  const clock = new StepClock()
  const app = await startTestApp(t, { clock })
  const cash = await createAccount(app, { name: 'Cash', currency: 'USD' })
  const card = await createAccount(app, { name: 'Card', currency: 'USD' })
  const v1 = await createTransaction(app, {
    account_id: cash.id,
    amount: '12.00',
    date: '2024-04-30',
    description: 'Lunch',
  })
  const path = `/api/v1/transactions/${v1.id}`

  const t2 = clock.advance(10)
  await expectStatus(app, 'PUT', path, 200, { amount: '13.00', account_id: card.id })
  const v2 = { ...v1, amount: '13.00', account_id: card.id }

  const t3 = clock.advance(10)
  await expectStatus(app, 'PUT', `${path}/labels`, 200, { labels: { Category: 'food' } })
  const v3 = { ...v2, labels: { category: 'food' } }

  const t4 = clock.advance(10)
  await expectStatus(app, 'PUT', `${path}/extensions`, 200, {
    extensions: { 'tax.deductible': true, 'tax.rate': 0.2 },
  })
  const v4 = { ...v3, extensions: { 'tax.deductible': true, 'tax.rate': 0.2 } }

  // Neither an unchanged edit nor an edge adds a version.
  clock.advance(10)
  const other = await createTransaction(app, {
    account_id: cash.id,
    amount: '1',
    date: '2024-04-30',
  })
  await expectStatus(app, 'PUT', path, 200, { amount: '13.00', description: 'Lunch' })
  await expectStatus(app, 'PUT', `${path}/labels`, 200, { labels: { category: 'food' } })
  await expectStatus(app, 'PUT', `${path}/extensions`, 200, {
    extensions: { 'tax.rate': 0.2, 'tax.deductible': true },
  })
  await expectStatus(app, 'POST', `${path}/relationships`, 201, {
    kind: 'split_of',
    target: other.id,
  })

  const t5 = clock.advance(10)
  await expectStatus(app, 'PUT', `${path}/extensions`, 200, { extensions: { 'tax.rate': 0.25 } })
  const v5 = { ...v4, extensions: { 'tax.rate': 0.25 } }

  const t6 = clock.advance(10)
  await expectStatus(app, 'DELETE', path, 204)

  const expected = [
    { version: 1, kind: 'imported', occurred_at: T0, snapshot: v1, diff: {} },
    {
      version: 2,
      kind: 'edited',
      occurred_at: t2,
      snapshot: v2,
      diff: {
        account_id: { from: cash.id, to: card.id },
        amount: { from: '12.00', to: '13.00' },
      },
    },
    {
      version: 3,
      kind: 'labeled',
      occurred_at: t3,
      snapshot: v3,
      diff: { 'labels.category': { from: null, to: 'food' } },
    },
    {
      version: 4,
      kind: 'extended',
      occurred_at: t4,
      snapshot: v4,
      diff: {
        'extensions.tax.deductible': { from: null, to: true },
        'extensions.tax.rate': { from: null, to: 0.2 },
      },
    },
    {
      version: 5,
      kind: 'extended',
      occurred_at: t5,
      snapshot: v5,
      diff: {
        'extensions.tax.deductible': { from: true, to: null },
        'extensions.tax.rate': { from: 0.2, to: 0.25 },
      },
    },
    { version: 6, kind: 'deleted', occurred_at: t6, snapshot: v5, diff: {} },
  ]
  assert.deepEqual(await expectStatus(app, 'GET', `${path}/history`, 200), {
    transaction_id: v1.id,
    versions: expected,
  })
  // Reading history and provenance writes nothing.
  await expectNoEvents(app, async () => {
    assert.deepEqual(await history(app, v1.id), expected)
    await expectProblem(app, 'GET', `${path}/provenance`, 404)
  })
})

test('history of a synced transaction: imported, then synced versions for source-owned changes', async (t) => {
  const clock = new StepClock()
  const app = await startTestApp(t, { clock })
  const row = {
    id: 'csv:abc',
    account_id: 'csv:checking',
    amount: '-12.50',
    date: '2024-04-01T00:00:00Z',
    description: 'Coffee',
  }
  await ingest(app, csvBatch([row]))
  const v1 = {
    ...row,
    payee: null,
    memo: null,
    pending: false,
    source: 'csv',
    labels: {},
    extensions: {},
    synced_at: T0,
  }
  const t2 = clock.advance(60)
  await expectStatus(app, 'PUT', '/api/v1/transactions/csv:abc/labels', 200, {
    labels: { category: 'coffee' },
  })
  const v2 = { ...v1, labels: { category: 'coffee' } }
  const t3 = clock.advance(60)
  await ingest(
    app,
    csvBatch([{ ...row, amount: '-13.75', description: 'Coffee beans', pending: true }]),
  )
  const v3 = { ...v2, amount: '-13.75', description: 'Coffee beans', pending: true, synced_at: t3 }
  // Unchanged re-syncs refresh synced_at only: no version.
  const t4 = clock.advance(60)
  await ingest(
    app,
    csvBatch([{ ...row, amount: '-13.75', description: 'Coffee beans', pending: true }]),
  )

  assert.deepEqual(await history(app, 'csv:abc'), [
    { version: 1, kind: 'imported', occurred_at: T0, snapshot: v1, diff: {} },
    {
      version: 2,
      kind: 'labeled',
      occurred_at: t2,
      snapshot: v2,
      diff: { 'labels.category': { from: null, to: 'coffee' } },
    },
    {
      version: 3,
      kind: 'synced',
      occurred_at: t3,
      snapshot: v3,
      diff: {
        amount: { from: '-12.50', to: '-13.75' },
        description: { from: 'Coffee', to: 'Coffee beans' },
        pending: { from: false, to: true },
      },
    },
  ])

  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/transactions/csv:abc/provenance', 200), {
    transaction_id: 'csv:abc',
    source: 'csv',
    source_transaction_id: 'csv:abc',
    account_id: 'csv:checking',
    institution: 'Bank',
    imported_at: T0,
    last_seen: t4,
    transformations: [
      { kind: 'imported', occurred_at: T0, summary: 'imported from csv' },
      { kind: 'labeled', occurred_at: t2, summary: '+label category:coffee' },
      {
        kind: 'synced',
        occurred_at: t3,
        summary: 'amount -12.50 → -13.75; description Coffee → Coffee beans; pending false → true',
      },
    ],
  })
})

test('provenance of a manual transaction reads imported from manual, then compact diffs', async (t) => {
  const clock = new StepClock()
  const app = await startTestApp(t, { clock })
  const acct = await createAccount(app, { name: 'Cash', currency: 'USD' })
  const tx = await createTransaction(app, {
    account_id: acct.id,
    amount: '12.00',
    date: '2024-04-30',
  })
  const path = `/api/v1/transactions/${tx.id}`

  assert.deepEqual(await expectStatus(app, 'GET', `${path}/provenance`, 200), {
    transaction_id: tx.id,
    source: 'manual',
    source_transaction_id: tx.id,
    account_id: acct.id,
    institution: 'Manual',
    imported_at: T0,
    last_seen: T0,
    transformations: [{ kind: 'imported', occurred_at: T0, summary: 'imported from manual' }],
  })

  const t1 = clock.advance(60)
  await expectStatus(app, 'PUT', path, 200, { amount: '13.00' })
  const t2 = clock.advance(60)
  await expectStatus(app, 'PUT', `${path}/labels`, 200, { labels: { category: 'food', x: 'y' } })
  const t3 = clock.advance(60)
  await expectStatus(app, 'PUT', `${path}/extensions`, 200, {
    extensions: { 'tax.deductible': true },
  })
  const t4 = clock.advance(60)
  await expectStatus(app, 'PUT', `${path}/labels`, 200, { labels: { category: 'groceries' } })
  const t5 = clock.advance(60)
  await expectStatus(app, 'PUT', `${path}/extensions`, 200, {
    extensions: { 'tax.deductible': false, 'tax.rate': 0.2 },
  })
  const t6 = clock.advance(60)
  await expectStatus(app, 'PUT', path, 200, { memo: 'team', pending: true, description: 'Lunch' })
  const t7 = clock.advance(60)
  await expectStatus(app, 'PUT', `${path}/extensions`, 200, { extensions: {} })

  const provenance = await expectStatus(app, 'GET', `${path}/provenance`, 200)
  assert.deepEqual(provenance, {
    transaction_id: tx.id,
    source: 'manual',
    source_transaction_id: tx.id,
    account_id: acct.id,
    institution: 'Manual',
    imported_at: T0,
    // synced_at: stamped when the row was entered; edits are not syncs.
    last_seen: T0,
    transformations: [
      { kind: 'imported', occurred_at: T0, summary: 'imported from manual' },
      { kind: 'edited', occurred_at: t1, summary: 'amount 12.00 → 13.00' },
      { kind: 'labeled', occurred_at: t2, summary: '+label category:food; +label x:y' },
      { kind: 'extended', occurred_at: t3, summary: '+ext tax.deductible' },
      { kind: 'labeled', occurred_at: t4, summary: '~label category:groceries; -label x:y' },
      { kind: 'extended', occurred_at: t5, summary: '~ext tax.deductible; +ext tax.rate' },
      {
        kind: 'edited',
        occurred_at: t6,
        summary: 'description none → Lunch; memo none → team; pending false → true',
      },
      { kind: 'extended', occurred_at: t7, summary: '-ext tax.deductible; -ext tax.rate' },
    ],
  })
  assert.equal((await expectStatus(app, 'GET', path, 200)).synced_at, provenance.last_seen)

  // The institution follows the account: moved into a synced account, it is that bank.
  await ingest(app, csvBatch())
  await expectStatus(app, 'PUT', path, 200, { account_id: 'csv:checking' })
  const moved = await expectStatus(app, 'GET', `${path}/provenance`, 200)
  assert.equal(moved.institution, 'Bank')
  assert.equal(moved.account_id, 'csv:checking')
  assert.equal(moved.source, 'manual')
  assert.deepEqual(moved.transformations.at(-1), {
    kind: 'edited',
    occurred_at: t7,
    summary: `account_id ${acct.id} → csv:checking`,
  })
})

test('provenance and history are 404 for unknown ids; provenance is 404 once deleted', async (t) => {
  const app = await startTestApp(t)
  const acct = await createAccount(app, { name: 'Cash', currency: 'USD' })
  const tx = await createTransaction(app, { account_id: acct.id, amount: '1', date: '2024-04-30' })
  await expectStatus(app, 'DELETE', `/api/v1/transactions/${tx.id}`, 204)
  await expectNoEvents(app, async () => {
    assert.deepEqual(
      await expectProblem(app, 'GET', '/api/v1/transactions/nope/provenance', 404),
      problem(404, 'transaction nope not found'),
    )
    assert.deepEqual(
      await expectProblem(app, 'GET', '/api/v1/transactions/nope/history', 404),
      problem(404, 'transaction nope not found'),
    )
    assert.deepEqual(
      await expectProblem(app, 'GET', `/api/v1/transactions/${tx.id}/provenance`, 404),
      problem(404, `transaction ${tx.id} not found`),
    )
  })
  assert.deepEqual(
    (await history(app, tx.id)).map((v: { kind: string }) => v.kind),
    ['imported', 'deleted'],
  )
})

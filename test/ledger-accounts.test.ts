// Accounts over HTTP (SPEC 1.4, 3, 4; CONTRACT 3 and 6): manual create, partial
// edit and cascade delete with their events, the static balance of a manual
// account, the Manual organization, list filters, and the 409 on synced rows.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp } from './helpers/app.js'
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
  problemFields,
  StepClock,
  T0,
} from './helpers/ledger.js'
import { expectProblem, expectStatus } from './helpers/http.js'

const MANUAL_ORG = { id: 'manual', name: 'Manual', domain: null, source: 'manual' }

test('POST /accounts creates a manual account under the Manual organization', async (t) => {
  const app = await startTestApp(t, { clock: new StepClock() })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/organizations', 200), {
    organizations: [],
    total: 0,
    limit: 100,
    offset: 0,
  })

  const cash = await createAccount(app, { name: 'Cash', currency: 'usd' })
  assert.match(cash.id, /^man_acct_/)
  assert.deepEqual(cash, {
    id: cash.id,
    name: 'Cash',
    currency: 'USD',
    balance: '0',
    source: 'manual',
    org_id: 'manual',
  })
  assert.deepEqual(await expectStatus(app, 'GET', `/api/v1/accounts/${cash.id}`, 200), cash)

  // The starting balance is kept verbatim (only a leading '+' goes).
  const savings = await createAccount(app, {
    name: 'Savings',
    currency: 'EUR',
    balance: '1234567890123456789.000000001',
  })
  assert.equal(savings.balance, '1234567890123456789.000000001')
  const loan = await createAccount(app, { name: 'Loan', currency: 'chf', balance: '+5.10' })
  assert.equal(loan.balance, '5.10')
  assert.equal(loan.currency, 'CHF')
  assert.notEqual(cash.id, savings.id)

  // One Manual organization however many manual accounts there are.
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/organizations', 200), {
    organizations: [MANUAL_ORG],
    total: 1,
    limit: 100,
    offset: 0,
  })

  assert.deepEqual(await eventBodiesAfter(app, 0), [
    {
      type: 'account.created',
      entity_type: 'account',
      entity_id: cash.id,
      occurred_at: T0,
      data: cash,
    },
    {
      type: 'account.created',
      entity_type: 'account',
      entity_id: savings.id,
      occurred_at: T0,
      data: savings,
    },
    {
      type: 'account.created',
      entity_type: 'account',
      entity_id: loan.id,
      occurred_at: T0,
      data: loan,
    },
  ])
})

test('POST /accounts rejects bad bodies and writes nothing', async (t) => {
  const app = await startTestApp(t)
  const cases: Array<{ body: unknown; fields: string[] }> = [
    { body: {}, fields: ['currency', 'name'] },
    { body: { name: 'Cash' }, fields: ['currency'] },
    { body: { currency: 'USD' }, fields: ['name'] },
    { body: { name: 123, currency: 'USD' }, fields: ['name'] },
    { body: { name: '   ', currency: 'USD' }, fields: ['name'] },
    { body: { name: 'x'.repeat(201), currency: 'USD' }, fields: ['name'] },
    { body: { name: 'Cash', currency: 'US D' }, fields: ['currency'] },
    { body: { name: 'Cash', currency: '' }, fields: ['currency'] },
    { body: { name: 'Cash', currency: 'USD', balance: '1e5' }, fields: ['balance'] },
    { body: { name: 'Cash', currency: 'USD', balance: '1,000' }, fields: ['balance'] },
    { body: { name: 'Cash', currency: 'USD', balance: 10 }, fields: ['balance'] },
    { body: { name: 'Cash', currency: 'USD', source: 'csv' }, fields: ['source'] },
    { body: { name: 'Cash', currency: 'USD', org_id: 'csv:bank' }, fields: ['org_id'] },
  ]
  for (const { body, fields } of cases) {
    const res = await expectProblem(app, 'POST', '/api/v1/accounts', 400, body)
    assert.equal(res.status, 400)
    assert.equal(res.title, 'Bad Request')
    assert.deepEqual(problemFields(res), fields, JSON.stringify(body))
  }
  // A service-level check answers with the field and its reason.
  assert.deepEqual(
    await expectProblem(app, 'POST', '/api/v1/accounts', 400, { name: ' ', currency: 'USD' }),
    problem(400, 'name: must not be blank', [{ field: 'name', message: 'must not be blank' }]),
  )
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/accounts', 200), {
    accounts: [],
    total: 0,
    limit: 100,
    offset: 0,
  })
  assert.equal(await headSequence(app), 0)
})

test('PUT /accounts/{id} edits only the fields sent and emits account.updated', async (t) => {
  const app = await startTestApp(t, { clock: new StepClock() })
  const acct = await createAccount(app, { name: 'Cash', currency: 'USD', balance: '10.00' })
  const mark = await headSequence(app)

  const renamed = await expectStatus(app, 'PUT', `/api/v1/accounts/${acct.id}`, 200, {
    name: 'Wallet',
  })
  assert.deepEqual(renamed, { ...acct, name: 'Wallet' })

  const moved = await expectStatus(app, 'PUT', `/api/v1/accounts/${acct.id}`, 200, {
    currency: 'eur',
    balance: '-0.50',
  })
  assert.deepEqual(moved, { ...acct, name: 'Wallet', currency: 'EUR', balance: '-0.50' })
  assert.deepEqual(await expectStatus(app, 'GET', `/api/v1/accounts/${acct.id}`, 200), moved)

  assert.deepEqual(await eventBodiesAfter(app, mark), [
    {
      type: 'account.updated',
      entity_type: 'account',
      entity_id: acct.id,
      occurred_at: T0,
      data: renamed,
    },
    {
      type: 'account.updated',
      entity_type: 'account',
      entity_id: acct.id,
      occurred_at: T0,
      data: moved,
    },
  ])

  // Nothing to change: 200 with the account as it is, and no event.
  await expectNoEvents(app, async () => {
    assert.deepEqual(await expectStatus(app, 'PUT', `/api/v1/accounts/${acct.id}`, 200, {}), moved)
    assert.deepEqual(
      await expectStatus(app, 'PUT', `/api/v1/accounts/${acct.id}`, 200, {
        name: 'Wallet',
        currency: 'EUR',
        balance: '-0.50',
      }),
      moved,
    )
  })

  // Bad values are 400 and change nothing.
  await expectNoEvents(app, async () => {
    for (const [body, field] of [
      [{ balance: 'abc' }, 'balance'],
      [{ balance: 1 }, 'balance'],
      [{ name: '' }, 'name'],
      [{ currency: 'E U R' }, 'currency'],
      [{ source: 'csv' }, 'source'],
    ] as const) {
      const res = await expectProblem(app, 'PUT', `/api/v1/accounts/${acct.id}`, 400, body)
      assert.deepEqual(problemFields(res), [field])
    }
  })
  assert.deepEqual(await expectStatus(app, 'GET', `/api/v1/accounts/${acct.id}`, 200), moved)
})

test("a manual account's balance is static: transactions never change it", async (t) => {
  const app = await startTestApp(t)
  const acct = await createAccount(app, { name: 'Cash', currency: 'USD', balance: '100.00' })
  await createTransaction(app, { account_id: acct.id, amount: '-30.25', date: '2024-01-02' })
  const tx = await createTransaction(app, {
    account_id: acct.id,
    amount: '5',
    date: '2024-01-03',
  })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${tx.id}`, 200, { amount: '500' })
  assert.deepEqual(await expectStatus(app, 'GET', `/api/v1/accounts/${acct.id}`, 200), acct)
  const list = await expectStatus(app, 'GET', '/api/v1/accounts', 200)
  assert.deepEqual(list.accounts, [acct])
})

test('DELETE /accounts/{id} deletes its transactions first, each with an event', async (t) => {
  const app = await startTestApp(t, { clock: new StepClock() })
  const doomed = await createAccount(app, { name: 'Doomed', currency: 'USD' })
  const keeper = await createAccount(app, { name: 'Keeper', currency: 'USD' })
  // Created out of date order: the cascade goes by date, then id.
  const late = await createTransaction(app, {
    account_id: doomed.id,
    amount: '-3',
    date: '2024-03-01',
  })
  const early = await createTransaction(app, {
    account_id: doomed.id,
    amount: '-1',
    date: '2024-01-01',
  })
  const middle = await createTransaction(app, {
    account_id: doomed.id,
    amount: '-2',
    date: '2024-02-01',
    description: 'Groceries',
  })
  const survivor = await createTransaction(app, {
    account_id: keeper.id,
    amount: '2',
    date: '2024-02-02',
  })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${middle.id}/labels`, 200, {
    labels: { category: 'food' },
  })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${middle.id}/extensions`, 200, {
    extensions: { 'tax.deductible': true },
  })
  await expectStatus(app, 'POST', `/api/v1/transactions/${survivor.id}/relationships`, 201, {
    kind: 'refund_of',
    target: middle.id,
  })
  const middleLast = {
    ...middle,
    labels: { category: 'food' },
    extensions: { 'tax.deductible': true },
  }
  const mark = await headSequence(app)

  const res = await app.request('DELETE', `/api/v1/accounts/${doomed.id}`)
  assert.equal(res.status, 204, res.text)
  assert.equal(res.text, '')

  assert.deepEqual(await eventBodiesAfter(app, mark), [
    // The surviving transaction lost its edge to a deleted one.
    {
      type: 'relationship.removed',
      entity_type: 'transaction',
      entity_id: survivor.id,
      occurred_at: T0,
      data: { ...survivor, change: { kind: 'refund_of', target: middle.id } },
    },
    {
      type: 'transaction.deleted',
      entity_type: 'transaction',
      entity_id: early.id,
      occurred_at: T0,
      data: early,
    },
    {
      type: 'transaction.deleted',
      entity_type: 'transaction',
      entity_id: middle.id,
      occurred_at: T0,
      data: middleLast,
    },
    {
      type: 'transaction.deleted',
      entity_type: 'transaction',
      entity_id: late.id,
      occurred_at: T0,
      data: late,
    },
    {
      type: 'account.deleted',
      entity_type: 'account',
      entity_id: doomed.id,
      occurred_at: T0,
      data: doomed,
    },
  ])

  assert.deepEqual(
    await expectProblem(app, 'GET', `/api/v1/accounts/${doomed.id}`, 404),
    problem(404, `account ${doomed.id} not found`),
  )
  for (const tx of [early, middle, late]) {
    await expectProblem(app, 'GET', `/api/v1/transactions/${tx.id}`, 404)
  }
  const versions = await history(app, middle.id)
  assert.deepEqual(
    versions.map((v: { kind: string }) => v.kind),
    ['imported', 'labeled', 'extended', 'deleted'],
  )
  assert.deepEqual(versions.at(-1), {
    version: 4,
    kind: 'deleted',
    occurred_at: T0,
    snapshot: middleLast,
    diff: {},
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/transactions', 200), {
    transactions: [survivor],
    total: 1,
    limit: 100,
    offset: 0,
    next_cursor: null,
  })
  assert.deepEqual(
    await expectStatus(app, 'GET', `/api/v1/transactions/${survivor.id}/relationships`, 200),
    { id: survivor.id, relationships: [] },
  )
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/labels', 200), { labels: [] })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/extensions', 200), [])
  assert.deepEqual((await expectStatus(app, 'GET', '/api/v1/accounts', 200)).accounts, [keeper])

  // Gone means gone: a second delete and reads of it are 404, with no event.
  await expectNoEvents(app, async () => {
    await expectProblem(app, 'DELETE', `/api/v1/accounts/${doomed.id}`, 404)
    await expectProblem(app, 'PUT', `/api/v1/accounts/${doomed.id}`, 404, { name: 'X' })
    await expectProblem(app, 'GET', `/api/v1/accounts/${doomed.id}/transactions`, 404)
  })

  // An empty account deletes with just its own event.
  const mark2 = await headSequence(app)
  const empty = await createAccount(app, { name: 'Empty', currency: 'USD' })
  await expectStatus(app, 'DELETE', `/api/v1/accounts/${empty.id}`, 204)
  assert.deepEqual(
    (await eventBodiesAfter(app, mark2)).map((e) => [e.type, e.entity_id]),
    [
      ['account.created', empty.id],
      ['account.deleted', empty.id],
    ],
  )
})

test('GET /accounts orders by name and filters by org_id', async (t) => {
  const app = await startTestApp(t)
  const zeta = await createAccount(app, { name: 'Zeta', currency: 'USD' })
  const alpha = await createAccount(app, { name: 'Alpha', currency: 'USD' })
  await ingest(app, csvBatch())
  const checking = await expectStatus(app, 'GET', '/api/v1/accounts/csv:checking', 200)
  assert.deepEqual(checking, {
    id: 'csv:checking',
    name: 'Checking',
    currency: 'USD',
    balance: '250.00',
    source: 'csv',
    org_id: 'csv:bank',
  })

  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/accounts', 200), {
    accounts: [alpha, checking, zeta],
    total: 3,
    limit: 100,
    offset: 0,
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/accounts?org_id=manual', 200), {
    accounts: [alpha, zeta],
    total: 2,
    limit: 100,
    offset: 0,
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/accounts?org_id=csv%3Abank', 200), {
    accounts: [checking],
    total: 1,
    limit: 100,
    offset: 0,
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/accounts?org_id=nope', 200), {
    accounts: [],
    total: 0,
    limit: 100,
    offset: 0,
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/accounts?limit=1&offset=1', 200), {
    accounts: [checking],
    total: 3,
    limit: 1,
    offset: 1,
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/accounts?limit=5000', 200), {
    accounts: [alpha, checking, zeta],
    total: 3,
    limit: 1000,
    offset: 0,
  })
  for (const query of ['limit=-1', 'limit=abc', 'offset=-1', 'offset=x', 'limit=1.5']) {
    const res = await expectProblem(app, 'GET', `/api/v1/accounts?${query}`, 400)
    assert.deepEqual(problemFields(res), [query.split('=')[0]!], query)
  }

  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/organizations', 200), {
    organizations: [{ id: 'csv:bank', name: 'Bank', domain: null, source: 'csv' }, MANUAL_ORG],
    total: 2,
    limit: 100,
    offset: 0,
  })
})

test('synced accounts answer 409 to PUT and DELETE and stay unchanged', async (t) => {
  const app = await startTestApp(t, { clock: new StepClock() })
  await ingest(
    app,
    csvBatch([
      { id: 'csv:t1', account_id: 'csv:checking', amount: '-1.00', date: '2024-01-01T00:00:00Z' },
    ]),
  )
  const before = await expectStatus(app, 'GET', '/api/v1/accounts/csv:checking', 200)
  await expectNoEvents(app, async () => {
    assert.deepEqual(
      await expectProblem(app, 'PUT', '/api/v1/accounts/csv:checking', 409, { name: 'Mine' }),
      problem(
        409,
        'account csv:checking comes from source "csv"; only manual accounts can be edited',
      ),
    )
    assert.deepEqual(
      await expectProblem(app, 'DELETE', '/api/v1/accounts/csv:checking', 409),
      problem(
        409,
        'account csv:checking comes from source "csv"; only manual accounts can be deleted',
      ),
    )
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/accounts/csv:checking', 200), before)
  assert.equal(
    (await expectStatus(app, 'GET', '/api/v1/transactions/csv:t1', 200)).account_id,
    'csv:checking',
  )
})

test('a re-sync updates a synced account but never rewrites its source', async (t) => {
  const app = await startTestApp(t, { clock: new StepClock() })
  await ingest(app, csvBatch())
  const mark = await headSequence(app)

  // Same batch: nothing changed, nothing emitted.
  await ingest(app, csvBatch())
  assert.deepEqual(await eventBodiesAfter(app, mark), [])

  const next = csvBatch()
  next.source = 'aggregator'
  next.accounts![0]!.balance = '300.00'
  await ingest(app, next)
  const updated = {
    id: 'csv:checking',
    name: 'Checking',
    currency: 'USD',
    balance: '300.00',
    source: 'csv',
    org_id: 'csv:bank',
  }
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/accounts/csv:checking', 200), updated)
  assert.deepEqual(await eventBodiesAfter(app, mark), [
    {
      type: 'account.updated',
      entity_type: 'account',
      entity_id: 'csv:checking',
      occurred_at: T0,
      data: updated,
    },
  ])
})

test('unknown accounts are 404 on every account route', async (t) => {
  const app = await startTestApp(t)
  await expectNoEvents(app, async () => {
    assert.deepEqual(
      await expectProblem(app, 'GET', '/api/v1/accounts/nope', 404),
      problem(404, 'account nope not found'),
    )
    assert.deepEqual(
      await expectProblem(app, 'PUT', '/api/v1/accounts/nope', 404, { name: 'X' }),
      problem(404, 'account nope not found'),
    )
    assert.deepEqual(
      await expectProblem(app, 'DELETE', '/api/v1/accounts/nope', 404),
      problem(404, 'account nope not found'),
    )
    assert.deepEqual(
      await expectProblem(app, 'GET', '/api/v1/accounts/nope/transactions', 404),
      problem(404, 'account nope not found'),
    )
  })
})

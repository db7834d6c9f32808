// Transactions over HTTP (SPEC 1.4, 2.2, 3, 4; CONTRACT 3 and 6): manual create
// with every date form, exact amounts, validation that writes nothing, partial
// edits, moves and deletes with their events and history; synced rows (409 on
// core edits, re-sync semantics); and the list conventions of GET /transactions.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { TransactionJson } from '../src/ledger/json.js'
import { startTestApp, type TestAppHandle } from './helpers/app.js'
import {
  createAccount,
  createTransaction,
  csvBatch,
  csvRows,
  eventBodiesAfter,
  expectNoEvents,
  headSequence,
  history,
  ingest,
  keptAndCountedTransactions,
  manualTransactionJson,
  problem,
  problemFields,
  StepClock,
  startWithCashAccount,
  T0,
} from './helpers/ledger.js'
import { expectProblem, expectStatus } from './helpers/http.js'

/** The JSON of a fresh manual transaction created at T0 (SPEC 2.2). */
function manualTx(
  fields: Pick<TransactionJson, 'id' | 'account_id' | 'amount' | 'date'> & Partial<TransactionJson>,
): TransactionJson {
  return manualTransactionJson({ synced_at: T0, ...fields })
}

async function listAll(app: TestAppHandle, query = ''): Promise<string[]> {
  const body = await expectStatus(app, 'GET', `/api/v1/transactions${query}`, 200)
  return body.transactions.map((tx: { id: string }) => tx.id)
}

test('POST /transactions accepts each date form and stores UTC', async (t) => {
  const { app, acct } = await startWithCashAccount(t)
  const mark = await headSequence(app)
  const cases: Array<[unknown, string]> = [
    ['2024-01-15', '2024-01-15T00:00:00Z'],
    ['2024-01-15T23:30:00-02:00', '2024-01-16T01:30:00Z'],
    ['2024-01-15T08:00:00.987+05:30', '2024-01-15T02:30:00Z'],
    ['2024-01-15T10:11:12Z', '2024-01-15T10:11:12Z'],
    [1705276800, '2024-01-15T00:00:00Z'],
    ['1705276801', '2024-01-15T00:00:01Z'],
  ]
  const created = []
  for (const [date, stored] of cases) {
    const tx = await createTransaction(app, {
      account_id: acct.id,
      amount: '-1.00',
      date,
      description: 'Coffee',
      payee: 'Cafe',
      memo: 'flat white',
      pending: true,
    })
    assert.match(tx.id, /^man_/)
    assert.deepEqual(
      tx,
      manualTx({
        id: tx.id,
        account_id: acct.id,
        amount: '-1.00',
        date: stored,
        description: 'Coffee',
        payee: 'Cafe',
        memo: 'flat white',
        pending: true,
      }),
      JSON.stringify(date),
    )
    assert.deepEqual(await expectStatus(app, 'GET', `/api/v1/transactions/${tx.id}`, 200), tx)
    assert.deepEqual(await history(app, tx.id), [
      { version: 1, kind: 'imported', occurred_at: T0, snapshot: tx, diff: {} },
    ])
    created.push(tx)
  }
  assert.deepEqual(
    await eventBodiesAfter(app, mark),
    created.map((tx) => ({
      type: 'transaction.created',
      entity_type: 'transaction',
      entity_id: tx.id,
      occurred_at: T0,
      data: tx,
    })),
  )
})

test('POST /transactions rejects bad amounts, dates and accounts and writes nothing', async (t) => {
  const { app, acct } = await startWithCashAccount(t)
  const ok = { account_id: acct.id, amount: '1.00', date: '2024-01-15' }
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ amount: '1e5' }, 'amount'],
    [{ amount: '1,000' }, 'amount'],
    [{ amount: '' }, 'amount'],
    [{ amount: 'abc' }, 'amount'],
    [{ amount: ' 1' }, 'amount'],
    [{ amount: '1'.repeat(65) }, 'amount'],
    [{ amount: '.' }, 'amount'],
    [{ amount: 12.5 }, 'amount'],
    [{ amount: null }, 'amount'],
    [{ date: '2024-02-30' }, 'date'],
    [{ date: '2023-02-29' }, 'date'],
    [{ date: 'tomorrow' }, 'date'],
    [{ date: '2024-01-15T25:00:00Z' }, 'date'],
    [{ date: 1.5 }, 'date'],
    [{ date: true }, 'date'],
    [{ account_id: 'nope' }, 'account_id'],
    [{ pending: 'yes' }, 'pending'],
    [{ description: 5 }, 'description'],
    [{ source: 'csv' }, 'source'],
    [{ id: 'mine' }, 'id'],
  ]
  await expectNoEvents(app, async () => {
    for (const [patch, field] of cases) {
      const res = await expectProblem(app, 'POST', '/api/v1/transactions', 400, {
        ...ok,
        ...patch,
      })
      assert.deepEqual(problemFields(res), [field], JSON.stringify(patch))
    }
    for (const missing of ['account_id', 'amount', 'date']) {
      const body: Record<string, unknown> = { ...ok }
      delete body[missing]
      const res = await expectProblem(app, 'POST', '/api/v1/transactions', 400, body)
      assert.deepEqual(problemFields(res), [missing])
    }
  })
  // Whole answers for the service-level checks.
  assert.deepEqual(
    await expectProblem(app, 'POST', '/api/v1/transactions', 400, { ...ok, amount: '1e5' }),
    problem(
      400,
      'amount: must be a decimal string such as "-12.34" (optional sign, digits, optional fraction; at most 64 characters)',
      [
        {
          field: 'amount',
          message:
            'must be a decimal string such as "-12.34" (optional sign, digits, optional fraction; at most 64 characters)',
        },
      ],
    ),
  )
  assert.deepEqual(
    await expectProblem(app, 'POST', '/api/v1/transactions', 400, { ...ok, date: '2024-02-30' }),
    problem(
      400,
      'date: must be a calendar date YYYY-MM-DD, an RFC 3339 timestamp, or unix seconds',
      [
        {
          field: 'date',
          message: 'must be a calendar date YYYY-MM-DD, an RFC 3339 timestamp, or unix seconds',
        },
      ],
    ),
  )
  assert.deepEqual(
    await expectProblem(app, 'POST', '/api/v1/transactions', 400, { ...ok, account_id: 'nope' }),
    problem(400, 'account_id: account nope does not exist', [
      { field: 'account_id', message: 'account nope does not exist' },
    ]),
  )
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/transactions', 200), {
    transactions: [],
    total: 0,
    limit: 100,
    offset: 0,
    next_cursor: null,
  })
  // The boundaries themselves are accepted: 64 characters, and 29 February of a leap year.
  const long = await createTransaction(app, { ...ok, amount: '9'.repeat(64) })
  assert.equal(long.amount, '9'.repeat(64))
  const leap = await createTransaction(app, { ...ok, date: '2024-02-29' })
  assert.equal(leap.date, '2024-02-29T00:00:00Z')
})

test('amounts round-trip exactly through reads, events and history', async (t) => {
  const { app, acct } = await startWithCashAccount(t)
  const mark = await headSequence(app)
  const cases: Array<[string, string]> = [
    ['-0.000000000000000001', '-0.000000000000000001'],
    ['1234567890123456789.123456789', '1234567890123456789.123456789'],
    ['12.340', '12.340'],
    ['+5', '5'],
    ['-0', '-0'],
    ['.5', '.5'],
    ['007.10', '007.10'],
  ]
  const ids: string[] = []
  for (const [sent, stored] of cases) {
    const tx = await createTransaction(app, {
      account_id: acct.id,
      amount: sent,
      date: '2024-01-15',
    })
    assert.equal(tx.amount, stored, sent)
    assert.equal(
      (await expectStatus(app, 'GET', `/api/v1/transactions/${tx.id}`, 200)).amount,
      stored,
    )
    assert.equal((await history(app, tx.id))[0].snapshot.amount, stored)
    ids.push(tx.id)
  }
  const events = await eventBodiesAfter(app, mark)
  assert.deepEqual(
    events.map((e) => [e.entity_id, (e.data as { amount: string }).amount]),
    cases.map(([, stored], i) => [ids[i], stored]),
  )
  const list = await expectStatus(app, 'GET', '/api/v1/transactions', 200)
  const byId = new Map(
    list.transactions.map((tx: { id: string; amount: string }) => [tx.id, tx.amount]),
  )
  assert.deepEqual(
    ids.map((id) => byId.get(id)),
    cases.map(([, stored]) => stored),
  )

  // An edit keeps the text too: 12.34 → 12.340 is a change of the stored text.
  const tx = await createTransaction(app, {
    account_id: acct.id,
    amount: '12.34',
    date: '2024-01-15',
  })
  const edited = await expectStatus(app, 'PUT', `/api/v1/transactions/${tx.id}`, 200, {
    amount: '12.340',
  })
  assert.equal(edited.amount, '12.340')
  assert.deepEqual((await history(app, tx.id))[1].diff, { amount: { from: '12.34', to: '12.340' } })
})

test('PUT /transactions/{id} is partial and records an edited version', async (t) => {
  const clock = new StepClock()
  const { app, acct } = await startWithCashAccount(t, clock)
  const tx = await createTransaction(app, {
    account_id: acct.id,
    amount: '12.00',
    date: '2024-01-15',
    description: 'Lunch',
  })
  const mark = await headSequence(app)
  const t1 = clock.advance(60)

  const memo = await expectStatus(app, 'PUT', `/api/v1/transactions/${tx.id}`, 200, {
    memo: 'with Ann',
    amount: '13.00',
  })
  assert.deepEqual(memo, { ...tx, memo: 'with Ann', amount: '13.00' })

  const t2 = clock.advance(60)
  const cleared = await expectStatus(app, 'PUT', `/api/v1/transactions/${tx.id}`, 200, {
    description: null,
    pending: true,
    date: '2024-01-16T09:00:00+01:00',
    payee: 'Deli',
  })
  const expected = {
    ...memo,
    description: null,
    pending: true,
    date: '2024-01-16T08:00:00Z',
    payee: 'Deli',
  }
  assert.deepEqual(cleared, expected)
  assert.deepEqual(await expectStatus(app, 'GET', `/api/v1/transactions/${tx.id}`, 200), expected)

  assert.deepEqual(await eventBodiesAfter(app, mark), [
    {
      type: 'transaction.updated',
      entity_type: 'transaction',
      entity_id: tx.id,
      occurred_at: t1,
      data: memo,
    },
    {
      type: 'transaction.updated',
      entity_type: 'transaction',
      entity_id: tx.id,
      occurred_at: t2,
      data: expected,
    },
  ])
  assert.deepEqual(await history(app, tx.id), [
    { version: 1, kind: 'imported', occurred_at: T0, snapshot: tx, diff: {} },
    {
      version: 2,
      kind: 'edited',
      occurred_at: t1,
      snapshot: memo,
      diff: { amount: { from: '12.00', to: '13.00' }, memo: { from: null, to: 'with Ann' } },
    },
    {
      version: 3,
      kind: 'edited',
      occurred_at: t2,
      snapshot: expected,
      diff: {
        date: { from: '2024-01-15T00:00:00Z', to: '2024-01-16T08:00:00Z' },
        description: { from: 'Lunch', to: null },
        payee: { from: null, to: 'Deli' },
        pending: { from: false, to: true },
      },
    },
  ])

  // Bad values are 400 and change nothing.
  await expectNoEvents(app, async () => {
    for (const [body, field] of [
      [{ amount: '1e5' }, 'amount'],
      [{ date: '2023-02-29' }, 'date'],
      [{ account_id: 'nope' }, 'account_id'],
      [{ source: 'csv' }, 'source'],
      [{ amount: 13 }, 'amount'],
    ] as const) {
      const res = await expectProblem(app, 'PUT', `/api/v1/transactions/${tx.id}`, 400, body)
      assert.deepEqual(problemFields(res), [field], JSON.stringify(body))
    }
  })
  assert.deepEqual(await expectStatus(app, 'GET', `/api/v1/transactions/${tx.id}`, 200), expected)
  assert.equal((await history(app, tx.id)).length, 3)
})

test('PUT /transactions/{id} with account_id moves it to another account', async (t) => {
  const { app, acct } = await startWithCashAccount(t)
  const other = await createAccount(app, { name: 'Card', currency: 'USD' })
  const tx = await createTransaction(app, { account_id: acct.id, amount: '-4', date: '2024-01-15' })
  const mark = await headSequence(app)
  const moved = await expectStatus(app, 'PUT', `/api/v1/transactions/${tx.id}`, 200, {
    account_id: other.id,
  })
  assert.deepEqual(moved, { ...tx, account_id: other.id })
  assert.deepEqual(
    (await expectStatus(app, 'GET', `/api/v1/accounts/${acct.id}/transactions`, 200)).transactions,
    [],
  )
  assert.deepEqual(
    (await expectStatus(app, 'GET', `/api/v1/accounts/${other.id}/transactions`, 200)).transactions,
    [moved],
  )
  assert.deepEqual(await eventBodiesAfter(app, mark), [
    {
      type: 'transaction.updated',
      entity_type: 'transaction',
      entity_id: tx.id,
      occurred_at: T0,
      data: moved,
    },
  ])
  assert.deepEqual((await history(app, tx.id)).at(-1), {
    version: 2,
    kind: 'edited',
    occurred_at: T0,
    snapshot: moved,
    diff: { account_id: { from: acct.id, to: other.id } },
  })
})

test('list totals follow every insert, move and delete, by hand and by sync', async (t) => {
  const { app, acct } = await startWithCashAccount(t)
  const other = await createAccount(app, { name: 'Card', currency: 'USD' })
  const total = async (path: string): Promise<number> =>
    (await expectStatus(app, 'GET', `/api/v1${path}`, 200)).total
  const totals = async (otherDeleted = false) => {
    const { kept, counted } = await keptAndCountedTransactions(app)
    assert.deepEqual(kept, counted, 'the kept counts against the rows')
    return {
      all: await total('/transactions?limit=1'),
      // The search's count of everything, alone and as the whole of a NOT.
      search: await total('/transactions/search?q=&limit=1'),
      not: await total('/transactions/search?q=-zzzz&limit=1'),
      acct: await total(`/accounts/${acct.id}/transactions?limit=1`),
      other: otherDeleted ? 0 : await total(`/accounts/${other.id}/transactions?limit=1`),
      checking: await total('/accounts/csv:checking/transactions?limit=1'),
      savings: await total('/accounts/csv:savings/transactions?limit=1'),
    }
  }
  const expected = (all: number, acct: number, other: number, checking: number, savings = 0) => ({
    ...{ all, search: all, not: all },
    ...{ acct, other, checking, savings },
  })
  // Three synced rows, csv:r2 in the account given.
  const batch = (accountOfR2: string) => {
    const base = csvBatch(
      csvRows(['csv:r1', 'csv:r2', 'csv:r3'])!.map((row) =>
        row.id === 'csv:r2' ? { ...row, account_id: accountOfR2 } : row,
      ),
    )
    const checking = base.accounts![0]!
    return { ...base, accounts: [checking, { ...checking, id: 'csv:savings', name: 'Savings' }] }
  }

  await ingest(app, batch('csv:checking'))
  const mine = []
  for (const account of [acct.id, acct.id, other.id]) {
    mine.push(
      await createTransaction(app, { account_id: account, amount: '-1', date: '2024-01-15' }),
    )
  }
  assert.deepEqual(await totals(), expected(6, 2, 1, 3))

  // Moved by hand, and by a sync that now files csv:r2 under savings.
  await expectStatus(app, 'PUT', `/api/v1/transactions/${mine[0].id}`, 200, {
    account_id: other.id,
  })
  await ingest(app, batch('csv:savings'))
  assert.deepEqual(await totals(), expected(6, 1, 2, 2, 1))

  // A delete, then an account deleted with its transactions.
  await expectStatus(app, 'DELETE', `/api/v1/transactions/${mine[1].id}`, 204)
  await expectStatus(app, 'DELETE', `/api/v1/accounts/${other.id}`, 204)
  assert.deepEqual(await totals(true), expected(3, 0, 0, 2, 1))
})

test('PUT /transactions/{id} without an actual change answers 200 and records nothing', async (t) => {
  const { app, acct } = await startWithCashAccount(t)
  const tx = await createTransaction(app, {
    account_id: acct.id,
    amount: '5',
    date: '2024-01-15',
    description: 'Same',
  })
  await expectNoEvents(app, async () => {
    for (const body of [
      {},
      { amount: '5' },
      { amount: '+5' },
      { date: '2024-01-15' },
      { date: 1705276800 },
      { date: '2024-01-15T01:00:00+01:00' },
      { description: 'Same', payee: null, memo: null, pending: false, account_id: acct.id },
    ]) {
      assert.deepEqual(
        await expectStatus(app, 'PUT', `/api/v1/transactions/${tx.id}`, 200, body),
        tx,
        JSON.stringify(body),
      )
    }
  })
  assert.equal((await history(app, tx.id)).length, 1)
})

test('DELETE /transactions/{id} removes it; its history stays readable', async (t) => {
  const clock = new StepClock()
  const { app, acct } = await startWithCashAccount(t, clock)
  const tx = await createTransaction(app, {
    account_id: acct.id,
    amount: '-9.99',
    date: '2024-01-15',
  })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${tx.id}/labels`, 200, {
    labels: { trip: 'rome' },
  })
  const last = { ...tx, labels: { trip: 'rome' } }
  const mark = await headSequence(app)
  const t1 = clock.advance(3600)

  const res = await app.request('DELETE', `/api/v1/transactions/${tx.id}`)
  assert.equal(res.status, 204, res.text)
  assert.equal(res.text, '')
  assert.deepEqual(await eventBodiesAfter(app, mark), [
    {
      type: 'transaction.deleted',
      entity_type: 'transaction',
      entity_id: tx.id,
      occurred_at: t1,
      data: last,
    },
  ])

  assert.deepEqual(
    await expectProblem(app, 'GET', `/api/v1/transactions/${tx.id}`, 404),
    problem(404, `transaction ${tx.id} not found`),
  )
  const versions = await history(app, tx.id)
  assert.deepEqual(
    versions.map((v: { kind: string }) => v.kind),
    ['imported', 'labeled', 'deleted'],
  )
  assert.deepEqual(versions.at(-1), {
    version: 3,
    kind: 'deleted',
    occurred_at: t1,
    snapshot: last,
    diff: {},
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/labels', 200), { labels: [] })
  assert.equal((await expectStatus(app, 'GET', '/api/v1/transactions', 200)).total, 0)

  await expectNoEvents(app, async () => {
    await expectProblem(app, 'DELETE', `/api/v1/transactions/${tx.id}`, 404)
    await expectProblem(app, 'PUT', `/api/v1/transactions/${tx.id}`, 404, { memo: 'x' })
    await expectProblem(app, 'GET', `/api/v1/transactions/${tx.id}/provenance`, 404)
    await expectProblem(app, 'PUT', `/api/v1/transactions/${tx.id}/labels`, 404, { labels: {} })
  })
  assert.deepEqual(
    await expectProblem(app, 'GET', '/api/v1/transactions/never/history', 404),
    problem(404, 'transaction never not found'),
  )
})

const SYNCED = [
  {
    id: 'csv:aaa',
    account_id: 'csv:checking',
    amount: '-12.50',
    date: '2024-01-05T00:00:00Z',
    description: 'Coffee',
    payee: 'Cafe',
  },
  { id: 'csv:bbb', account_id: 'csv:checking', amount: '100.00', date: '2024-01-06T00:00:00Z' },
]

test('synced transactions: inserted with events and history, 409 on core edits', async (t) => {
  const app = await startTestApp(t, { clock: new StepClock() })
  const counts = await ingest(app, csvBatch(SYNCED))
  assert.deepEqual(counts, { inserted: 2, updated: 0, unchanged: 0 })
  const aaa = {
    id: 'csv:aaa',
    account_id: 'csv:checking',
    amount: '-12.50',
    date: '2024-01-05T00:00:00Z',
    description: 'Coffee',
    payee: 'Cafe',
    memo: null,
    pending: false,
    source: 'csv',
    labels: {},
    extensions: {},
    synced_at: T0,
  }
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/transactions/csv:aaa', 200), aaa)
  assert.deepEqual(await history(app, 'csv:aaa'), [
    { version: 1, kind: 'imported', occurred_at: T0, snapshot: aaa, diff: {} },
  ])
  assert.deepEqual(
    (await eventBodiesAfter(app, 0)).map((e) => [e.type, e.entity_type, e.entity_id]),
    [
      ['account.created', 'account', 'csv:checking'],
      ['transaction.created', 'transaction', 'csv:aaa'],
      ['transaction.created', 'transaction', 'csv:bbb'],
    ],
  )

  const conflict = (action: string) =>
    problem(
      409,
      `transaction csv:aaa comes from source "csv"; only manual transactions can be ${action} (labels, extensions and relationships stay editable)`,
    )
  await expectNoEvents(app, async () => {
    assert.deepEqual(
      await expectProblem(app, 'PUT', '/api/v1/transactions/csv:aaa', 409, { memo: 'mine' }),
      conflict('edited'),
    )
    assert.deepEqual(
      await expectProblem(app, 'PUT', '/api/v1/transactions/csv:aaa', 409, {}),
      conflict('edited'),
    )
    assert.deepEqual(
      await expectProblem(app, 'DELETE', '/api/v1/transactions/csv:aaa', 409),
      conflict('deleted'),
    )
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/transactions/csv:aaa', 200), aaa)
  assert.equal((await history(app, 'csv:aaa')).length, 1)

  // Labels, extensions and relationships stay editable on a synced row.
  await expectStatus(app, 'PUT', '/api/v1/transactions/csv:aaa/labels', 200, {
    labels: { category: 'coffee' },
  })
  await expectStatus(app, 'PUT', '/api/v1/transactions/csv:aaa/extensions', 200, {
    extensions: { 'tax.deductible': false },
  })
  await expectStatus(app, 'POST', '/api/v1/transactions/csv:aaa/relationships', 201, {
    kind: 'split_of',
    target: 'csv:bbb',
  })
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/transactions/csv:aaa', 200), {
    ...aaa,
    labels: { category: 'coffee' },
    extensions: { 'tax.deductible': false },
  })
})

test('a manual transaction may live in a synced account and stays editable', async (t) => {
  const app = await startTestApp(t, { clock: new StepClock() })
  await ingest(app, csvBatch(SYNCED))
  const tx = await createTransaction(app, {
    account_id: 'csv:checking',
    amount: '-3.00',
    date: '2024-01-07',
  })
  assert.deepEqual(
    tx,
    manualTx({
      id: tx.id,
      account_id: 'csv:checking',
      amount: '-3.00',
      date: '2024-01-07T00:00:00Z',
    }),
  )
  const edited = await expectStatus(app, 'PUT', `/api/v1/transactions/${tx.id}`, 200, {
    amount: '-4.00',
  })
  assert.equal(edited.amount, '-4.00')
  assert.deepEqual(await listAll(app, '?limit=10'), [tx.id, 'csv:bbb', 'csv:aaa'])
  await expectStatus(app, 'DELETE', `/api/v1/transactions/${tx.id}`, 204)
  assert.deepEqual(await listAll(app), ['csv:bbb', 'csv:aaa'])
  // The synced account is untouched by all of it.
  assert.equal(
    (await expectStatus(app, 'GET', '/api/v1/accounts/csv:checking', 200)).balance,
    '250.00',
  )
})

test('re-sync: unchanged rows emit nothing; a changed amount is transaction.updated + synced', async (t) => {
  const clock = new StepClock()
  const app = await startTestApp(t, { clock })
  await ingest(app, csvBatch(SYNCED))
  await expectStatus(app, 'PUT', '/api/v1/transactions/csv:aaa/labels', 200, {
    labels: { category: 'coffee' },
  })
  await expectStatus(app, 'PUT', '/api/v1/transactions/csv:aaa/extensions', 200, {
    extensions: { 'tax.rate': 0.2, note: { by: 'me' } },
  })
  const before = await expectStatus(app, 'GET', '/api/v1/transactions/csv:aaa', 200)
  const mark = await headSequence(app)

  // The same batch again, later: nothing changes but synced_at.
  const t1 = clock.advance(600)
  assert.deepEqual(await ingest(app, csvBatch(SYNCED)), { inserted: 0, updated: 0, unchanged: 2 })
  assert.deepEqual(await eventBodiesAfter(app, mark), [])
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/transactions/csv:aaa', 200), {
    ...before,
    synced_at: t1,
  })
  assert.equal((await history(app, 'csv:aaa')).length, 3)

  // A changed amount, fetched by another source: the row keeps source "csv",
  // its labels and extensions.
  const t2 = clock.advance(600)
  const changed = structuredClone(SYNCED)
  changed[0]!.amount = '-13.75'
  const batch = csvBatch(changed)
  batch.source = 'aggregator'
  assert.deepEqual(await ingest(app, batch), { inserted: 0, updated: 1, unchanged: 1 })
  const after = { ...before, amount: '-13.75', synced_at: t2 }
  assert.deepEqual(await expectStatus(app, 'GET', '/api/v1/transactions/csv:aaa', 200), after)
  assert.deepEqual(await eventBodiesAfter(app, mark), [
    {
      type: 'transaction.updated',
      entity_type: 'transaction',
      entity_id: 'csv:aaa',
      occurred_at: t2,
      data: after,
    },
  ])
  const versions = await history(app, 'csv:aaa')
  assert.deepEqual(
    versions.map((v: { kind: string }) => v.kind),
    ['imported', 'labeled', 'extended', 'synced'],
  )
  assert.deepEqual(versions.at(-1), {
    version: 4,
    kind: 'synced',
    occurred_at: t2,
    snapshot: after,
    diff: { amount: { from: '-12.50', to: '-13.75' } },
  })
  assert.deepEqual(
    (await expectStatus(app, 'GET', '/api/v1/transactions/csv:bbb', 200)).synced_at,
    t2,
  )
  assert.equal((await expectStatus(app, 'GET', '/api/v1/transactions/csv:bbb', 200)).source, 'csv')
})

/** Rows for list tests: `count` transactions, two per day, going back from 2024-03-31. */
function manyRows(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    id: `csv:${String(i).padStart(5, '0')}`,
    account_id: 'csv:checking',
    amount: `${i}.00`,
    date: new Date(Date.parse('2024-03-31T00:00:00Z') - Math.floor(i / 2) * 86_400_000)
      .toISOString()
      .replace('.000Z', 'Z'),
  }))
}

test('GET /transactions: newest first, default limit 100, clamp 1000, paging without overlap', async (t) => {
  const app = await startTestApp(t)
  const rows = manyRows(1005)
  assert.deepEqual(await ingest(app, csvBatch(rows)), { inserted: 1005, updated: 0, unchanged: 0 })
  // Newest first: date descending, then id descending within a day.
  const expected = [...rows]
    .sort((a, b) => (a.date === b.date ? (a.id < b.id ? 1 : -1) : a.date < b.date ? 1 : -1))
    .map((r) => r.id)
  assert.deepEqual(expected.slice(0, 4), ['csv:00001', 'csv:00000', 'csv:00003', 'csv:00002'])

  const first = await expectStatus(app, 'GET', '/api/v1/transactions', 200)
  assert.equal(first.total, 1005)
  assert.equal(first.limit, 100)
  assert.equal(first.offset, 0)
  assert.deepEqual(
    first.transactions.map((tx: { id: string }) => tx.id),
    expected.slice(0, 100),
  )

  const clamped = await expectStatus(app, 'GET', '/api/v1/transactions?limit=5000', 200)
  assert.equal(clamped.limit, 1000)
  assert.equal(clamped.transactions.length, 1000)
  assert.equal(clamped.total, 1005)
  const rest = await expectStatus(app, 'GET', '/api/v1/transactions?limit=1000&offset=1000', 200)
  assert.deepEqual(
    rest.transactions.map((tx: { id: string }) => tx.id),
    expected.slice(1000),
  )
  assert.deepEqual(
    [...clamped.transactions, ...rest.transactions].map((tx: { id: string }) => tx.id),
    expected,
  )

  // Pages of 250 walk the whole list with no overlap and no gap.
  const seen: string[] = []
  for (let offset = 0; offset < 1005; offset += 250) {
    const page = await expectStatus(
      app,
      'GET',
      `/api/v1/transactions?limit=250&offset=${offset}`,
      200,
    )
    assert.equal(page.offset, offset)
    assert.equal(page.total, 1005)
    seen.push(...page.transactions.map((tx: { id: string }) => tx.id))
  }
  assert.deepEqual(seen, expected)
  const beyond = await expectStatus(app, 'GET', '/api/v1/transactions?offset=2000', 200)
  assert.deepEqual(beyond, {
    transactions: [],
    total: 1005,
    limit: 100,
    offset: 2000,
    next_cursor: null,
  })

  for (const query of ['limit=-1', 'limit=abc', 'limit=2.5', 'offset=-5', 'offset=ten']) {
    const res = await expectProblem(app, 'GET', `/api/v1/transactions?${query}`, 400)
    assert.deepEqual(problemFields(res), [query.split('=')[0]!], query)
    const res2 = await expectProblem(
      app,
      'GET',
      `/api/v1/accounts/csv:checking/transactions?${query}`,
      400,
    )
    assert.deepEqual(problemFields(res2), [query.split('=')[0]!], query)
  }
})

test('GET /transactions: since and until in the three forms, until=day includes the day', async (t) => {
  const { app, acct } = await startWithCashAccount(t)
  const at = async (date: string) =>
    (await createTransaction(app, { account_id: acct.id, amount: '1', date })).id as string
  const jan9End = await at('2024-01-09T23:59:59Z')
  const jan10Start = await at('2024-01-10T00:00:00Z')
  const jan10Noon = await at('2024-01-10T12:00:00Z')
  const jan10End = await at('2024-01-10T23:59:59Z')
  const jan11Start = await at('2024-01-11T00:00:00Z')

  const cases: Array<[string, string[]]> = [
    ['', [jan11Start, jan10End, jan10Noon, jan10Start, jan9End]],
    // since is inclusive in every form.
    ['?since=2024-01-10', [jan11Start, jan10End, jan10Noon, jan10Start]],
    ['?since=2024-01-10T12:00:00Z', [jan11Start, jan10End, jan10Noon]],
    ['?since=2024-01-10T14:00:00%2B02:00', [jan11Start, jan10End, jan10Noon]],
    ['?since=1704888000', [jan11Start, jan10End, jan10Noon]],
    // until=YYYY-MM-DD takes in that whole day; the other forms are an inclusive instant.
    ['?until=2024-01-10', [jan10End, jan10Noon, jan10Start, jan9End]],
    ['?until=2024-01-10T12:00:00Z', [jan10Noon, jan10Start, jan9End]],
    ['?until=2024-01-10T11:00:00-01:00', [jan10Noon, jan10Start, jan9End]],
    ['?until=1704888000', [jan10Noon, jan10Start, jan9End]],
    ['?until=1704887999', [jan10Start, jan9End]],
    ['?since=2024-01-10&until=2024-01-10', [jan10End, jan10Noon, jan10Start]],
    ['?since=2024-01-11&until=2024-01-10', []],
  ]
  for (const [query, ids] of cases) {
    const body = await expectStatus(app, 'GET', `/api/v1/transactions${query}`, 200)
    assert.deepEqual(
      body.transactions.map((tx: { id: string }) => tx.id),
      ids,
      query,
    )
    assert.equal(body.total, ids.length, query)
  }
  for (const [query, field] of [
    ['since=2024-02-30', 'since'],
    ['since=yesterday', 'since'],
    ['until=2024-13-01', 'until'],
    ['until=', 'until'],
  ] as const) {
    const res = await expectProblem(app, 'GET', `/api/v1/transactions?${query}`, 400)
    assert.deepEqual(problemFields(res), [field], query)
  }
  // The last day of all has no next day to stop before: it still takes in the whole day.
  const lastDay = await at('9999-12-31T12:00:00Z')
  const lastInstant = await at('9999-12-31T23:59:59Z')
  for (const path of [
    '/api/v1/transactions?since=9999-12-31&until=9999-12-31',
    '/api/v1/transactions/summary?since=9999-12-31&until=9999-12-31&period=day',
  ]) {
    const body = await expectStatus(app, 'GET', path, 200)
    if (body.transactions)
      assert.deepEqual(
        body.transactions.map((tx: { id: string }) => tx.id),
        [lastInstant, lastDay],
        path,
      )
    else
      assert.equal(
        JSON.stringify(body).includes('"count":2'),
        true,
        `${path}: ${JSON.stringify(body)}`,
      )
  }
  const all = await expectStatus(app, 'GET', '/api/v1/transactions?until=9999-12-31', 200)
  assert.equal(all.total, 7)
})

test('GET /transactions: label_key and label_value filters; account transactions', async (t) => {
  const { app, acct } = await startWithCashAccount(t)
  const card = await createAccount(app, { name: 'Card', currency: 'USD' })
  const a = await createTransaction(app, { account_id: acct.id, amount: '1', date: '2024-01-01' })
  const b = await createTransaction(app, { account_id: acct.id, amount: '2', date: '2024-01-02' })
  const c = await createTransaction(app, { account_id: card.id, amount: '3', date: '2024-01-03' })
  await createTransaction(app, { account_id: card.id, amount: '4', date: '2024-01-04' })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${a.id}/labels`, 200, {
    labels: { Category: 'Food' },
  })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${b.id}/labels`, 200, {
    labels: { category: 'travel' },
  })
  await expectStatus(app, 'PUT', `/api/v1/transactions/${c.id}/labels`, 200, {
    labels: { category: 'Food', trip: 'rome' },
  })

  const cases: Array<[string, string[]]> = [
    ['?label_key=category', [c.id, b.id, a.id]],
    ['?label_key=CATEGORY', [c.id, b.id, a.id]],
    ['?label_key=category&label_value=Food', [c.id, a.id]],
    ['?label_key=category&label_value=food', []],
    ['?label_key=trip', [c.id]],
    ['?label_key=none', []],
    ['?label_key=category&since=2024-01-02', [c.id, b.id]],
  ]
  for (const [query, ids] of cases) {
    assert.deepEqual(await listAll(app, query), ids, query)
  }
  const res = await expectProblem(app, 'GET', '/api/v1/transactions?label_value=Food', 400)
  assert.deepEqual(
    res,
    problem(400, 'label_value: needs label_key', [
      { field: 'label_value', message: 'needs label_key' },
    ]),
  )

  const own = await expectStatus(app, 'GET', `/api/v1/accounts/${acct.id}/transactions`, 200)
  assert.equal(own.total, 2)
  assert.deepEqual(
    own.transactions.map((tx: { id: string }) => tx.id),
    [b.id, a.id],
  )
  assert.deepEqual(own.transactions[1], { ...a, labels: { category: 'Food' } })
  const filtered = await expectStatus(
    app,
    'GET',
    `/api/v1/accounts/${card.id}/transactions?label_key=category&limit=1`,
    200,
  )
  assert.deepEqual(filtered, {
    transactions: [{ ...c, labels: { category: 'Food', trip: 'rome' } }],
    total: 1,
    limit: 1,
    offset: 0,
    next_cursor: null,
  })
})

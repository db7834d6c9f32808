// Rules runs and the writers that arrive meanwhile (CONTRACT 8, docs/rules.md
// "How a run proceeds"): a run matches outside the write lock, then writes in one
// short unit that matches again whatever changed since. The seam: the run's
// `afterReadPhase` option, awaited between the two phases, where these tests
// write by hand through HTTP as any other client would.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { runAllRules, runRule, unapplyRule } from '../src/rules/run.js'
import { startTestApp, type TestAppHandle } from './helpers/app.js'
import {
  assertNoKeyedValuesOfDeletedRows,
  createAccount,
  createTransaction,
  eventBodiesAfter,
  headSequence,
  history,
  StepClock,
} from './helpers/ledger.js'
import { ingestBatchInUnit } from '../src/ledger/ingest.js'
import { expectStatus } from './helpers/http.js'
import { assertLogFoldsToLedger } from './helpers/log-fold.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

async function setup(t: TestContext, env: Record<string, string> = {}) {
  const app = await startTestApp(t, { clock: new StepClock(), env })
  const acct = await createAccount(app, { name: 'Cash', currency: 'USD' })
  const tx = (payee: string, amount = '-4.50', date = '2024-01-15'): Promise<Json> =>
    createTransaction(app, { account_id: acct.id, amount, date, payee })
  return { app, acct, tx }
}

function txPath(id: string, tail = ''): string {
  return `/api/v1/transactions/${encodeURIComponent(id)}${tail}`
}

async function getTx(app: TestAppHandle, id: string): Promise<Json> {
  return expectStatus(app, 'GET', txPath(id), 200)
}

async function createRule(app: TestAppHandle, body: object): Promise<Json> {
  return expectStatus(app, 'POST', '/api/v1/rules', 201, body)
}

/** The events of the run itself: those after `mark` that the hand writes did not make. */
async function runEvents(app: TestAppHandle, mark: number) {
  return (await eventBodiesAfter(app, mark)).map((e) => ({
    type: e.type,
    entity_id: e.entity_id,
    data: e.type === 'rule.executed' ? e.data : (e.data as Json).change,
  }))
}

// Phase 1 keeps what it read of the rows it will change (up to a bound), or
// leaves them to be read again in the write unit: both must see the writes.
for (const keptSnapshots of [undefined, 0]) {
  const how = keptSnapshots === 0 ? ' (rows read again in the unit)' : ''
  test(`writes that land between the read phase and the write unit are respected${how}`, async (t) =>
    writesMeanwhile(t, keptSnapshots))
}

async function writesMeanwhile(t: TestContext, keptSnapshots: number | undefined) {
  const { app, tx } = await setup(t)
  const kept = await tx('Starbucks') // gets a label of its own by hand meanwhile
  const moved = await tx('Starbucks') // edited away from the query meanwhile
  const same = await tx('Starbucks') // given the rule's value by hand meanwhile
  const gone = await tx('Starbucks') // deleted meanwhile
  const joined = await tx('Deli') // edited into the query meanwhile
  const rule = await createRule(app, {
    name: 'Coffee',
    query: 'payee:starbucks',
    labels: { category: 'coffee' },
    extensions: { 'merchant.kind': 'cafe' },
    enabled: false, // not on new rows: a row created meanwhile must still be caught
  })
  let born: Json
  let mark = 0
  const result = await runRule(app.ctx, rule.id, {
    keptSnapshots,
    afterReadPhase: async () => {
      await expectStatus(app, 'PUT', txPath(kept.id, '/labels'), 200, { labels: { note: 'mine' } })
      await expectStatus(app, 'PUT', txPath(moved.id), 200, { payee: 'Tea House' })
      await expectStatus(app, 'PUT', txPath(same.id, '/labels'), 200, {
        labels: { category: 'coffee' },
      })
      await expectStatus(app, 'PUT', txPath(same.id, '/extensions'), 200, {
        extensions: { 'merchant.kind': 'cafe' },
      })
      assert.equal((await app.request('DELETE', txPath(gone.id))).status, 204)
      await expectStatus(app, 'PUT', txPath(joined.id), 200, { payee: 'Starbucks Reserve' })
      born = await tx('Starbucks')
      mark = await headSequence(app)
    },
  })

  // As if the run had happened whole at its commit: kept, same, joined and born
  // match; moved and gone do not. Only kept, joined and born change.
  assert.deepEqual(result, { matched: 4, updated: 3 })
  assert.deepEqual((await getTx(app, kept.id)).labels, { category: 'coffee', note: 'mine' })
  assert.deepEqual((await getTx(app, moved.id)).labels, {})
  assert.deepEqual((await getTx(app, joined.id)).labels, { category: 'coffee' })
  assert.deepEqual((await getTx(app, born.id)).extensions, { 'merchant.kind': 'cafe' })
  assert.equal((await app.request('GET', txPath(gone.id))).status, 404)
  // The row that already held everything got no version and no event from the run.
  assert.deepEqual(
    (await history(app, same.id)).map((v: Json) => v.kind),
    ['imported', 'labeled', 'extended'],
  )
  const events = await runEvents(app, mark)
  const byRow = (a: string[], b: string[]) => (a.join() < b.join() ? -1 : 1)
  assert.deepEqual(
    events
      .filter((e) => e.type !== 'rule.executed')
      .map((e) => [e.type, e.entity_id])
      .sort(byRow),
    [kept.id, joined.id, born.id]
      .flatMap((id) => [
        ['label.applied', id],
        ['extension.set', id],
      ])
      .sort(byRow),
  )
  assert.deepEqual(events.at(-1), {
    type: 'rule.executed',
    entity_id: rule.id,
    data: { rule_id: rule.id, matched: 4, updated: 3 },
  })
  assert.equal(events.length, 7)
  // The versions carry the rows as they stand at the commit, the hand's label too.
  assert.deepEqual((await history(app, kept.id)).at(-2).snapshot.labels, {
    category: 'coffee',
    note: 'mine',
  })
  await assertLogFoldsToLedger(app)
}

test('a hand-set value on a rule key is overwritten only while the row still matches', async (t) => {
  const { app, tx } = await setup(t)
  const stays = await tx('Starbucks')
  const leaves = await tx('Starbucks')
  await createRule(app, {
    name: 'Coffee',
    query: 'payee:starbucks',
    labels: { category: 'coffee' },
  })
  let mark = 0
  const result = await runAllRules(app.ctx, {
    afterReadPhase: async () => {
      // Both rows held the rule's value already when phase 1 read them (born labelled).
      for (const id of [stays.id, leaves.id]) {
        await expectStatus(app, 'PUT', txPath(id, '/labels'), 200, { labels: { category: 'tea' } })
      }
      await expectStatus(app, 'PUT', txPath(leaves.id), 200, { payee: 'Tea House' })
      mark = await headSequence(app)
    },
  })
  // At the commit, `stays` still matches and the rule's net result is coffee;
  // `leaves` no longer matches, and its hand-set value stays.
  assert.deepEqual(result, { matched: 1, updated: 1 })
  assert.deepEqual((await getTx(app, stays.id)).labels, { category: 'coffee' })
  assert.deepEqual((await getTx(app, leaves.id)).labels, { category: 'tea' })
  assert.deepEqual(await runEvents(app, mark), [
    {
      type: 'label.applied',
      entity_id: stays.id,
      data: { key: 'category', value: 'coffee', previous: 'tea' },
    },
    { type: 'rule.executed', entity_id: '*', data: { rule_id: null, matched: 1, updated: 1 } },
  ])
})

test('unapply meanwhile: a key changed by hand stays, a deleted row is skipped', async (t) => {
  const { app, tx } = await setup(t)
  const rule = await createRule(app, {
    name: 'Coffee',
    query: 'payee:starbucks',
    labels: { category: 'coffee' },
  })
  // Born labelled by the rule.
  const changed = await tx('Starbucks')
  const gone = await tx('Starbucks')
  const plain = await tx('Starbucks')
  let mark = 0
  const result = await unapplyRule(app.ctx, rule.id, {
    afterReadPhase: async () => {
      await expectStatus(app, 'PUT', txPath(changed.id, '/labels'), 200, {
        labels: { category: 'tea' },
      })
      assert.equal((await app.request('DELETE', txPath(gone.id))).status, 204)
      mark = await headSequence(app)
    },
  })
  assert.deepEqual(result, { matched: 2, removed: 1 })
  assert.deepEqual((await getTx(app, changed.id)).labels, { category: 'tea' })
  assert.deepEqual((await getTx(app, plain.id)).labels, {})
  assert.deepEqual(
    (await runEvents(app, mark)).map((e) => [e.type, e.entity_id]),
    [
      ['label.removed', plain.id],
      ['rule.executed', rule.id],
    ],
  )
  await assertLogFoldsToLedger(app)
})

test('a change the log cannot pin to rows (an account renamed) makes the unit match everything again', async (t) => {
  const { app, acct, tx } = await setup(t)
  const a = await tx('Deli')
  const b = await tx('Bakery')
  const rule = await createRule(app, {
    name: 'Cafe account',
    query: 'account:cafe',
    labels: { place: 'cafe' },
    enabled: false,
  })
  const result = await runRule(app.ctx, rule.id, {
    afterReadPhase: async () => {
      await expectStatus(app, 'PUT', `/api/v1/accounts/${acct.id}`, 200, { name: 'Cafe' })
    },
  })
  assert.deepEqual(result, { matched: 2, updated: 2 })
  for (const id of [a.id, b.id]) {
    assert.deepEqual((await getTx(app, id)).labels, { place: 'cafe' })
  }
})

test('a rule changed meanwhile runs as it is at the commit', async (t) => {
  const { app, tx } = await setup(t)
  const deli = await tx('Deli')
  const rule = await createRule(app, {
    name: 'Coffee',
    query: 'payee:starbucks',
    labels: { category: 'coffee' },
    enabled: false,
  })
  const result = await runRule(app.ctx, rule.id, {
    afterReadPhase: async () => {
      await expectStatus(app, 'PUT', `/api/v1/rules/${rule.id}`, 200, {
        name: 'Food',
        query: 'payee:deli',
        labels: { category: 'food' },
        enabled: false,
      })
    },
  })
  assert.deepEqual(result, { matched: 1, updated: 1 })
  assert.deepEqual((await getTx(app, deli.id)).labels, { category: 'food' })
  await assertLogFoldsToLedger(app)
})

test('with events off, the whole run happens in the unit, and writes meanwhile are still seen', async (t) => {
  const { app, tx } = await setup(t, { SERVICE_EVENTS_ENABLED: 'false' })
  const kept = await tx('Starbucks')
  const rule = await createRule(app, {
    name: 'Coffee',
    query: 'payee:starbucks',
    labels: { category: 'coffee' },
    enabled: false,
  })
  const result = await runRule(app.ctx, rule.id, {
    afterReadPhase: async () => {
      await expectStatus(app, 'PUT', txPath(kept.id, '/labels'), 200, { labels: { note: 'x' } })
      await tx('Starbucks')
    },
  })
  assert.deepEqual(result, { matched: 2, updated: 2 })
  assert.deepEqual((await getTx(app, kept.id)).labels, { category: 'coffee', note: 'x' })
})

// On PostgreSQL other units write while the run's write unit runs (on SQLite they
// wait for its lock): edits, deletes and hand labels racing it must leave no label
// on a deleted row, a history that replays, and no 500.
for (const action of ['run', 'unapply'] as const) {
  test(`writers racing a ${action}'s write unit: nothing written on a deleted row, histories replay`, async (t) => {
    const { app, acct } = await setup(t)
    const ROWS = 3_000
    await app.ctx.ledger.mutate((uow) =>
      ingestBatchInUnit(uow, {
        source: 'manual',
        organizations: [],
        accounts: [],
        transactions: Array.from({ length: ROWS }, (_, i) => ({
          id: `race-${String(i).padStart(5, '0')}`,
          account_id: acct.id,
          amount: '-1.00',
          date: '2024-02-01',
          description: `card purchase n${i}`,
        })),
      }),
    )
    const rule = await createRule(app, { name: 'race', query: 'card', labels: { r: 'x' } })
    if (action === 'unapply') await expectStatus(app, 'POST', `/api/v1/rules/${rule.id}/run`, 200)

    let running = true
    const racer = (async () => {
      // Rows from the far end first: the unit writes in id order, so these come late in it.
      for (let i = ROWS - 1; running && i >= 0; i -= 1) {
        const id = `race-${String(i).padStart(5, '0')}`
        const step = i % 3
        if (step === 0) await app.request('DELETE', txPath(id))
        else if (step === 1) await app.request('PUT', txPath(id), { body: { description: 'gone' } })
        else await app.request('PUT', txPath(id, '/labels'), { body: { labels: { hand: 'y' } } })
      }
    })()
    const answer = await app.request('POST', `/api/v1/rules/${rule.id}/${action}`)
    running = false
    await racer
    assert.equal(answer.status, 200, answer.text)

    await assertNoKeyedValuesOfDeletedRows(app)
    await assertLogFoldsToLedger(app)
  })
}

// The other units that write many rows a query chooses (an account's rows, the
// rows holding a label key) hold them before reading them, as a rules run does.
for (const remove of ['the account', 'a label key'] as const) {
  test(`edits racing the delete of ${remove}: nothing left on deleted rows, histories replay, no 5xx`, async (t) => {
    const { app, acct } = await setup(t)
    const ROWS = 300
    const ids = Array.from({ length: ROWS }, (_, i) => `race-${String(i).padStart(5, '0')}`)
    await app.ctx.ledger.mutate((uow) =>
      ingestBatchInUnit(uow, {
        source: 'manual',
        organizations: [],
        accounts: [],
        transactions: ids.map((id, i) => ({
          id,
          account_id: acct.id,
          amount: '-1.00',
          date: '2024-02-01',
          description: `card purchase n${i}`,
        })),
      }),
    )
    const rule = await createRule(app, { name: 'gone', query: 'card', labels: { gone: 'x' } })
    await expectStatus(app, 'POST', `/api/v1/rules/${rule.id}/run`, 200)
    let running = true
    const statuses: number[] = []
    const racer = (async () => {
      for (let i = ROWS - 1; running && i >= 0; i -= 1) {
        const res =
          i % 2 === 0
            ? await app.request('PUT', txPath(ids[i]!, '/labels'), {
                body: { labels: { gone: `e${i}`, hand: 'y' } },
              })
            : await app.request('PUT', txPath(ids[i]!), { body: { memo: `m${i}` } })
        statuses.push(res.status)
      }
    })()
    const answer =
      remove === 'the account'
        ? await app.request('DELETE', `/api/v1/accounts/${acct.id}`)
        : await app.request('DELETE', '/api/v1/labels/gone')
    running = false
    await racer
    assert.ok([200, 204].includes(answer.status), answer.text)
    // An edit lands before the delete or after it (404 once the row is gone), never a 5xx.
    assert.deepEqual(
      statuses.filter((status) => status >= 500),
      [],
    )
    await assertNoKeyedValuesOfDeletedRows(app)
    await assertLogFoldsToLedger(app)
  })
}

// The insert-step seam (unit-of-work.ts) as another part would use it, the way the
// plugins will: a step that gives new rows keys is born into their snapshot,
// version and events; a step after the insert sees the created rows in the same
// unit; a step that throws takes the whole insert back with it; a step hears of
// every label and extension change of existing rows (one at a time, in batches,
// a key removed everywhere), in the unit that writes it, but not of born keys.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bareContext } from '../../test/helpers/context.js'
import { listEvents } from '../events/service.js'
import { createAccount } from './accounts.js'
import { EXTENSIONS, setTransactionExtensions } from './extensions.js'
import { getHistory } from './history.js'
import { ingestBatchInUnit } from './ingest.js'
import type { JsonValue, TransactionJson } from './json.js'
import { writeKeyedValuesManyInUnit, type KeyedValueKind } from './keyed-values.js'
import { deleteLabel, LABELS, setTransactionLabels } from './labels.js'
import { findTransaction } from './snapshots.js'
import { createTransaction, getTransaction, listTransactions } from './transactions.js'
import type { WriteStep } from './unit-of-work.js'

const CSV_ACCOUNT = {
  id: 'csv:checking',
  org_id: 'csv:bank',
  name: 'Checking',
  currency: 'USD',
  balance: '0.00',
}

test('a step amends new rows before they are written and acts after, in the same unit', async (t) => {
  const ctx = await bareContext(t)
  const seen: string[][] = []
  const tagger: WriteStep = {
    name: 'tagger',
    amend: async (_uow, born) =>
      born.map((tx) =>
        tx.payee === 'Deli'
          ? { ...tx, labels: { zone: 'food', area: 'north' }, extensions: { 'x.n': [1] } }
          : tx,
      ),
  }
  const recorder: WriteStep = {
    name: 'recorder',
    afterInsert: async (uow, created) => {
      // The rows and their keys are already there, in this unit.
      const labels = await uow.trx
        .selectFrom('transaction_labels')
        .select(['transaction_id', 'key'])
        .execute()
      seen.push([...created.map((tx) => tx.id), `${labels.length} label rows`])
    },
  }
  ctx.ledger.registerWriteStep(tagger)
  ctx.ledger.registerWriteStep(recorder)

  const account = await createAccount(ctx, { name: 'Cash', currency: 'USD' })
  const deli = await createTransaction(ctx, {
    account_id: account.id,
    amount: '-9.00',
    date: '2024-02-02',
    payee: 'Deli',
  })
  // Sorted by key, as every snapshot shows them.
  assert.deepEqual(deli.labels, { area: 'north', zone: 'food' })
  assert.deepEqual(deli.extensions, { 'x.n': [1] })
  assert.deepEqual(await getTransaction(ctx, deli.id), deli)
  const versions = (await getHistory(ctx.db.kysely, deli.id)).versions
  assert.deepEqual(
    versions.map((v) => [v.kind, v.snapshot]),
    [['imported', deli]],
  )
  const events = (await listEvents(ctx, { entity_id: deli.id })).events
  assert.deepEqual(
    events.map((e) => [e.type, (e.data as { change?: unknown }).change]),
    [
      ['transaction.created', undefined],
      ['label.applied', { key: 'area', value: 'north', previous: null }],
      ['label.applied', { key: 'zone', value: 'food', previous: null }],
      ['extension.set', { key: 'x.n', value: [1], previous: null }],
    ],
  )

  await ctx.ledger.mutate((uow) =>
    ingestBatchInUnit(uow, {
      source: 'csv',
      organizations: [{ id: 'csv:bank', name: 'Bank' }],
      accounts: [CSV_ACCOUNT],
      transactions: [
        { id: 'csv:1', account_id: 'csv:checking', amount: '-1.00', date: '2024-02-03T00:00:00Z' },
        {
          id: 'csv:2',
          account_id: 'csv:checking',
          amount: '-2.00',
          date: '2024-02-04T00:00:00Z',
          payee: 'Deli',
        },
      ],
    }),
  )
  assert.deepEqual((await getTransaction(ctx, 'csv:1')).labels, {})
  assert.deepEqual((await getTransaction(ctx, 'csv:2')).labels, { area: 'north', zone: 'food' })
  assert.deepEqual(seen, [
    [deli.id, '2 label rows'],
    ['csv:1', 'csv:2', '4 label rows'],
  ])
})

test('a step that fails takes the insert back; a step must answer every row', async (t) => {
  const ctx = await bareContext(t)
  const account = await createAccount(ctx, { name: 'Cash', currency: 'USD' })
  let failure: Error | null = null
  let answer: (born: readonly TransactionJson[]) => readonly TransactionJson[] = (born) => born
  ctx.ledger.registerWriteStep({ name: 'answers', amend: async (_uow, born) => answer(born) })
  ctx.ledger.registerWriteStep({
    name: 'fails',
    afterInsert: async () => {
      if (failure) throw failure
    },
  })
  const head = async () => (await listEvents(ctx, { newest: 1 })).events[0]?.sequence ?? 0
  const before = await head()
  const create = () =>
    createTransaction(ctx, { account_id: account.id, amount: '-1.00', date: '2024-02-02' })

  failure = new Error('step failed')
  await assert.rejects(create, /step failed/)
  failure = null
  answer = () => []
  await assert.rejects(create, /insert step answers: answered 0 transactions for 1/)
  answer = (born) => born.map((tx) => ({ ...tx, id: 'other' }))
  await assert.rejects(create, /insert step answers: answered other for man_/)

  assert.equal((await listTransactions(ctx, {})).total, 0)
  assert.equal(await head(), before)
})

test('a step hears of every label and extension change, in the unit that writes it', async (t) => {
  const ctx = await bareContext(t)
  const heard: string[] = []
  ctx.ledger.registerWriteStep({
    name: 'born with a label',
    amend: async (_uow, born) => born.map((tx) => ({ ...tx, labels: { born: 'yes' } })),
  })
  ctx.ledger.registerWriteStep({
    name: 'listener',
    afterKeyedChange: async (uow, field, changed) => {
      // The rows are written already, in this unit.
      const rows = await uow.trx
        .selectFrom(field === 'labels' ? 'transaction_labels' : 'transaction_extensions')
        .select('transaction_id')
        .execute()
      const maps = changed.map((tx) => JSON.stringify(tx[field])).sort()
      heard.push(`${field} ${maps.join(' ')} (${rows.length} rows)`)
    },
  })
  const account = await createAccount(ctx, { name: 'Cash', currency: 'USD' })
  const create = (payee: string) =>
    createTransaction(ctx, {
      account_id: account.id,
      amount: '-1.00',
      date: '2024-02-02',
      payee,
    })
  const one = await create('One')
  const two = await create('Two')
  assert.deepEqual(heard, [], 'keys a row is born with are the insert steps’ business')

  await setTransactionLabels(ctx, one.id, { born: 'yes', zone: 'food' })
  await setTransactionExtensions(ctx, one.id, { 'x.n': 1 })
  // Unchanged: nothing written, nothing heard.
  await setTransactionLabels(ctx, one.id, { born: 'yes', zone: 'food' })
  const kinds = [LABELS, EXTENSIONS] as unknown as ReadonlyArray<KeyedValueKind<JsonValue>>
  await ctx.ledger.mutate(async (uow) => {
    const [a, b] = [
      (await findTransaction(uow.trx, one.id))!,
      (await findTransaction(uow.trx, two.id))!,
    ]
    await writeKeyedValuesManyInUnit(uow, kinds, [
      { before: a, next: { labels: { zone: 'food' } } },
      { before: b, next: { labels: { born: 'yes', zone: 'home' }, extensions: { 'x.m': 'v' } } },
    ])
  })
  await deleteLabel(ctx, 'zone', undefined)
  assert.deepEqual(one.labels, { born: 'yes' })
  assert.deepEqual(heard, [
    `labels {"born":"yes","zone":"food"} (3 rows)`,
    `extensions {"x.n":1} (1 rows)`,
    `labels {"born":"yes","zone":"home"} {"zone":"food"} (3 rows)`,
    `extensions {"x.m":"v"} (2 rows)`,
    `labels {"born":"yes"} {} (1 rows)`,
  ])
})

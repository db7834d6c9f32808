// The summary rollups (migration 0008, rollups.ts) must answer exactly what the
// rows answer: random ledgers built and edited through the ledger's own
// functions (creates, edits of amount, date and account, label changes,
// deletes), the queue drained partly, wholly or not at all, then every period,
// grouping and range of whole days summed both ways.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { sql } from 'kysely'
import { bareContext } from '../../test/helpers/context.js'
import { holdsAsync } from '../../test/helpers/property.js'
import { createAccount } from '../ledger/accounts.js'
import { setTransactionLabels } from '../ledger/labels.js'
import { createTransaction, deleteTransaction, updateTransaction } from '../ledger/transactions.js'
import type { SummaryInput } from '../schemas/summary.js'
import { rebuildAllQueuedRollups, rebuildQueuedRollups } from './rollups.js'
import { summarizeWith, type SummaryPlan } from './summary.js'

// Days on both sides of month and year ends, at both ends of the day.
const DAYS = ['2023-12-31', '2024-01-01', '2024-01-15', '2024-01-31', '2024-02-01', '2024-02-29']
const TIMES = ['T00:00:00Z', 'T12:30:00Z', 'T23:59:59Z']
// Float traps, 18 decimals, past int64, zeros of every form, and the longest
// amounts (64 characters), whose sums are longer than any amount.
const AMOUNTS = [
  '9'.repeat(64),
  `-${'9'.repeat(63)}`,
  '0.1',
  '0.2',
  '-0.3',
  '0.100000000000000001',
  '-1234567.000000000000000001',
  '98765432109876543210.5',
  '-0',
  '0.00',
  '5.',
  '-.5',
  '42',
]
const CATEGORIES = ['food', 'rent', 'Food']

const date = fc
  .tuple(fc.constantFrom(...DAYS), fc.constantFrom(...TIMES))
  .map(([day, time]) => day + time)
const amount = fc.constantFrom(...AMOUNTS)
const labels = fc.dictionary(fc.constantFrom('category', 'trip'), fc.constantFrom(...CATEGORIES), {
  maxKeys: 2,
})

type Op =
  | { op: 'create'; account: number; amount: string; date: string; labels: Record<string, string> }
  | { op: 'edit'; target: number; account?: number; amount?: string; date?: string }
  | { op: 'label'; target: number; labels: Record<string, string> }
  | { op: 'delete'; target: number }
  | { op: 'rebuild'; batch: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('create' as const),
      account: fc.nat(2),
      amount,
      date,
      labels,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        op: fc.constant('edit' as const),
        target: fc.nat(),
        account: fc.nat(2),
        amount,
        date,
      },
      { requiredKeys: ['op', 'target'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('label' as const), target: fc.nat(), labels }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), target: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('rebuild' as const),
      batch: fc.constantFrom(1, 2, 1000),
    }),
  },
)

// Every period and grouping, over everything and over ranges that start or end
// inside a month, on a month's first day, or on a day nothing falls on.
const RANGES: Array<Pick<SummaryInput, 'since' | 'until'>> = [
  {},
  { since: '2024-01-01' },
  { since: '2024-01-15' },
  { until: '2024-01-31' },
  { until: '2024-01-14' },
  { since: '2023-12-31', until: '2024-02-01' },
  { since: '2024-01-02T00:00:00Z', until: '2024-02-28T23:59:59Z' },
]
const SHAPES: Array<Pick<SummaryInput, 'period' | 'group_by' | 'by_label'>> = [
  { period: 'month' },
  { period: 'year', group_by: 'account' },
  { period: 'week', group_by: 'label', by_label: 'category' },
  { period: 'day', group_by: 'label', by_label: 'Trip' },
  { period: 'month', group_by: 'label', by_label: 'category' },
  { period: 'year', group_by: 'label', by_label: 'missing' },
]

test('summaries from the rollups equal summaries from the rows, whatever was written and rebuilt', async (t) => {
  await holdsAsync(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
      const ctx = await bareContext(t)
      const accounts = [
        await createAccount(ctx, { name: 'Checking', currency: 'USD' }),
        await createAccount(ctx, { name: 'Savings', currency: 'USD' }),
        await createAccount(ctx, { name: 'Wallet', currency: 'ETH' }),
      ]
      const ids: string[] = []
      const pick = (n: number) => (ids.length === 0 ? undefined : ids[n % ids.length])
      for (const step of ops) {
        switch (step.op) {
          case 'create': {
            const tx = await createTransaction(ctx, {
              account_id: accounts[step.account]!.id,
              amount: step.amount,
              date: step.date,
            })
            ids.push(tx.id)
            if (Object.keys(step.labels).length > 0)
              await setTransactionLabels(ctx, tx.id, step.labels)
            break
          }
          case 'edit': {
            const id = pick(step.target)
            if (id === undefined) break
            await updateTransaction(ctx, id, {
              ...(step.account === undefined ? {} : { account_id: accounts[step.account]!.id }),
              ...(step.amount === undefined ? {} : { amount: step.amount }),
              ...(step.date === undefined ? {} : { date: step.date }),
            })
            break
          }
          case 'label': {
            const id = pick(step.target)
            if (id !== undefined) await setTransactionLabels(ctx, id, step.labels)
            break
          }
          case 'delete': {
            const id = pick(step.target)
            if (id === undefined) break
            await deleteTransaction(ctx, id)
            ids.splice(ids.indexOf(id), 1)
            break
          }
          case 'rebuild':
            await rebuildQueuedRollups(ctx.ledger, step.batch)
            break
        }
      }
      const db = ctx.db.kysely
      const compare = async (state: string) => {
        for (const range of RANGES) {
          for (const shape of SHAPES) {
            const input = { ...shape, ...range }
            let plan: SummaryPlan | undefined
            const fromRollups = await summarizeWith({ db, onPlan: (p) => (plan = p) }, input)
            const fromRows = await summarizeWith({ db, rollups: false }, input)
            const context = `${state} ${JSON.stringify(input)}`
            assert.equal(plan, 'rollups', context)
            assert.deepEqual(fromRollups, fromRows, context)
          }
        }
      }
      await compare('as written')
      await rebuildAllQueuedRollups(ctx.ledger)
      const queued = await sql<{ n: number }>`select count(*) as n from summary_pending`.execute(db)
      assert.equal(queued.rows[0]!.n, 0)
      await compare('rebuilt')
    }),
    { share: 0.02 },
  )
})

test('a summary that cuts a day, has a query or a label filter sums the rows', async (t) => {
  const ctx = await bareContext(t)
  const db = ctx.db.kysely
  const inputs: SummaryInput[] = [
    { since: '2024-01-01T12:00:00Z' },
    { until: '2024-01-31T12:00:00Z' },
    { q: 'coffee' },
    { label_key: 'category' },
  ]
  for (const input of inputs) {
    let plan: SummaryPlan | undefined
    await summarizeWith({ db, onPlan: (p) => (plan = p) }, input)
    assert.equal(plan, 'sql', JSON.stringify(input))
  }
})

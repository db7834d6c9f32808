// The batched keyed-value writer (writeKeyedValuesManyInUnit, used by rules runs)
// against the one-at-a-time writers (labels then extensions, a transaction after
// the other): the same random changes on two fresh apps give the same rows,
// versions, events (in order) and transactions, on either engine.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { EXTENSIONS, writeExtensionsInUnit } from '../src/ledger/extensions.js'
import type { JsonValue, TransactionJson } from '../src/ledger/json.js'
import {
  MANY_CHUNK,
  writeKeyedValuesManyInUnit,
  type KeyedValuesChange,
} from '../src/ledger/keyed-values.js'
import { LABELS, writeLabelsInUnit } from '../src/ledger/labels.js'
import { findTransaction } from '../src/ledger/snapshots.js'
import { startTestApp, type TestAppHandle } from './helpers/app.js'
import { csvBatch, eventBodiesAfter, headSequence, ingest, StepClock } from './helpers/ledger.js'
import { seededRandom } from './helpers/seeded.js'

const LABEL_KEYS = ['category', 'direction', 'x.y', 'z-z']
const LABEL_VALUES = ['a', 'b', 'ü', '']
const EXTENSION_KEYS = ['merchant.name', 'tax.deductible', 'custom.app.id']
const EXTENSION_VALUES: JsonValue[] = [
  'Shop',
  1,
  '1',
  true,
  null,
  [1, 2],
  { p: 1, q: [2, { r: 3 }] },
  { q: [2, { r: 3 }], p: 1 },
]

function randomMap<V>(next: () => number, keys: string[], values: V[]): Record<string, V> {
  const map: Record<string, V> = {}
  for (const key of keys) {
    if (next() < 0.5) map[key] = values[Math.floor(next() * values.length)]!
  }
  return map
}

/** Labels and extensions to move to; either left out sometimes (kept as it is). */
function randomNext(next: () => number): KeyedValuesChange['next'] {
  const out: KeyedValuesChange['next'] = {}
  if (next() < 0.8) out.labels = randomMap(next, LABEL_KEYS, LABEL_VALUES)
  if (next() < 0.8) out.extensions = randomMap(next, EXTENSION_KEYS, EXTENSION_VALUES)
  return out
}

const COUNT = MANY_CHUNK * 2 + 37

async function seeded(t: Parameters<typeof startTestApp>[0]): Promise<TestAppHandle> {
  const app = await startTestApp(t, { clock: new StepClock() })
  const ids = Array.from({ length: COUNT }, (_, i) => `csv:${String(i).padStart(5, '0')}`)
  await ingest(
    app,
    csvBatch(
      ids.map((id, i) => ({
        id,
        account_id: 'csv:checking',
        amount: `-${i + 1}.00`,
        date: '2024-04-01T00:00:00Z',
        description: `Row ${i}`,
      })),
    ),
  )
  // A first round of keys, one transaction at a time on both apps.
  const next = seededRandom(7)
  await app.ctx.ledger.mutate(async (uow) => {
    for (const id of ids) {
      const want = randomNext(next)
      let tx = (await findTransaction(uow.trx, id))!
      if (want.labels) tx = await writeLabelsInUnit(uow, tx, want.labels as Record<string, string>)
      if (want.extensions) tx = await writeExtensionsInUnit(uow, tx, want.extensions)
    }
  })
  return app
}

/** The changes of the compared round: every transaction, some twice, in a shuffled order. */
function changeList(seed: number): Array<{ id: string; next: KeyedValuesChange['next'] }> {
  const next = seededRandom(seed)
  const out: Array<{ id: string; next: KeyedValuesChange['next'] }> = []
  for (let i = 0; i < COUNT; i++) {
    const id = `csv:${String(Math.floor(next() * COUNT)).padStart(5, '0')}`
    out.push({ id, next: randomNext(next) })
    // The same transaction again right away: the batch must write it twice, in order.
    if (next() < 0.05) out.push({ id, next: randomNext(next) })
  }
  return out
}

async function state(app: TestAppHandle, after: number): Promise<unknown> {
  const db = app.ctx.db.kysely
  const rows = (table: 'transaction_labels' | 'transaction_extensions') =>
    db
      .selectFrom(table)
      .select(['transaction_id', 'key', 'value'])
      .orderBy('transaction_id')
      .orderBy('key')
      .execute()
  return {
    labels: await rows('transaction_labels'),
    extensions: await rows('transaction_extensions'),
    versions: await db
      .selectFrom('transaction_versions')
      .selectAll()
      .orderBy('transaction_id')
      .orderBy('version')
      .execute(),
    transactions: await db.selectFrom('transactions').selectAll().orderBy('id').execute(),
    events: await eventBodiesAfter(app, after),
  }
}

test('the batched keyed-value writer writes what the one-at-a-time writers write', async (t) => {
  const [one, many] = await Promise.all([seeded(t), seeded(t)])
  const changes = changeList(11)
  const heads = [await headSequence(one), await headSequence(many)]

  const oneAfters = await one.ctx.ledger.mutate(async (uow) => {
    const afters: TransactionJson[] = []
    // A repeat starts from the snapshot the writer answered (as the batch's caller must).
    const current = new Map<string, TransactionJson>()
    for (const { id, next } of changes) {
      const before = current.get(id) ?? (await findTransaction(uow.trx, id))!
      let tx = before
      if (next.labels) tx = await writeLabelsInUnit(uow, tx, next.labels as Record<string, string>)
      if (next.extensions) tx = await writeExtensionsInUnit(uow, tx, next.extensions)
      afters.push(tx)
      current.set(id, tx)
    }
    return afters
  })

  const manyAfters = await many.ctx.ledger.mutate(async (uow) => {
    // The caller knows each transaction as it will be: a repeat starts from the earlier result.
    const current = new Map<string, TransactionJson>()
    const list: KeyedValuesChange[] = []
    for (const { id, next } of changes) {
      const before = current.get(id) ?? (await findTransaction(uow.trx, id))!
      list.push({ before, next })
      let tx = before
      // A map moves only where it differs (key order inside a value is no difference).
      const labels = next.labels as Record<string, string> | undefined
      if (labels && Object.keys(LABELS.diff(tx.labels, labels)).length > 0) {
        tx = { ...tx, labels: sortKeys(labels) }
      }
      const extensions = next.extensions
      if (extensions && Object.keys(EXTENSIONS.diff(tx.extensions, extensions)).length > 0) {
        tx = { ...tx, extensions: sortKeys(extensions) }
      }
      current.set(id, tx)
    }
    const afters = await writeKeyedValuesManyInUnit(uow, [LABELS, EXTENSIONS], list)
    // Nothing to change answers the very object given; a change, a new one.
    for (const [i, after] of afters.entries()) {
      const { before, next } = list[i]!
      const changed =
        (next.labels !== undefined &&
          Object.keys(LABELS.diff(before.labels, next.labels as Record<string, string>)).length >
            0) ||
        (next.extensions !== undefined &&
          Object.keys(EXTENSIONS.diff(before.extensions, next.extensions)).length > 0)
      assert.equal(after !== before, changed, before.id)
    }
    return afters
  })

  assert.equal(manyAfters.length, oneAfters.length)
  assert.deepEqual(manyAfters, oneAfters)
  const [a, b] = [await state(one, heads[0]!), await state(many, heads[1]!)]
  assert.deepEqual(b, a)
  // The round did change things, removed keys included, and wrote both kinds of version.
  const events = (a as { events: Array<{ type: string }> }).events
  for (const type of ['label.applied', 'label.removed', 'extension.set', 'extension.removed']) {
    assert.ok(
      events.some((e) => e.type === type),
      `some ${type}`,
    )
  }
})

function sortKeys<V>(map: Record<string, V>): Record<string, V> {
  return Object.fromEntries(Object.entries(map).sort(([x], [y]) => (x < y ? -1 : 1)))
}

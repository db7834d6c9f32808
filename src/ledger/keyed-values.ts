// Labels and extensions are both per-transaction maps of key → value, written the
// same way: rows in their own table, one history version per change, and one
// event per changed key. This is that one writer; labels.ts and extensions.ts
// supply what differs. New transactions may be born with keys (the insert steps
// of unit-of-work.ts): their rows go in bulk, their version is the `imported` one.
// Many transactions at once (a rules run) go through writeKeyedValuesManyInUnit:
// the same rows, versions and events, a chunk of transactions per statement.
// Every change is handed to the unit's write steps (afterKeyedChange), which keep
// what is derived from the keys (search documents, summary days) in step.
import { deleteRowsMatching, insertRowsChunked, upsertRowsChunked } from '../db/bulk.js'
import type { NewEvent } from '../events/types.js'
import { appendVersions, type Diff, type NewVersion } from './history.js'
import type { JsonValue, TransactionJson } from './json.js'
import type { UnitOfWork } from './unit-of-work.js'

export interface KeyedValueKind<V extends JsonValue> {
  /** The snapshot field, and the prefix of its diff keys. */
  field: 'labels' | 'extensions'
  table: 'transaction_labels' | 'transaction_extensions'
  version: 'labeled' | 'extended'
  applied: 'label.applied' | 'extension.set'
  removed: 'label.removed' | 'extension.removed'
  diff(before: Record<string, V>, after: Record<string, V>): Diff
  /** The value as stored in the table's text column. */
  store(value: V): string
}

/** The map with its keys in order, as snapshots show it. */
export function sortedByKey<V>(map: Record<string, V>): Record<string, V> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : 1)))
}

/**
 * One event per changed key: `applied` with the new and previous value, or
 * `removed` with the previous one; each carries the snapshot after the change.
 */
export function keyEvents<V extends JsonValue>(
  kind: KeyedValueKind<V>,
  after: TransactionJson,
  diff: Diff,
): NewEvent[] {
  const next = after[kind.field] as Record<string, V>
  const prefix = `${kind.field}.`
  return Object.entries(diff).map(([field, change]) => {
    const key = field.slice(prefix.length)
    const removed = !Object.hasOwn(next, key)
    return {
      type: removed ? kind.removed : kind.applied,
      entity_type: 'transaction',
      entity_id: after.id,
      data: {
        ...after,
        change: removed
          ? { key, previous: change.from }
          : { key, value: change.to, previous: change.from },
      },
    }
  })
}

/**
 * Moves one transaction's map to `next`. Returns the snapshot after the change
 * (the same object when nothing changed: no row, version or event is written).
 */
export async function writeKeyedValuesInUnit<V extends JsonValue>(
  uow: UnitOfWork,
  kind: KeyedValueKind<V>,
  before: TransactionJson,
  next: Record<string, V>,
): Promise<TransactionJson> {
  const current = before[kind.field] as Record<string, V>
  const diff = kind.diff(current, next)
  if (Object.keys(diff).length === 0) return before
  const after: TransactionJson = { ...before, [kind.field]: sortedByKey(next) }
  const id = before.id
  const prefix = `${kind.field}.`
  for (const field of Object.keys(diff)) {
    const key = field.slice(prefix.length)
    if (!Object.hasOwn(next, key)) {
      await uow.trx
        .deleteFrom(kind.table)
        .where('transaction_id', '=', id)
        .where('key', '=', key)
        .execute()
    } else {
      const value = kind.store(next[key]!)
      await uow.trx
        .insertInto(kind.table)
        .values({ transaction_id: id, key, value })
        .onConflict((oc) => oc.columns(['transaction_id', 'key']).doUpdateSet({ value }))
        .execute()
    }
  }
  await keyedValuesChanged(uow, kind.field, [after])
  await appendVersions(uow, [{ transaction_id: id, kind: kind.version, snapshot: after, diff }])
  for (const event of keyEvents(kind, after, diff)) uow.emit(event)
  return after
}

/**
 * Hands transactions whose `field` keys changed (as they stand after) to the
 * unit's write steps (WriteStep.afterKeyedChange).
 */
export async function keyedValuesChanged(
  uow: UnitOfWork,
  field: KeyedValueKind<JsonValue>['field'],
  changed: readonly TransactionJson[],
): Promise<void> {
  if (changed.length === 0) return
  for (const step of uow.writeSteps) await step.afterKeyedChange?.(uow, field, changed)
}

/** A transaction and the maps it moves to, by field (a field left out stays as it is). */
export interface KeyedValuesChange {
  before: TransactionJson
  next: Partial<Record<KeyedValueKind<JsonValue>['field'], Record<string, JsonValue>>>
}

/** Transactions written per step of writeKeyedValuesManyInUnit. */
export const MANY_CHUNK = 500

/**
 * Moves many transactions' maps, each as writeKeyedValuesInUnit would one kind
 * after the other in `kinds` order (the second seeing the first's snapshot), a
 * transaction after the other: the same rows, versions (numbers, snapshots,
 * diffs) and events in the same order. But a chunk of MANY_CHUNK transactions is
 * written at once: its removed keys in one DELETE and its set keys in multi-row
 * upserts per kind, its versions after one lookup of the latest numbers and in
 * one multi-row insert, then its events. Answers each transaction's snapshot
 * after the change, in order (its `before` when nothing changed).
 */
export async function writeKeyedValuesManyInUnit(
  uow: UnitOfWork,
  kinds: ReadonlyArray<KeyedValueKind<JsonValue>>,
  changes: readonly KeyedValuesChange[],
): Promise<TransactionJson[]> {
  const afters: TransactionJson[] = []
  let chunk: KeyedValuesChange[] = []
  const ids = new Set<string>()
  const flush = async () => {
    for (const after of await writeChunk(uow, kinds, chunk)) afters.push(after)
    chunk = []
    ids.clear()
  }
  for (const change of changes) {
    // A transaction met twice starts a new chunk: an upsert sets a row once.
    if (chunk.length >= MANY_CHUNK || ids.has(change.before.id)) await flush()
    chunk.push(change)
    ids.add(change.before.id)
  }
  if (chunk.length > 0) await flush()
  return afters
}

const ROW_KEY = [
  { name: 'transaction_id', type: 'text' },
  { name: 'key', type: 'text' },
] as const

async function writeChunk(
  uow: UnitOfWork,
  kinds: ReadonlyArray<KeyedValueKind<JsonValue>>,
  chunk: readonly KeyedValuesChange[],
): Promise<TransactionJson[]> {
  const removed = kinds.map(() => [] as Array<[id: string, key: string]>)
  const set = kinds.map(() => [] as Array<[id: string, key: string, value: string]>)
  const changed = kinds.map(() => [] as TransactionJson[])
  const versions: NewVersion[] = []
  const events: NewEvent[] = []
  const afters = chunk.map(({ before, next }) => {
    let snapshot = before
    for (const [k, kind] of kinds.entries()) {
      const target = next[kind.field]
      if (target === undefined) continue
      const current = snapshot[kind.field] as Record<string, JsonValue>
      const diff = kind.diff(current, target)
      if (Object.keys(diff).length === 0) continue
      const after: TransactionJson = { ...snapshot, [kind.field]: sortedByKey(target) }
      const id = before.id
      const prefix = `${kind.field}.`
      for (const field of Object.keys(diff)) {
        const key = field.slice(prefix.length)
        if (!Object.hasOwn(target, key)) removed[k]!.push([id, key])
        else set[k]!.push([id, key, kind.store(target[key]!)])
      }
      changed[k]!.push(after)
      versions.push({ transaction_id: id, kind: kind.version, snapshot: after, diff })
      for (const event of keyEvents(kind, after, diff)) events.push(event)
      snapshot = after
    }
    return snapshot
  })
  for (const [k, kind] of kinds.entries()) {
    await deleteRowsMatching(uow.trx, kind.table, ROW_KEY, removed[k]!)
    await upsertRowsChunked(
      uow.trx,
      kind.table,
      ['transaction_id', 'key'],
      ['transaction_id', 'key', 'value'],
      set[k]!,
      (row) => row,
    )
    await keyedValuesChanged(uow, kind.field, changed[k]!)
  }
  await appendVersions(uow, versions)
  for (const event of events) uow.emit(event)
  return afters
}

/**
 * Writes the keys that new transactions are born with, as multi-row inserts (a
 * sync inserts thousands of rows in one unit). No version and no event here: the
 * caller's `imported` version and `transaction.created` carry the keys, followed
 * by bornKeyEvents.
 */
export async function insertBornKeyedValuesInUnit<V extends JsonValue>(
  uow: UnitOfWork,
  kind: KeyedValueKind<V>,
  born: readonly TransactionJson[],
): Promise<void> {
  const pairs: Array<[id: string, key: string, value: V]> = []
  for (const tx of born) {
    const values = tx[kind.field] as Record<string, V>
    for (const key in values) pairs.push([tx.id, key, values[key]!])
  }
  await insertRowsChunked(
    uow.trx,
    kind.table,
    ['transaction_id', 'key', 'value'],
    pairs,
    ([id, key, value]) => [id, key, kind.store(value)],
  )
}

/** The per-key events of a transaction born with keys: one `applied` per key, no previous value. */
export function bornKeyEvents<V extends JsonValue>(
  kind: KeyedValueKind<V>,
  born: TransactionJson,
): NewEvent[] {
  const values = born[kind.field] as Record<string, V>
  for (const _ in values) return keyEvents(kind, born, kind.diff({}, values))
  return []
}

// Labels and extensions are both per-transaction maps of key → value, written the
// same way: rows in their own table, one history version per change, and one
// event per changed key. This is that one writer; labels.ts and extensions.ts
// supply what differs. New transactions may be born with keys (the insert steps
// of unit-of-work.ts): their rows go in bulk, their version is the `imported` one.
import { insertRowsChunked } from '../db/bulk.js'
import type { NewEvent } from '../events/types.js'
import { appendVersions, type Diff } from './history.js'
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
    const removed = !(key in next)
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
    if (!(key in next)) {
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
  await appendVersions(uow, [{ transaction_id: id, kind: kind.version, snapshot: after, diff }])
  for (const event of keyEvents(kind, after, diff)) uow.emit(event)
  return after
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

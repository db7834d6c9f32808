// Labels (SPEC 2.3): string values under lower-cased keys. They are user-owned,
// so they are editable on synced transactions too and never touched by a sync.
import type { ServiceContext } from '../context.js'
import { Invalid, NotFound } from '../errors.js'
import { appendVersions, diffLabels } from './history.js'
import type { TransactionJson } from './json.js'
import type { UnitOfWork } from './mutate.js'
import { findTransaction } from './snapshots.js'

export const LABEL_KEYS_MAX = 50
export const LABEL_KEY_MAX = 64
export const LABEL_VALUE_MAX = 256

// Letters and digits of any script, then also `_ . - /`; no spaces, `:` or `=`,
// which the search language uses as separators.
const LABEL_KEY_PATTERN = /^[\p{L}\p{N}][\p{L}\p{N}_./-]*$/u
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/

/** Canonical form of a label key: trimmed and lower-cased. */
export function canonicalLabelKey(key: string): string {
  return key.trim().toLowerCase()
}

export function validateLabels(input: Record<string, string>): Record<string, string> {
  const entries = Object.entries(input)
  if (entries.length > LABEL_KEYS_MAX) {
    throw Invalid.field('labels', `at most ${LABEL_KEYS_MAX} keys per transaction`)
  }
  const out: Record<string, string> = {}
  for (const [rawKey, value] of entries) {
    const key = canonicalLabelKey(rawKey)
    const field = `labels.${rawKey}`
    if (key.length === 0 || key.length > LABEL_KEY_MAX || !LABEL_KEY_PATTERN.test(key)) {
      throw Invalid.field(
        field,
        `a label key is 1 to ${LABEL_KEY_MAX} letters, digits, "_", ".", "-" or "/", starting with a letter or digit`,
      )
    }
    if (key in out) throw Invalid.field(field, `duplicates the key "${key}" once lower-cased`)
    if (value.length > LABEL_VALUE_MAX) {
      throw Invalid.field(field, `a label value is at most ${LABEL_VALUE_MAX} characters`)
    }
    if (CONTROL_CHARS.test(value)) throw Invalid.field(field, 'must not contain control characters')
    out[key] = value
  }
  return out
}

/**
 * Moves one transaction's labels to `next`: writes the rows, one `labeled`
 * version, and a label.applied / label.removed event per changed key. Returns the
 * snapshot after the change (the same object when nothing changed).
 */
export async function writeLabelsInUnit(
  uow: UnitOfWork,
  before: TransactionJson,
  next: Record<string, string>,
): Promise<TransactionJson> {
  const diff = diffLabels(before.labels, next)
  if (Object.keys(diff).length === 0) return before
  const sorted = Object.fromEntries(Object.entries(next).sort(([a], [b]) => (a < b ? -1 : 1)))
  const after: TransactionJson = { ...before, labels: sorted }
  const id = before.id
  for (const key of Object.keys(before.labels)) {
    if (!(key in next)) {
      await uow.trx
        .deleteFrom('transaction_labels')
        .where('transaction_id', '=', id)
        .where('key', '=', key)
        .execute()
    }
  }
  for (const [key, value] of Object.entries(next)) {
    if (before.labels[key] === value) continue
    await uow.trx
      .insertInto('transaction_labels')
      .values({ transaction_id: id, key, value })
      .onConflict((oc) => oc.columns(['transaction_id', 'key']).doUpdateSet({ value }))
      .execute()
  }
  await appendVersions(uow, [{ transaction_id: id, kind: 'labeled', snapshot: after, diff }])
  for (const [field, change] of Object.entries(diff)) {
    const key = field.slice('labels.'.length)
    const removed = change.to === null
    uow.emit({
      type: removed ? 'label.removed' : 'label.applied',
      entity_type: 'transaction',
      entity_id: id,
      data: {
        ...after,
        change: removed
          ? { key, previous: change.from }
          : { key, value: change.to, previous: change.from },
      },
    })
  }
  return after
}

export async function setTransactionLabels(
  ctx: ServiceContext,
  id: string,
  labels: Record<string, string>,
): Promise<{ id: string; labels: Record<string, string> }> {
  const next = validateLabels(labels)
  return ctx.ledger.mutate(async (uow) => {
    const before = await findTransaction(uow.trx, id)
    if (!before) throw new NotFound(`transaction ${id} not found`)
    const after = await writeLabelsInUnit(uow, before, next)
    return { id, labels: after.labels }
  })
}

export async function listLabels(
  ctx: ServiceContext,
): Promise<{ labels: Array<{ key: string; value: string; transaction_count: number }> }> {
  // Index: transaction_labels_key_value (key, value, transaction_id) covers the grouping.
  const rows = await ctx.db.kysely
    .selectFrom('transaction_labels')
    .select(['key', 'value', (eb) => eb.fn.countAll<number>().as('transaction_count')])
    .groupBy(['key', 'value'])
    .orderBy('key')
    .orderBy('value')
    .execute()
  return {
    labels: rows.map((r) => ({
      key: r.key,
      value: r.value,
      transaction_count: Number(r.transaction_count),
    })),
  }
}

const DELETE_CHUNK = 500

/**
 * DELETE /labels/{key}: removes the key (or only the pairs with `value`) from
 * every transaction. One coarse label.removed event (entity `label`), plus a
 * `labeled` history version on each transaction that lost it.
 */
export async function deleteLabel(
  ctx: ServiceContext,
  rawKey: string,
  value: string | undefined,
): Promise<{ key: string; value?: string; removed_from: number }> {
  const key = canonicalLabelKey(rawKey)
  return ctx.ledger.mutate(async (uow) => {
    const holders = await uow.trx
      .selectFrom('transaction_labels')
      .select('transaction_id')
      .where('key', '=', key)
      .$if(value !== undefined, (q) => q.where('value', '=', value!))
      .orderBy('transaction_id')
      .execute()
    const ids = holders.map((h) => h.transaction_id)
    for (let i = 0; i < ids.length; i += DELETE_CHUNK) {
      const chunk = ids.slice(i, i + DELETE_CHUNK)
      const befores = await Promise.all(chunk.map((tid) => findTransaction(uow.trx, tid)))
      await uow.trx
        .deleteFrom('transaction_labels')
        .where('key', '=', key)
        .where('transaction_id', 'in', chunk)
        .execute()
      const versions = befores.flatMap((before) => {
        if (!before) return []
        const labels = { ...before.labels }
        delete labels[key]
        return [
          {
            transaction_id: before.id,
            kind: 'labeled' as const,
            snapshot: { ...before, labels },
            diff: diffLabels(before.labels, labels),
          },
        ]
      })
      await appendVersions(uow, versions)
    }
    const result = { key, ...(value !== undefined ? { value } : {}), removed_from: ids.length }
    if (ids.length > 0) {
      uow.emit({ type: 'label.removed', entity_type: 'label', entity_id: key, data: result })
    }
    return result
  })
}

// Labels (SPEC 2.3): string values under lower-cased keys. They are user-owned,
// so they are editable on synced transactions too and never touched by a sync.
import type { ServiceContext } from '../context.js'
import { chunksOf } from '../db/bulk.js'
import { retryWhileRowsBusy } from '../db/coordination.js'
import { NotFound } from '../errors.js'
import { appendVersions, diffLabels } from './history.js'
import { keyedValuesChanged, writeKeyedValuesInUnit, type KeyedValueKind } from './keyed-values.js'
import type { TransactionJson } from './json.js'
import type { UnitOfWork } from './unit-of-work.js'
import { holdRowsAtCommit } from './row-holds.js'
import { findTransactionForChange, findTransactions } from './snapshots.js'

export {
  LABEL_KEYS_MAX,
  LABEL_KEY_MAX,
  LABEL_VALUE_MAX,
  canonicalLabelKey,
  validateLabels,
} from './keyed-checks.js'
import { canonicalLabelKey, validateLabels } from './keyed-checks.js'

export const LABELS: KeyedValueKind<string> = {
  field: 'labels',
  table: 'transaction_labels',
  version: 'labeled',
  applied: 'label.applied',
  removed: 'label.removed',
  diff: diffLabels,
  store: (value) => value,
}

/** Moves one transaction's labels to `next` (rows, a `labeled` version, per-key events). */
export function writeLabelsInUnit(
  uow: UnitOfWork,
  before: TransactionJson,
  next: Record<string, string>,
): Promise<TransactionJson> {
  return writeKeyedValuesInUnit(uow, LABELS, before, next)
}

export async function setTransactionLabels(
  ctx: ServiceContext,
  id: string,
  labels: Record<string, string>,
): Promise<{ id: string; labels: Record<string, string> }> {
  const next = validateLabels(labels)
  return ctx.ledger.mutate(async (uow) => {
    const before = await findTransactionForChange(uow.trx, id)
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
  return retryWhileRowsBusy(() =>
    ctx.ledger.mutate(async (uow) => {
      const holders = async () =>
        (
          await uow.trx
            .selectFrom('transaction_labels')
            .select('transaction_id')
            .where('key', '=', key)
            .$if(value !== undefined, (q) => q.where('value', '=', value!))
            .orderBy('transaction_id')
            .execute()
        ).map((h) => h.transaction_id)
      await holdRowsAtCommit(uow, holders)
      const ids = await holders()
      for (const chunk of chunksOf(ids, DELETE_CHUNK)) {
        const found = await findTransactions(uow.trx, chunk)
        const befores = chunk.map((tid) => found.get(tid))
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
        await keyedValuesChanged(
          uow,
          'labels',
          versions.map((version) => version.snapshot),
        )
        await appendVersions(uow, versions)
      }
      const result = { key, ...(value !== undefined ? { value } : {}), removed_from: ids.length }
      if (ids.length > 0) {
        uow.emit({ type: 'label.removed', entity_type: 'label', entity_id: key, data: result })
      }
      return result
    }),
  )
}

// Extensions (SPEC 2.3): dotted, case-preserved keys mapping to any JSON value,
// kept with its exact JSON type. User-owned: never touched by a sync.
import type { ServiceContext } from '../context.js'
import { NotFound } from '../errors.js'
import { diffExtensions } from './history.js'
import { writeKeyedValuesInUnit, type KeyedValueKind } from './keyed-values.js'
import type { JsonValue, TransactionJson } from './json.js'
import type { UnitOfWork } from './unit-of-work.js'
import { findTransactionForChange } from './snapshots.js'

export {
  EXTENSION_KEYS_MAX,
  EXTENSION_KEY_MAX,
  EXTENSION_VALUE_MAX_BYTES,
  validateExtensions,
} from './keyed-checks.js'
import { validateExtensions } from './keyed-checks.js'

export function extensionNamespace(key: string): string {
  const dot = key.indexOf('.')
  return dot === -1 ? key : key.slice(0, dot)
}

export const EXTENSIONS: KeyedValueKind<JsonValue> = {
  field: 'extensions',
  table: 'transaction_extensions',
  version: 'extended',
  applied: 'extension.set',
  removed: 'extension.removed',
  diff: diffExtensions,
  store: (value) => JSON.stringify(value),
}

/** Moves one transaction's extensions to `next` (rows, an `extended` version, per-key events). */
export function writeExtensionsInUnit(
  uow: UnitOfWork,
  before: TransactionJson,
  next: Record<string, JsonValue>,
): Promise<TransactionJson> {
  return writeKeyedValuesInUnit(uow, EXTENSIONS, before, next)
}

export async function setTransactionExtensions(
  ctx: ServiceContext,
  id: string,
  extensions: Record<string, unknown>,
): Promise<{ id: string; extensions: Record<string, JsonValue> }> {
  const next = validateExtensions(extensions)
  return ctx.ledger.mutate(async (uow) => {
    const before = await findTransactionForChange(uow.trx, id)
    if (!before) throw new NotFound(`transaction ${id} not found`)
    const after = await writeExtensionsInUnit(uow, before, next)
    return { id, extensions: after.extensions }
  })
}

export async function listExtensionKeys(
  ctx: ServiceContext,
): Promise<Array<{ namespace: string; key: string; transaction_count: number }>> {
  // Index: transaction_extensions_key (key, transaction_id) covers the grouping.
  const rows = await ctx.db.kysely
    .selectFrom('transaction_extensions')
    .select(['key', (eb) => eb.fn.countAll<number>().as('transaction_count')])
    .groupBy('key')
    .orderBy('key')
    .execute()
  return rows.map((r) => ({
    namespace: extensionNamespace(r.key),
    key: r.key,
    transaction_count: Number(r.transaction_count),
  }))
}

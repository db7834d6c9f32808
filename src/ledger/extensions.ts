// Extensions (SPEC 2.3): dotted, case-preserved keys mapping to any JSON value,
// kept with its exact JSON type. User-owned: never touched by a sync.
import type { ServiceContext } from '../context.js'
import { Invalid, NotFound } from '../errors.js'
import { JSON_DEPTH_DETAIL, MAX_JSON_DEPTH, jsonValueTooDeep } from '../schemas/json-depth.js'
import { diffExtensions } from './history.js'
import { writeKeyedValuesInUnit, type KeyedValueKind } from './keyed-values.js'
import type { JsonValue, TransactionJson } from './json.js'
import type { UnitOfWork } from './unit-of-work.js'
import { findTransactionForChange } from './snapshots.js'

export const EXTENSION_KEYS_MAX = 50
export const EXTENSION_KEY_MAX = 100
export const EXTENSION_VALUE_MAX_BYTES = 8 * 1024

// Dot-separated segments of letters (of any script, with their combining marks),
// digits, `_` and `-`: `tax.deductible`, `custom.app.id`, `custom.ünï.κλειδί`.
// Kept verbatim (SPEC 2.3): no case folding, no normalisation.
const EXTENSION_KEY_PATTERN = /^[\p{L}\p{M}\p{N}_-]+(\.[\p{L}\p{M}\p{N}_-]+)*$/u

export function extensionNamespace(key: string): string {
  const dot = key.indexOf('.')
  return dot === -1 ? key : key.slice(0, dot)
}

export function validateExtensions(input: Record<string, unknown>): Record<string, JsonValue> {
  const entries = Object.entries(input)
  if (entries.length > EXTENSION_KEYS_MAX) {
    throw Invalid.field('extensions', `at most ${EXTENSION_KEYS_MAX} keys per transaction`)
  }
  const out: Record<string, JsonValue> = {}
  for (const [key, value] of entries) {
    const field = `extensions.${key}`
    if (key.length > EXTENSION_KEY_MAX || !EXTENSION_KEY_PATTERN.test(key)) {
      throw Invalid.field(
        field,
        `an extension key is 1 to ${EXTENSION_KEY_MAX} characters: dot-separated segments of letters (any script), digits, "_" or "-"`,
      )
    }
    // Before JSON.stringify, which recurses: a value from any caller is bounded
    // as the doors bound client JSON (schemas/json-depth.ts).
    if (jsonValueTooDeep(value, MAX_JSON_DEPTH)) throw Invalid.field(field, JSON_DEPTH_DETAIL)
    if (Buffer.byteLength(JSON.stringify(value)) > EXTENSION_VALUE_MAX_BYTES) {
      throw Invalid.field(field, `a value is at most ${EXTENSION_VALUE_MAX_BYTES} bytes of JSON`)
    }
    out[key] = value as JsonValue
  }
  return out
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

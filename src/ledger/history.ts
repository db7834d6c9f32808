// Transaction history (CONTRACT 6): one version per change, with the snapshot
// after the change and a per-field diff. Versions outlive a deleted transaction.
import { chunksOf, insertRowsChunked } from '../db/bulk.js'
import type { DbExecutor } from '../db/schema.js'
import { NotFound } from '../errors.js'
import { canonicalJson, type JsonValue, type TransactionJson } from './json.js'
import type { UnitOfWork } from './unit-of-work.js'
import { inList } from '../db/in-list.js'

export type VersionKind = 'imported' | 'synced' | 'labeled' | 'edited' | 'extended' | 'deleted'

export type Diff = Record<string, { from: JsonValue; to: JsonValue }>

export interface VersionJson {
  version: number
  kind: VersionKind
  occurred_at: string
  snapshot: TransactionJson
  diff: Diff
  /** Who made the change when it was not a person or a source (`plugin:<name>`); omitted otherwise. */
  actor?: string
}

/** The source-owned and user-editable core fields, in display order. */
export const CORE_FIELDS = [
  'account_id',
  'amount',
  'date',
  'description',
  'payee',
  'memo',
  'pending',
] as const satisfies ReadonlyArray<keyof TransactionJson>

export function diffCore(before: TransactionJson, after: TransactionJson): Diff {
  const diff: Diff = {}
  for (const field of CORE_FIELDS) {
    if (before[field] !== after[field]) diff[field] = { from: before[field], to: after[field] }
  }
  return diff
}

export function diffLabels(before: Record<string, string>, after: Record<string, string>): Diff {
  return diffMaps('labels', before, after, (a, b) => a === b)
}

export function diffExtensions(
  before: Record<string, JsonValue>,
  after: Record<string, JsonValue>,
): Diff {
  // Key order inside an object value is not a change.
  return diffMaps('extensions', before, after, (a, b) => canonicalJson(a) === canonicalJson(b))
}

function diffMaps<V extends JsonValue>(
  prefix: string,
  before: Record<string, V>,
  after: Record<string, V>,
  same: (a: V, b: V) => boolean,
): Diff {
  const diff: Diff = {}
  const keys = new Set([...Object.keys(before), ...Object.keys(after)])
  for (const key of [...keys].sort()) {
    const from = Object.hasOwn(before, key) ? before[key]! : null
    const to = Object.hasOwn(after, key) ? after[key]! : null
    const present = Object.hasOwn(before, key) && Object.hasOwn(after, key)
    if (!present || !same(from as V, to as V)) diff[`${prefix}.${key}`] = { from, to }
  }
  return diff
}

export interface NewVersion {
  transaction_id: string
  kind: VersionKind
  snapshot: TransactionJson
  diff: Diff
  /** Known to be the first version (a fresh insert): skips the lookup of the last one. */
  first?: boolean
}

const LOOKUP_CHUNK_IDS = 500

export async function appendVersions(
  uow: UnitOfWork,
  versions: readonly NewVersion[],
): Promise<void> {
  if (versions.length === 0) return
  const needLookup = [...new Set(versions.filter((v) => !v.first).map((v) => v.transaction_id))]
  const latest = new Map<string, number>()
  for (const ids of chunksOf(needLookup, LOOKUP_CHUNK_IDS)) {
    const rows = await uow.trx
      .selectFrom('transaction_versions')
      .select(['transaction_id', (eb) => eb.fn.max('version').as('version')])
      .where(inList(uow.trx, 'transaction_id', ids))
      .groupBy('transaction_id')
      .execute()
    for (const row of rows) latest.set(row.transaction_id, Number(row.version))
  }
  // Numbered in order as the chunks are written: a transaction's versions follow each other.
  await insertRowsChunked(
    uow.trx,
    'transaction_versions',
    ['transaction_id', 'version', 'kind', 'occurred_at', 'snapshot', 'diff', 'actor'],
    versions,
    (v) => {
      const version = (latest.get(v.transaction_id) ?? 0) + 1
      latest.set(v.transaction_id, version)
      return [
        v.transaction_id,
        version,
        v.kind,
        uow.now,
        JSON.stringify(v.snapshot),
        JSON.stringify(v.diff),
        uow.actor ?? null,
      ]
    },
  )
}

export async function readVersions(db: DbExecutor, transactionId: string): Promise<VersionJson[]> {
  const rows = await db
    .selectFrom('transaction_versions')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .orderBy('version', 'asc')
    .execute()
  return rows.map((row) => ({
    version: row.version,
    kind: row.kind as VersionKind,
    occurred_at: row.occurred_at,
    snapshot: JSON.parse(row.snapshot) as TransactionJson,
    diff: JSON.parse(row.diff) as Diff,
    ...(row.actor ? { actor: row.actor } : {}),
  }))
}

/** GET /transactions/{id}/history: answers for deleted ids too, as long as versions exist. */
export async function getHistory(
  db: DbExecutor,
  transactionId: string,
): Promise<{ transaction_id: string; versions: VersionJson[] }> {
  const versions = await readVersions(db, transactionId)
  if (versions.length === 0) {
    const exists = await db
      .selectFrom('transactions')
      .select('id')
      .where('id', '=', transactionId)
      .executeTakeFirst()
    if (!exists) throw new NotFound(`transaction ${transactionId} not found`)
  }
  return { transaction_id: transactionId, versions }
}

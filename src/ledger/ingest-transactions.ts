// Synced transactions into the ledger, a chunk at a time: each incoming row is
// new (inserted through the one insert path), changed in a source-owned field
// (updated, with a `synced` version and `transaction.updated`), or unchanged
// (only `synced_at` is refreshed, in one statement). Labels, extensions and
// relationships are never touched, and `source` is never rewritten.
import { chunksOf, updateRowsMatching, type MatchColumn } from '../db/bulk.js'
import { inList } from '../db/in-list.js'
import { appendVersions, CORE_FIELDS, diffCore, type NewVersion } from './history.js'
import type { IngestCounts, IngestHint, IngestTransaction } from './ingest-batch.js'
import { toTransactionJson } from './json.js'
import { toTransactionsJson } from './snapshots.js'
import type { TransactionRow } from './tables.js'
import { countMoves } from './transaction-counts.js'
import { insertTransactionsInUnit } from './transaction-insert.js'
import type { UnitOfWork } from './unit-of-work.js'

// Ids per lookup: fewer, larger statements (SQLite allows 32766 parameters).
const LOOKUP_CHUNK = 1000

export async function mergeTransactionsInUnit(
  uow: UnitOfWork,
  source: string,
  transactions: readonly IngestTransaction[],
  hint: IngestHint,
): Promise<IngestCounts> {
  const { trx, now } = uow
  const counts: IngestCounts = { inserted: 0, updated: 0, unchanged: 0 }
  // Identical ids within one batch collapse to the last occurrence.
  const incoming = [...new Map(transactions.map((t) => [t.id, t])).values()]
  for (const chunk of chunksOf(incoming, LOOKUP_CHUNK)) {
    // A re-sync mostly finds its rows unchanged: one statement refreshes every row
    // of the chunk that is still identical, and when that is all of them, done.
    if (hint.mostlyExisting && (await refreshUnchanged(uow, chunk)) === chunk.length) {
      counts.unchanged += chunk.length
      continue
    }
    // Only the compared columns (a re-sync mostly finds nothing to change), with
    // the ids sorted so that the lookups walk the primary key in order.
    const existingRows = await trx
      .selectFrom('transactions')
      .select(['id', ...CORE_FIELDS])
      .where(inList(trx, 'id', chunk.map((t) => t.id).sort()))
      .execute()
    const existing = new Map(existingRows.map((r) => [r.id, r]))
    const fresh: TransactionRow[] = []
    const changed: TransactionRow[] = []
    const unchangedIds: string[] = []
    for (const t of chunk) {
      const row = newTransactionRow(t, source, now)
      const old = existing.get(t.id)
      if (!old) fresh.push(row)
      // Compared on the rows (the core fields are columns of the same name): an
      // unchanged re-sync builds no JSON at all.
      else if (CORE_FIELDS.some((field) => old[field] !== row[field])) changed.push(row)
      else unchangedIds.push(t.id)
    }
    await insertTransactionsInUnit(uow, fresh)
    counts.inserted += fresh.length
    hint.mostlyExisting = existing.size * 2 >= chunk.length

    await updateChanged(uow, changed)
    counts.updated += changed.length

    // An unchanged row only has its synced_at refreshed, in one statement.
    if (unchangedIds.length > 0) {
      await trx
        .updateTable('transactions')
        .set({ synced_at: now })
        .where(inList(trx, 'id', unchangedIds.sort()))
        .execute()
      counts.unchanged += unchangedIds.length
    }
  }
  return counts
}

/** Writes rows whose source-owned fields changed: the new values, a `synced` version, an event each. */
async function updateChanged(uow: UnitOfWork, changed: readonly TransactionRow[]): Promise<void> {
  if (changed.length === 0) return
  const { trx, now } = uow
  // The whole rows for the snapshots before the change (the lookup read only some columns).
  const fullRows = await trx
    .selectFrom('transactions')
    .selectAll()
    .where(inList(trx, 'id', changed.map((r) => r.id).sort()))
    .execute()
  const full = new Map(fullRows.map((r) => [r.id, r]))
  const olds = changed.map((r) => full.get(r.id)!)
  const changedRows = changed.map((row, index) => ({
    ...row,
    source: olds[index]!.source,
    created_at: olds[index]!.created_at,
  }))
  const befores = await toTransactionsJson(trx, olds)
  // A source may move a row to another of its accounts.
  countMoves(
    uow,
    changedRows.map((row, index) => ({ from: olds[index]!.account_id, to: row.account_id })),
  )
  const versions: NewVersion[] = []
  for (const [index, row] of changedRows.entries()) {
    const before = befores[index]!
    const after = toTransactionJson(row, before.labels, before.extensions)
    await trx
      .updateTable('transactions')
      .set({
        account_id: row.account_id,
        amount: row.amount,
        date: row.date,
        description: row.description,
        payee: row.payee,
        memo: row.memo,
        pending: row.pending,
        updated_at: now,
        synced_at: now,
      })
      .where('id', '=', row.id)
      .execute()
    versions.push({
      transaction_id: row.id,
      kind: 'synced',
      snapshot: after,
      diff: diffCore(before, after),
    })
    uow.emit({
      type: 'transaction.updated',
      entity_type: 'transaction',
      entity_id: row.id,
      data: after,
    })
  }
  await appendVersions(uow, versions)
}

function newTransactionRow(t: IngestTransaction, source: string, now: string): TransactionRow {
  return {
    id: t.id,
    account_id: t.account_id,
    amount: t.amount,
    date: t.date,
    description: t.description ?? null,
    payee: t.payee ?? null,
    memo: t.memo ?? null,
    pending: t.pending ? 1 : 0,
    source,
    created_at: now,
    updated_at: now,
    synced_at: now,
  }
}

/** The incoming columns refreshUnchanged compares, in order; only the texts may be null. */
const COMPARED: readonly MatchColumn[] = [
  { name: 'id', type: 'text' },
  { name: 'account_id', type: 'text' },
  { name: 'amount', type: 'text' },
  { name: 'date', type: 'text' },
  { name: 'description', type: 'text', nullable: true },
  { name: 'payee', type: 'text', nullable: true },
  { name: 'memo', type: 'text', nullable: true },
  { name: 'pending', type: 'integer' },
]

/**
 * Sets synced_at on the rows of `chunk` whose source-owned fields all still hold
 * the incoming values, in one statement, and answers how many it refreshed.
 */
function refreshUnchanged(uow: UnitOfWork, chunk: readonly IngestTransaction[]): Promise<number> {
  return updateRowsMatching(
    uow.trx,
    'transactions',
    { column: 'synced_at', value: uow.now },
    COMPARED,
    chunk.map((t) => [
      t.id,
      t.account_id,
      t.amount,
      t.date,
      t.description ?? null,
      t.payee ?? null,
      t.memo ?? null,
      t.pending ? 1 : 0,
    ]),
  )
}

// Loads transactions with their labels and extensions as the JSON of SPEC 2.2.
// Lists load the side tables for a whole page in two queries, never per row.
import { chunksOf } from '../db/bulk.js'
import type { DbExecutor } from '../db/schema.js'
import { toTransactionJson, type JsonValue, type TransactionJson } from './json.js'
import type { TransactionRow } from './tables.js'
import { inList } from '../db/in-list.js'
import { lockTransactionRow, lockTransactionRows } from '../db/coordination.js'

// Keeps IN (...) lists well under SQLite's bound-parameter limit.
const ID_CHUNK = 500

export async function loadLabels(
  db: DbExecutor,
  ids: readonly string[],
): Promise<Map<string, Record<string, string>>> {
  const out = new Map<string, Record<string, string>>()
  for (const chunk of chunksOf(ids, ID_CHUNK)) {
    const rows = await db
      .selectFrom('transaction_labels')
      .select(['transaction_id', 'key', 'value'])
      .where(inList(db, 'transaction_id', chunk))
      .orderBy('key')
      .execute()
    for (const row of rows) {
      let labels = out.get(row.transaction_id)
      if (!labels) out.set(row.transaction_id, (labels = {}))
      labels[row.key] = row.value
    }
  }
  return out
}

export async function loadExtensions(
  db: DbExecutor,
  ids: readonly string[],
): Promise<Map<string, Record<string, JsonValue>>> {
  const out = new Map<string, Record<string, JsonValue>>()
  for (const chunk of chunksOf(ids, ID_CHUNK)) {
    const rows = await db
      .selectFrom('transaction_extensions')
      .select(['transaction_id', 'key', 'value'])
      .where(inList(db, 'transaction_id', chunk))
      .orderBy('key')
      .execute()
    for (const row of rows) {
      let extensions = out.get(row.transaction_id)
      if (!extensions) out.set(row.transaction_id, (extensions = {}))
      extensions[row.key] = JSON.parse(row.value) as JsonValue
    }
  }
  return out
}

/** Rows to JSON, in the rows' order. */
export async function toTransactionsJson(
  db: DbExecutor,
  rows: readonly TransactionRow[],
): Promise<TransactionJson[]> {
  if (rows.length === 0) return []
  const ids = rows.map((r) => r.id)
  const [labels, extensions] = await Promise.all([loadLabels(db, ids), loadExtensions(db, ids)])
  return rows.map((row) =>
    toTransactionJson(row, labels.get(row.id) ?? {}, extensions.get(row.id) ?? {}),
  )
}

export async function findTransactionRow(
  db: DbExecutor,
  id: string,
): Promise<TransactionRow | undefined> {
  return db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirst()
}

/** findTransaction for a change: the row stays locked until the unit of work ends. */
export async function findTransactionForChange(
  trx: DbExecutor,
  id: string,
): Promise<TransactionJson | undefined> {
  await lockTransactionRow(trx, id)
  return findTransaction(trx, id)
}

export async function findTransaction(
  db: DbExecutor,
  id: string,
): Promise<TransactionJson | undefined> {
  const row = await findTransactionRow(db, id)
  if (!row) return undefined
  const [json] = await toTransactionsJson(db, [row])
  return json
}

/** findTransaction for many ids: the ones that exist, by id. */
export async function findTransactions(
  db: DbExecutor,
  ids: readonly string[],
): Promise<Map<string, TransactionJson>> {
  const out = new Map<string, TransactionJson>()
  for (const chunk of chunksOf(ids, ID_CHUNK)) {
    const rows = await db
      .selectFrom('transactions')
      .selectAll()
      .where(inList(db, 'id', chunk))
      .execute()
    for (const tx of await toTransactionsJson(db, rows)) out.set(tx.id, tx)
  }
  return out
}

/** findTransactionForChange for many ids: every row stays locked until the unit of work ends. */
export async function findTransactionsForChange(
  trx: DbExecutor,
  ids: readonly string[],
): Promise<Map<string, TransactionJson>> {
  await lockTransactionRows(trx, ids)
  return findTransactions(trx, ids)
}

// The one insert path of transactions, for manual entry and sync alike: the
// rows, the labels and extensions they are born with, their `imported` versions
// and `transaction.created` events, and the insert steps registered with the
// ledger (unit-of-work.ts) around them.
import { insertRowsChunked } from '../db/bulk.js'
import { EXTENSIONS } from './extensions.js'
import { appendVersions, CORE_FIELDS } from './history.js'
import { toTransactionJson, type TransactionJson } from './json.js'
import { bornKeyEvents, insertBornKeyedValuesInUnit, sortedByKey } from './keyed-values.js'
import { LABELS } from './labels.js'
import { countChange } from './transaction-counts.js'
import type { TransactionRow } from './tables.js'
import type { UnitOfWork } from './unit-of-work.js'

// A row is its id, the core fields (history diffs the same list), and bookkeeping.
const TRANSACTION_COLUMNS = [
  'id',
  ...CORE_FIELDS,
  'source',
  'created_at',
  'updated_at',
  'synced_at',
] as const satisfies ReadonlyArray<keyof TransactionRow>

/** What the steps add to the rows (WriteStep.rowColumns): the columns, and each row's values for them. */
async function stepColumns(
  uow: UnitOfWork,
  born: readonly TransactionJson[],
): Promise<{ names: string[]; rows: unknown[][] }> {
  const names: string[] = []
  const rows: unknown[][] = born.map(() => [])
  for (const step of uow.writeSteps) {
    const own = step.rowColumns ? await step.rowColumns(uow, born) : null
    if (!own) continue
    names.push(...own.names)
    own.values.forEach((values, i) => rows[i]!.push(...values))
  }
  return { names, rows }
}

/**
 * Inserts new transaction rows with their `imported` history version and
 * `transaction.created` event. The one insert path for manual entry and sync;
 * it runs the registered insert steps (unit-of-work.ts) on the batch: `amend`
 * before anything is written, so that a row is born with the labels and
 * extensions they give it (CONTRACT 8), `rowColumns` for columns of their own
 * the rows are written with, `afterInsert` once all is written.
 */
export async function insertTransactionsInUnit(
  uow: UnitOfWork,
  rows: readonly TransactionRow[],
): Promise<TransactionJson[]> {
  if (rows.length === 0) return []
  const bare = rows.map((row) => toTransactionJson(row, {}, {}))
  let born = bare
  for (const step of uow.writeSteps) {
    if (step.amend) born = withAmendedKeys(born, await step.amend(uow, born), step.name)
  }
  // Most batches are born bare (no rule matches): then no key is looked for at all.
  const keyed = born === bare ? [] : born.filter(hasKeys)
  const own = await stepColumns(uow, born)
  // The steps' columns are theirs (not in the ledger's table type): named as they give them.
  const columns = [...TRANSACTION_COLUMNS, ...own.names] as ReadonlyArray<keyof TransactionRow>
  await insertRowsChunked(uow.trx, 'transactions', columns, Array.from(rows.keys()), (i) => [
    ...TRANSACTION_COLUMNS.map((c) => rows[i]![c]),
    ...own.rows[i]!,
  ])
  countChange(
    uow,
    rows.map((row) => row.account_id),
    1,
  )
  await insertBornKeyedValuesInUnit(uow, LABELS, keyed)
  await insertBornKeyedValuesInUnit(uow, EXTENSIONS, keyed)
  await appendVersions(
    uow,
    born.map((snapshot) => ({
      transaction_id: snapshot.id,
      kind: 'imported' as const,
      snapshot,
      diff: {},
      first: true,
    })),
  )
  for (const snapshot of born) {
    uow.emit({
      type: 'transaction.created',
      entity_type: 'transaction',
      entity_id: snapshot.id,
      data: snapshot,
    })
    if (keyed.length === 0) continue
    for (const event of bornKeyEvents(LABELS, snapshot)) uow.emit(event)
    for (const event of bornKeyEvents(EXTENSIONS, snapshot)) uow.emit(event)
  }
  for (const step of uow.writeSteps) await step.afterInsert?.(uow, born)
  return born
}

function hasKeys(tx: TransactionJson): boolean {
  for (const _ in tx.labels) return true
  for (const _ in tx.extensions) return true
  return false
}

/** The transactions with the labels and extensions a step's `amend` answered; core fields stay. */
function withAmendedKeys(
  born: TransactionJson[],
  amended: readonly TransactionJson[],
  step: string,
): TransactionJson[] {
  if (amended === born) return born
  if (amended.length !== born.length) {
    throw new Error(
      `insert step ${step}: answered ${amended.length} transactions for ${born.length}`,
    )
  }
  return born.map((tx, i) => {
    const next = amended[i]!
    if (next.id !== tx.id) throw new Error(`insert step ${step}: answered ${next.id} for ${tx.id}`)
    if (next.labels === tx.labels && next.extensions === tx.extensions) return tx
    return { ...tx, labels: sortedByKey(next.labels), extensions: sortedByKey(next.extensions) }
  })
}

// Transactions: reads for every source, manual create/edit/delete (SPEC 1.4, 3).
// Only rows with source "manual" may have their core fields edited or be deleted;
// a manual transaction may live in any account, synced ones included.
import { randomUUID } from 'node:crypto'
import type { ServiceContext } from '../context.js'
import type { DbExecutor } from '../db/schema.js'
import { Conflict, Invalid, NotFound } from '../errors.js'
import { keysetPageOf, resolveKeysetPage, type KeysetPage, type KeysetPageInput } from '../page.js'
import { findAccountRow } from './accounts.js'
import { requireAmount, requireDate, requireText, TEXT_FIELD_MAX } from './fields.js'
import { appendVersions, diffCore } from './history.js'
import { toTransactionJson, type TransactionJson } from './json.js'
import { findTransaction, findTransactionRow, toTransactionsJson } from './snapshots.js'
import type { TransactionRow } from './tables.js'
import { countMoves } from './transaction-counts.js'
import { deleteTransactionsInUnit } from './transaction-delete.js'
import { insertTransactionsInUnit } from './transaction-insert.js'
import {
  afterKey,
  countTransactions,
  filteredTransactions,
  inKeysetOrder,
  transactionListScope,
  type TransactionFilter,
  transactionFilterOf,
} from './transaction-query.js'
import { lockTransactionRow } from '../db/coordination.js'

export interface TransactionListInput extends KeysetPageInput, TransactionFilter {}

export interface TransactionList {
  transactions: TransactionJson[]
  total: number
  limit: number
  /** The offset used; 0 when the page follows a cursor. */
  offset: number
  /** The cursor of the next page; null on the last page (and with limit 0). */
  next_cursor: string | null
}

/**
 * One page of a transaction list in the page's order (newest or oldest first),
 * by cursor or offset (`total` apart).
 */
export async function transactionPage(
  db: DbExecutor,
  filter: TransactionFilter,
  page: KeysetPage,
): Promise<{ rows: TransactionRow[]; next_cursor: string | null }> {
  let query = filteredTransactions(db, filter)
  if (page.after) query = afterKey(query, page.after, page.order)
  const rows = await inKeysetOrder(query.selectAll(), page.order)
    .limit(page.limit + 1)
    .offset(page.offset)
    .execute()
  return keysetPageOf(rows, page)
}

export async function listTransactions(
  ctx: ServiceContext,
  input: TransactionListInput,
): Promise<TransactionList> {
  const filter = transactionFilterOf(input, input.account_id)
  const page = resolveKeysetPage(input, transactionListScope('transactions', filter))
  const db = ctx.db.kysely
  const { rows, next_cursor } = await transactionPage(db, filter, page)
  const total = await countTransactions(db, filter)
  return {
    transactions: await toTransactionsJson(db, rows),
    total,
    limit: page.limit,
    offset: page.offset,
    next_cursor,
  }
}

export async function listAccountTransactions(
  ctx: ServiceContext,
  accountId: string,
  input: TransactionListInput,
): Promise<TransactionList> {
  if (!(await findAccountRow(ctx.db.kysely, accountId))) {
    throw new NotFound(`account ${accountId} not found`)
  }
  return listTransactions(ctx, { ...input, account_id: accountId })
}

export async function getTransaction(ctx: ServiceContext, id: string): Promise<TransactionJson> {
  const json = await findTransaction(ctx.db.kysely, id)
  if (!json) throw new NotFound(`transaction ${id} not found`)
  return json
}

export interface CreateTransactionInput {
  account_id: string
  amount: string
  date: string | number
  description?: string | null | undefined
  payee?: string | null | undefined
  memo?: string | null | undefined
  pending?: boolean | undefined
}

function optionalText(field: string, value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null
  return requireText(field, value, TEXT_FIELD_MAX)
}

async function requireAccountForTransaction(db: DbExecutor, accountId: string): Promise<void> {
  if (!(await findAccountRow(db, accountId))) {
    throw Invalid.field('account_id', `account ${accountId} does not exist`)
  }
}

export async function createTransaction(
  ctx: ServiceContext,
  input: CreateTransactionInput,
): Promise<TransactionJson> {
  const amount = requireAmount('amount', input.amount)
  const date = requireDate('date', input.date)
  const description = optionalText('description', input.description)
  const payee = optionalText('payee', input.payee)
  const memo = optionalText('memo', input.memo)
  return ctx.ledger.mutate(async (uow) => {
    await requireAccountForTransaction(uow.trx, input.account_id)
    const row: TransactionRow = {
      id: `man_${randomUUID()}`,
      account_id: input.account_id,
      amount,
      date,
      description,
      payee,
      memo,
      pending: input.pending ? 1 : 0,
      source: 'manual',
      created_at: uow.now,
      updated_at: uow.now,
      synced_at: uow.now,
    }
    const [created] = await insertTransactionsInUnit(uow, [row])
    return created!
  })
}

export interface UpdateTransactionInput {
  account_id?: string | undefined
  amount?: string | undefined
  date?: string | number | undefined
  description?: string | null | undefined
  payee?: string | null | undefined
  memo?: string | null | undefined
  pending?: boolean | undefined
}

async function requireManualTransaction(
  db: DbExecutor,
  id: string,
  action: string,
): Promise<TransactionRow> {
  // Held until the unit ends: another change of this row (a plugin's label) waits its turn.
  await lockTransactionRow(db, id)
  const row = await findTransactionRow(db, id)
  if (!row) throw new NotFound(`transaction ${id} not found`)
  if (row.source !== 'manual') {
    throw new Conflict(
      `transaction ${id} comes from source "${row.source}"; only manual transactions can be ${action} (labels, extensions and relationships stay editable)`,
    )
  }
  return row
}

export async function updateTransaction(
  ctx: ServiceContext,
  id: string,
  input: UpdateTransactionInput,
): Promise<TransactionJson> {
  const patch: Partial<TransactionRow> = {}
  if (input.amount !== undefined) patch.amount = requireAmount('amount', input.amount)
  if (input.date !== undefined) patch.date = requireDate('date', input.date)
  if (input.description !== undefined)
    patch.description = optionalText('description', input.description)
  if (input.payee !== undefined) patch.payee = optionalText('payee', input.payee)
  if (input.memo !== undefined) patch.memo = optionalText('memo', input.memo)
  if (input.pending !== undefined) patch.pending = input.pending ? 1 : 0
  if (input.account_id !== undefined) patch.account_id = input.account_id
  return ctx.ledger.mutate(async (uow) => {
    const row = await requireManualTransaction(uow.trx, id, 'edited')
    if (patch.account_id !== undefined && patch.account_id !== row.account_id) {
      await requireAccountForTransaction(uow.trx, patch.account_id)
    }
    const before = (await toTransactionsJson(uow.trx, [row]))[0]!
    const updatedRow: TransactionRow = { ...row, ...patch }
    const after = toTransactionJson(updatedRow, before.labels, before.extensions)
    const diff = diffCore(before, after)
    if (Object.keys(diff).length === 0) return before
    await uow.trx
      .updateTable('transactions')
      .set({ ...patch, updated_at: uow.now })
      .where('id', '=', id)
      .execute()
    countMoves(uow, [{ from: row.account_id, to: updatedRow.account_id }])
    await appendVersions(uow, [{ transaction_id: id, kind: 'edited', snapshot: after, diff }])
    uow.emit({
      type: 'transaction.updated',
      entity_type: 'transaction',
      entity_id: id,
      data: after,
    })
    return after
  })
}

export async function deleteTransaction(ctx: ServiceContext, id: string): Promise<void> {
  await ctx.ledger.mutate(async (uow) => {
    await requireManualTransaction(uow.trx, id, 'deleted')
    await deleteTransactionsInUnit(uow, [id])
  })
}

// Accounts: reads for every source, manual create/edit/delete (SPEC 1.4). Only
// manual accounts are editable; a manual account's balance is the static value
// the user maintains, never recomputed from its transactions.
import { randomUUID } from 'node:crypto'
import type { ServiceContext } from '../context.js'
import type { DbExecutor } from '../db/schema.js'
import { Conflict, NotFound } from '../errors.js'
import { resolvePage, type PageInput } from '../page.js'
import { retryWhileRowsBusy } from '../db/coordination.js'
import { holdRowsAtCommit } from './row-holds.js'
import { deleteTransactionsInUnit } from './transaction-delete.js'
import { requireAmount, requireCurrency, requireName } from './fields.js'
import { toAccountJson, type AccountJson } from './json.js'
import { ensureManualOrganization, MANUAL_ORG } from './organizations.js'
import type { AccountRow } from './tables.js'

export interface AccountListInput extends PageInput {
  org_id?: string | undefined
}

export async function listAccounts(
  ctx: ServiceContext,
  input: AccountListInput,
): Promise<{ accounts: AccountJson[]; total: number; limit: number; offset: number }> {
  const { limit, offset } = resolvePage(input)
  const db = ctx.db.kysely
  let query = db.selectFrom('accounts')
  if (input.org_id !== undefined) query = query.where('org_id', '=', input.org_id)
  // Index: accounts_name (name, id), or accounts_org_name with ?org_id=.
  const rows = await query
    .selectAll()
    .orderBy('name')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute()
  const count = await query
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return { accounts: rows.map(toAccountJson), total: Number(count.n), limit, offset }
}

export async function findAccountRow(db: DbExecutor, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function getAccount(ctx: ServiceContext, id: string): Promise<AccountJson> {
  const row = await findAccountRow(ctx.db.kysely, id)
  if (!row) throw new NotFound(`account ${id} not found`)
  return toAccountJson(row)
}

export interface CreateAccountInput {
  name: string
  currency: string
  balance?: string | undefined
}

export async function createAccount(
  ctx: ServiceContext,
  input: CreateAccountInput,
): Promise<AccountJson> {
  const name = requireName('name', input.name)
  const currency = requireCurrency('currency', input.currency)
  const balance = input.balance === undefined ? '0' : requireAmount('balance', input.balance)
  return ctx.ledger.mutate(async (uow) => {
    await ensureManualOrganization(uow)
    const row: AccountRow = {
      id: `man_acct_${randomUUID()}`,
      org_id: MANUAL_ORG.id,
      name,
      currency,
      balance,
      source: 'manual',
      created_at: uow.now,
      updated_at: uow.now,
      synced_at: null,
    }
    await uow.trx.insertInto('accounts').values(row).execute()
    const json = toAccountJson(row)
    uow.emit({ type: 'account.created', entity_type: 'account', entity_id: row.id, data: json })
    return json
  })
}

export interface UpdateAccountInput {
  name?: string | undefined
  currency?: string | undefined
  balance?: string | undefined
}

async function requireManualAccount(
  db: DbExecutor,
  id: string,
  action: string,
): Promise<AccountRow> {
  const row = await findAccountRow(db, id)
  if (!row) throw new NotFound(`account ${id} not found`)
  if (row.source !== 'manual') {
    throw new Conflict(
      `account ${id} comes from source "${row.source}"; only manual accounts can be ${action}`,
    )
  }
  return row
}

export async function updateAccount(
  ctx: ServiceContext,
  id: string,
  input: UpdateAccountInput,
): Promise<AccountJson> {
  const patch: Partial<AccountRow> = {}
  if (input.name !== undefined) patch.name = requireName('name', input.name)
  if (input.currency !== undefined) patch.currency = requireCurrency('currency', input.currency)
  if (input.balance !== undefined) patch.balance = requireAmount('balance', input.balance)
  return ctx.ledger.mutate(async (uow) => {
    const before = await requireManualAccount(uow.trx, id, 'edited')
    const after: AccountRow = { ...before, ...patch }
    const changed = (['name', 'currency', 'balance'] as const).some((f) => before[f] !== after[f])
    if (!changed) return toAccountJson(before)
    after.updated_at = uow.now
    await uow.trx
      .updateTable('accounts')
      .set({
        name: after.name,
        currency: after.currency,
        balance: after.balance,
        updated_at: uow.now,
      })
      .where('id', '=', id)
      .execute()
    const json = toAccountJson(after)
    uow.emit({ type: 'account.updated', entity_type: 'account', entity_id: id, data: json })
    return json
  })
}

/** Deletes a manual account: one transaction.deleted per contained transaction, then account.deleted. */
export async function deleteAccount(ctx: ServiceContext, id: string): Promise<void> {
  await retryWhileRowsBusy(() =>
    ctx.ledger.mutate(async (uow) => {
      const row = await requireManualAccount(uow.trx, id, 'deleted')
      const contained = async () =>
        (
          await uow.trx
            .selectFrom('transactions')
            .select('id')
            .where('account_id', '=', id)
            .orderBy('date')
            .orderBy('id')
            .execute()
        ).map((t) => t.id)
      await holdRowsAtCommit(uow, contained)
      await deleteTransactionsInUnit(uow, await contained())
      await uow.trx.deleteFrom('accounts').where('id', '=', id).execute()
      uow.emit({
        type: 'account.deleted',
        entity_type: 'account',
        entity_id: id,
        data: toAccountJson(row),
      })
    }),
  )
}

/** An account with its organization's name, as exports name it. */
export interface AccountWithOrganization {
  id: string
  name: string
  currency: string
  /** null when the organization row is missing. */
  org_name: string | null
}

/**
 * Every account with its organization's name, by id. Exports read the whole
 * chart of accounts once (accounts are few; transactions are what streams).
 */
export async function accountsWithOrganizations(
  db: DbExecutor,
): Promise<AccountWithOrganization[]> {
  return db
    .selectFrom('accounts')
    .leftJoin('organizations', 'organizations.id', 'accounts.org_id')
    .select([
      'accounts.id as id',
      'accounts.name as name',
      'accounts.currency as currency',
      'organizations.name as org_name',
    ])
    .orderBy('accounts.id')
    .execute()
}

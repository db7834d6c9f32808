// Synced accounts into the ledger: a new one is created with its `source`; a
// known one gets the source's name, currency, balance and organization, keeps
// its `source`, has `synced_at` refreshed, and emits `account.updated` only
// when one of those values really changed.
import type { IngestAccount } from './ingest-batch.js'
import { toAccountJson } from './json.js'
import type { AccountRow } from './tables.js'
import type { UnitOfWork } from './unit-of-work.js'

export async function mergeAccountsInUnit(
  uow: UnitOfWork,
  source: string,
  accounts: readonly IngestAccount[],
): Promise<void> {
  const { trx, now } = uow
  for (const account of accounts) {
    const existing = await trx
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', account.id)
      .executeTakeFirst()
    if (!existing) {
      const row: AccountRow = {
        ...account,
        source,
        created_at: now,
        updated_at: now,
        synced_at: now,
      }
      await trx.insertInto('accounts').values(row).execute()
      uow.emit({
        type: 'account.created',
        entity_type: 'account',
        entity_id: row.id,
        data: toAccountJson(row),
      })
      continue
    }
    const changed =
      existing.name !== account.name ||
      existing.currency !== account.currency ||
      existing.balance !== account.balance ||
      existing.org_id !== account.org_id
    const next: AccountRow = { ...existing, ...account, source: existing.source, synced_at: now }
    if (changed) next.updated_at = now
    await trx
      .updateTable('accounts')
      .set({
        name: next.name,
        currency: next.currency,
        balance: next.balance,
        org_id: next.org_id,
        synced_at: now,
        updated_at: next.updated_at,
      })
      .where('id', '=', account.id)
      .execute()
    if (changed) {
      uow.emit({
        type: 'account.updated',
        entity_type: 'account',
        entity_id: next.id,
        data: toAccountJson(next),
      })
    }
  }
}

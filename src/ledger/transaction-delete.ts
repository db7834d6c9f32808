// Removing transactions (a manual delete, or an account-delete cascade): the row
// and its labels, extensions and edges go; its history stays readable and gains
// a `deleted` version; `transaction.deleted` carries the last-known snapshot.
import { chunksOf } from '../db/bulk.js'
import { appendVersions } from './history.js'
import type { UnitOfWork } from './unit-of-work.js'
import { findTransaction, toTransactionsJson } from './snapshots.js'
import { countChange } from './transaction-counts.js'

const DELETE_CHUNK = 500

export async function deleteTransactionsInUnit(
  uow: UnitOfWork,
  ids: readonly string[],
): Promise<void> {
  const deleting = new Set(ids)
  for (const chunk of chunksOf(ids, DELETE_CHUNK)) {
    const rows = await uow.trx
      .selectFrom('transactions')
      .selectAll()
      .where('id', 'in', chunk)
      .execute()
    const byId = new Map((await toTransactionsJson(uow.trx, rows)).map((t) => [t.id, t]))

    // Edges pointing at a deleted transaction from one that stays are removed
    // too; the surviving transaction's relationships changed, so it gets an event.
    const inbound = await uow.trx
      .selectFrom('relationships')
      .selectAll()
      .where('target_id', 'in', chunk)
      .execute()
    await uow.trx.deleteFrom('relationships').where('target_id', 'in', chunk).execute()
    await uow.trx.deleteFrom('relationships').where('transaction_id', 'in', chunk).execute()
    for (const edge of inbound) {
      if (deleting.has(edge.transaction_id)) continue
      const source = await findTransaction(uow.trx, edge.transaction_id)
      if (!source) continue
      uow.emit({
        type: 'relationship.removed',
        entity_type: 'transaction',
        entity_id: edge.transaction_id,
        data: { ...source, change: { kind: edge.kind, target: edge.target_id } },
      })
    }

    await uow.trx.deleteFrom('transaction_labels').where('transaction_id', 'in', chunk).execute()
    await uow.trx
      .deleteFrom('transaction_extensions')
      .where('transaction_id', 'in', chunk)
      .execute()
    await uow.trx.deleteFrom('transactions').where('id', 'in', chunk).execute()
    countChange(
      uow,
      rows.map((row) => row.account_id),
      -1,
    )

    const snapshots = chunk.flatMap((id) => {
      const snapshot = byId.get(id)
      return snapshot ? [snapshot] : []
    })
    await appendVersions(
      uow,
      snapshots.map((snapshot) => ({
        transaction_id: snapshot.id,
        kind: 'deleted' as const,
        snapshot,
        diff: {},
      })),
    )
    for (const snapshot of snapshots) {
      uow.emit({
        type: 'transaction.deleted',
        entity_type: 'transaction',
        entity_id: snapshot.id,
        data: snapshot,
      })
    }
  }
}

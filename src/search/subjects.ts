// Loads what the matcher looks at (MatchSubject) for a page of transaction rows,
// and only that: labels, extensions, account names and relationships each come
// in one query per page when the query reads them, never per row.
import type { DbExecutor } from '../db/schema.js'
import { toTransactionJson, type JsonValue } from '../ledger/json.js'
import { loadExtensions, loadLabels } from '../ledger/snapshots.js'
import type { TransactionRow } from '../ledger/tables.js'
import type { QueryNode } from './ast.js'
import type { MatchSubject } from './match.js'
import { inList } from '../db/in-list.js'

/** The parts of a subject beyond the row itself that a query reads. */
export interface SubjectNeeds {
  labels: boolean
  extensions: boolean
  account: boolean
  relationships: boolean
}

export const EVERYTHING: SubjectNeeds = {
  labels: true,
  extensions: true,
  account: true,
  relationships: true,
}

export function subjectNeeds(node: QueryNode): SubjectNeeds {
  const needs: SubjectNeeds = {
    labels: false,
    extensions: false,
    account: false,
    relationships: false,
  }
  const visit = (n: QueryNode): void => {
    switch (n.kind) {
      case 'and':
      case 'or':
        n.items.forEach(visit)
        return
      case 'not':
        visit(n.item)
        return
      case 'text':
        needs.labels = needs.extensions = needs.account = true
        return
      case 'field_text':
        if (n.field === 'account') needs.account = true
        return
      case 'label':
        needs.labels = true
        return
      case 'ext':
        needs.extensions = true
        return
      case 'rel':
      case 'related':
        needs.relationships = true
        return
      default:
        return
    }
  }
  visit(node)
  return needs
}

/**
 * Subjects for `rows`, in order. Parts not in `needs` are left empty, so such a
 * subject is only for matching a query with those needs, never for output.
 */
export async function loadSubjects(
  db: DbExecutor,
  rows: readonly TransactionRow[],
  needs: SubjectNeeds = EVERYTHING,
): Promise<MatchSubject[]> {
  if (rows.length === 0) return []
  const ids = rows.map((r) => r.id)
  const accountIds = [...new Set(rows.map((r) => r.account_id))]
  const [labels, extensions, accounts, outbound, inbound] = await Promise.all([
    needs.labels ? loadLabels(db, ids) : new Map<string, Record<string, string>>(),
    needs.extensions ? loadExtensions(db, ids) : new Map<string, Record<string, JsonValue>>(),
    needs.account
      ? db
          .selectFrom('accounts')
          .select(['id', 'name'])
          .where(inList(db, 'id', accountIds))
          .execute()
      : [],
    needs.relationships ? relationshipsWhere(db, 'transaction_id', ids) : [],
    needs.relationships ? relationshipsWhere(db, 'target_id', ids) : [],
  ])
  const accountNames = new Map(accounts.map((a) => [a.id, a.name]))
  const outboundOf = groupBy(
    outbound,
    (e) => e.transaction_id,
    (e) => ({ kind: e.kind, to: e.target_id }),
  )
  const inboundOf = groupBy(
    inbound,
    (e) => e.target_id,
    (e) => ({ kind: e.kind, from: e.transaction_id }),
  )
  return rows.map((row) => ({
    transaction: toTransactionJson(row, labels.get(row.id) ?? {}, extensions.get(row.id) ?? {}),
    accountName: accountNames.get(row.account_id) ?? '',
    outbound: outboundOf.get(row.id) ?? [],
    inbound: inboundOf.get(row.id) ?? [],
  }))
}

/** The relationships whose `column` is one of `ids` (outbound by source, inbound by target). */
function relationshipsWhere(
  db: DbExecutor,
  column: 'transaction_id' | 'target_id',
  ids: readonly string[],
) {
  return db
    .selectFrom('relationships')
    .select(['transaction_id', 'kind', 'target_id'])
    .where(inList(db, column, ids))
    .execute()
}

function groupBy<T, V>(items: readonly T[], key: (item: T) => string, value: (item: T) => V) {
  const out = new Map<string, V[]>()
  for (const item of items) {
    const k = key(item)
    let list = out.get(k)
    if (!list) out.set(k, (list = []))
    list.push(value(item))
  }
  return out
}

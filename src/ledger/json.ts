// The only serializers of ledger rows into the JSON shapes of SPEC 2. REST, MCP,
// events and history snapshots all use these, so the shapes cannot drift.
import type { AccountJson, OrganizationJson } from '../schemas/accounts.js'
import type { JsonValue } from '../schemas/common.js'
import type { TransactionJson } from '../schemas/transactions.js'
import type { AccountRow, OrganizationRow, TransactionRow } from './tables.js'

// The shapes are the response schemas of src/schemas/ (one declaration each).
export type { AccountJson, OrganizationJson } from '../schemas/accounts.js'
export type { JsonValue } from '../schemas/common.js'
export type { TransactionJson } from '../schemas/transactions.js'

export function toOrganizationJson(row: OrganizationRow): OrganizationJson {
  return { id: row.id, name: row.name, domain: row.domain, source: row.source }
}

export function toAccountJson(row: AccountRow): AccountJson {
  return {
    id: row.id,
    name: row.name,
    currency: row.currency,
    balance: row.balance,
    source: row.source,
    org_id: row.org_id,
  }
}

export function toTransactionJson(
  row: TransactionRow,
  labels: Record<string, string>,
  extensions: Record<string, JsonValue>,
): TransactionJson {
  return {
    id: row.id,
    account_id: row.account_id,
    amount: row.amount,
    date: row.date,
    description: row.description,
    payee: row.payee,
    memo: row.memo,
    pending: Boolean(row.pending),
    source: row.source,
    labels,
    extensions,
    synced_at: row.synced_at,
  }
}

/** JSON text with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const keys = Object.keys(value).sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k]!)}`).join(',')}}`
}

// The only serializers of ledger rows into the JSON shapes of SPEC 2. REST, MCP,
// events and history snapshots all use these, so the shapes cannot drift.
import type { AccountRow, OrganizationRow, TransactionRow } from './tables.js'

export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

export interface OrganizationJson {
  id: string
  name: string
  domain: string | null
  source: string
}

export interface AccountJson {
  id: string
  name: string
  currency: string
  balance: string
  source: string
  org_id: string
}

export interface TransactionJson {
  id: string
  account_id: string
  amount: string
  date: string
  description: string | null
  payee: string | null
  memo: string | null
  pending: boolean
  source: string
  labels: Record<string, string>
  extensions: Record<string, JsonValue>
  synced_at: string | null
}

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

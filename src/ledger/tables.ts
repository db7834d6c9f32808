// Table types owned by the ledger. Booleans are stored as 0/1 integers and every
// timestamp as fixed-width RFC 3339 UTC text, the same on SQLite and PostgreSQL,
// so that rows read back identically on both engines.
import type { Insertable, Selectable } from 'kysely'

export interface OrganizationsTable {
  id: string
  name: string
  domain: string | null
  source: string
  created_at: string
  updated_at: string
}

export interface AccountsTable {
  id: string
  org_id: string
  name: string
  currency: string
  balance: string
  source: string
  created_at: string
  updated_at: string
  synced_at: string | null
}

export interface TransactionsTable {
  id: string
  account_id: string
  amount: string
  date: string
  description: string | null
  payee: string | null
  memo: string | null
  pending: number
  source: string
  created_at: string
  updated_at: string
  synced_at: string | null
}

export interface TransactionLabelsTable {
  transaction_id: string
  key: string
  value: string
}

export interface TransactionExtensionsTable {
  transaction_id: string
  key: string
  /** The value as compact JSON text. */
  value: string
}

export interface RelationshipsTable {
  transaction_id: string
  kind: string
  target_id: string
  created_at: string
}

export interface TransactionVersionsTable {
  transaction_id: string
  version: number
  kind: string
  occurred_at: string
  snapshot: string
  diff: string
  /** Who made the change when it was not a person or a source, e.g. `plugin:merchant-labels`. */
  actor: string | null
}

/** Transactions per account, kept with every insert, delete and move (transaction-counts.ts). */
export interface TransactionCountsTable {
  account_id: string
  /** A bigint: PostgreSQL answers it as a string. */
  n: number | string
}

export interface LedgerTables {
  organizations: OrganizationsTable
  accounts: AccountsTable
  transactions: TransactionsTable
  transaction_labels: TransactionLabelsTable
  transaction_extensions: TransactionExtensionsTable
  relationships: RelationshipsTable
  transaction_versions: TransactionVersionsTable
  transaction_counts: TransactionCountsTable
}

export type OrganizationRow = Selectable<OrganizationsTable>
export type AccountRow = Selectable<AccountsTable>
export type TransactionRow = Selectable<TransactionsTable>
export type NewTransactionRow = Insertable<TransactionsTable>

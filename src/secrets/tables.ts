// The secret store's table, used on PostgreSQL only (see store.ts).
export interface SecretsTable {
  name: string
  value: string
  updated_at: string
}

export interface SecretTables {
  secrets: SecretsTable
}

// Credentials are stored as SHA-256 hashes only (SPEC 2.7, 5.3).
export interface ApiKeysTable {
  id: string
  name: string
  prefix: string
  scope: string
  key_hash: string
  created_at: string
  last_used_at: string | null
}

/** The dashboard token generated or pasted in the dashboard; one row named 'dashboard'. */
export interface StoredTokensTable {
  name: string
  token_hash: string
  created_at: string
}

export interface AuthTables {
  api_keys: ApiKeysTable
  stored_tokens: StoredTokensTable
}

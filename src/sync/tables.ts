// Table types owned by the sync folder (migration 0003-sync).

export interface SyncRunsTable {
  id: string
  source: string | null
  trigger: string
  started_at: string
  completed_at: string | null
  status: string
  error: string | null
  /** JSON object: source type → {inserted, updated, unchanged, skipped}. */
  counts: string
  /** JSON array of strings. */
  warnings: string
  /** JSON object: source type → error message, for sources that failed. */
  source_errors: string
  owner: string
}

export interface OAuthStatesTable {
  /** SHA-256 of the state handed to the browser; the state itself is never stored. */
  state_hash: string
  source: string
  expires_at: string
}

export interface SyncTables {
  sync_runs: SyncRunsTable
  oauth_states: OAuthStatesTable
}

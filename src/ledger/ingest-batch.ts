// What a source hands the ledger (DESIGN "A source"): a batch in neutral form,
// and what merging it answers. The merge itself is ingest.ts.

export interface IngestOrganization {
  id: string
  name: string
  domain?: string | null
}

export interface IngestAccount {
  id: string
  org_id: string
  name: string
  currency: string
  balance: string
}

export interface IngestTransaction {
  id: string
  account_id: string
  amount: string
  date: string
  description?: string | null
  payee?: string | null
  memo?: string | null
  pending?: boolean
}

export interface IngestBatch {
  source: string
  organizations?: IngestOrganization[]
  accounts?: IngestAccount[]
  transactions?: IngestTransaction[]
}

export interface IngestCounts {
  inserted: number
  updated: number
  unchanged: number
}

/**
 * Carried from one unit of a sync to the next: whether the last chunk found its
 * rows already there, so that the next one tries the re-sync fast path first.
 */
export interface IngestHint {
  mostlyExisting: boolean
}

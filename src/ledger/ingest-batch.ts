// What a source hands the ledger (DESIGN "A source"): a batch in neutral form,
// and what merging it answers. The merge itself is ingest.ts.
import { wellFormed } from '../schemas/unicode.js'

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

function wellFormedRecord<T extends object>(record: T): T {
  let copy: T | null = null
  for (const [key, value] of Object.entries(record)) {
    if (typeof value !== 'string') continue
    const fixed = wellFormed(value)
    if (fixed === value) continue
    copy ??= { ...record }
    ;(copy as Record<string, unknown>)[key] = fixed
  }
  return copy ?? record
}

/**
 * The batch with every string well-formed Unicode. A source's JSON may hold a
 * lone surrogate (`"\ud800"`), which neither database can store: it would be
 * kept as U+FFFD while the event carried the original. Replacing it here keeps
 * the row, its event and its history equal. Clean records are passed through.
 */
export function wellFormedBatch(batch: IngestBatch): IngestBatch {
  return {
    source: batch.source,
    ...(batch.organizations && { organizations: batch.organizations.map(wellFormedRecord) }),
    ...(batch.accounts && { accounts: batch.accounts.map(wellFormedRecord) }),
    ...(batch.transactions && { transactions: batch.transactions.map(wellFormedRecord) }),
  }
}

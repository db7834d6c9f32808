// Merges rows fetched by a source into the ledger (SPEC 1.1, DESIGN "A source"):
// dedupe by id, `source` stamped at insert and never rewritten, labels,
// extensions and relationships untouched, `synced_at` refreshed on every row
// the batch touches, and an update event + `synced` version only when a
// source-owned field really changed. The sync engine calls this in its unit of work.
// By job: ingest-batch.ts (the neutral form), ingest-accounts.ts and
// ingest-transactions.ts (diffing against the stored rows and writing).
import { mergeAccountsInUnit } from './ingest-accounts.js'
import {
  wellFormedBatch,
  type IngestBatch,
  type IngestCounts,
  type IngestHint,
} from './ingest-batch.js'
import { mergeTransactionsInUnit } from './ingest-transactions.js'
import { upsertOrganizations } from './organizations.js'
import type { UnitOfWork } from './unit-of-work.js'

export type {
  IngestAccount,
  IngestBatch,
  IngestCounts,
  IngestHint,
  IngestOrganization,
  IngestTransaction,
} from './ingest-batch.js'

export async function ingestBatchInUnit(
  uow: UnitOfWork,
  batch: IngestBatch,
  hint: IngestHint = { mostlyExisting: false },
): Promise<IngestCounts> {
  batch = wellFormedBatch(batch)
  await upsertOrganizations(
    uow,
    (batch.organizations ?? []).map((o) => ({
      id: o.id,
      name: o.name,
      domain: o.domain ?? null,
      source: batch.source,
    })),
  )
  await mergeAccountsInUnit(uow, batch.source, batch.accounts ?? [])
  return mergeTransactionsInUnit(uow, batch.source, batch.transactions ?? [], hint)
}

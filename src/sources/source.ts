// The contract every ingestion source implements (DESIGN "A source"). A source
// only fetches: it turns its upstream into a Batch in neutral form, and the sync
// engine (src/sync/) alone merges that batch into the ledger.
import type { Config } from '../config/index.js'
import type { ServiceContext } from '../context.js'
import type { IngestAccount, IngestOrganization, IngestTransaction } from '../ledger/ingest.js'
import type { SecretStore } from '../secrets/store.js'
import type { SyncTrigger } from '../sync/runs.js'

export interface SourceContext {
  ctx: ServiceContext
  secrets: SecretStore
  /**
   * Who asked for the run that calls fetch; absent outside a run. A source with a
   * request budget polls less on a schedule than by hand (CONTRACT 4).
   */
  trigger?: SyncTrigger
}

/** What a source hands the engine; large sources stream their rows. */
export interface Batch {
  /** Merged first, before any row, so that every row finds its account. */
  organizations: IngestOrganization[]
  accounts: IngestAccount[]
  /** The rows, streamed in steps: the engine merges them in large units of work as they come. */
  transactions: AsyncIterable<IngestTransaction[]>
  /** Read once `transactions` has been drained. */
  summary(): BatchSummary
}

export interface BatchSummary {
  /** Rows the source could not use (an unparseable date or amount, SPEC 1.3 rule 3). */
  skipped: number
  /** Things worth showing on the run (a bad file, a skipped folder); never a secret. */
  warnings: string[]
}

/** A source with nothing to fetch, or not connected, is skipped, not errored (SPEC 1.1). */
export interface Skip {
  skip: string
}

export interface CredentialEntry {
  id: string
  label: string
  from_config: boolean
}

export interface CredentialShape {
  kind: 'none' | 'token' | 'multi' | 'oauth'
  entries?: CredentialEntry[]
}

/** One editable configuration key of the source as GET /sources shows it (secrets redacted). */
export interface SourceConfigItem {
  key: string
  value: unknown
}

export interface SourceState {
  /** Ready to fetch: has what it needs to reach its upstream. */
  connected: boolean
  credential: CredentialShape
  config: SourceConfigItem[]
}

export interface Source {
  type: string
  title: string
  /** An unconfigured source is never started (SPEC 1.1). */
  isConfigured(config: Config): boolean
  /**
   * Whether a credential stored at runtime starts the source although its
   * configuration alone does not (PUT /sources/{type}/credential applies live).
   * Absent: the configuration alone decides.
   */
  hasStoredCredential?(sctx: SourceContext): Promise<boolean>
  state(sctx: SourceContext): Promise<SourceState>
  fetch(sctx: SourceContext): Promise<Batch | Skip>
  /** PUT /sources/{type}/credential; absent when the source takes none. */
  setCredential?(sctx: SourceContext, body: { token: string }): Promise<void>
  /** DELETE /sources/{type}/credentials/{id}. */
  deleteCredential?(sctx: SourceContext, id: string): Promise<void>
}

/** Started on sync: configured, or given a credential at runtime (SPEC 1.1, 4.4). */
export async function isStarted(source: Source, sctx: SourceContext): Promise<boolean> {
  if (source.isConfigured(sctx.ctx.config)) return true
  return (await source.hasStoredCredential?.(sctx)) ?? false
}

export function isSkip(result: Batch | Skip): result is Skip {
  return 'skip' in result
}

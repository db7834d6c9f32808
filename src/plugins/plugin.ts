// One plugin as this process knows it (its manifest, code, sandbox, hooks and
// health), and as the API shows it.
import type { PluginJson } from '../schemas/plugins.js'
import type { HookRunner } from './hooks.js'
import type { ConfigValue, Manifest } from './manifest.js'
import type { PluginSandbox } from './sandbox/index.js'
import { grantsOf, type Health, type PluginRow } from './store.js'
import type { TransactionJson } from '../ledger/json.js'
import type { PendingChanges } from './changes.js'
import type { WriteBatch } from './writes.js'

export type Status = Health['last_status']

/** What this process knows of one plugin. */
export class Plugin {
  manifest: Manifest | null = null
  /** Why the manifest or the code cannot run (state "error"). */
  problem: string | null = null
  sandbox: PluginSandbox | null = null
  code: string | null = null
  runner: HookRunner | null = null
  /** Health as last recorded here (written to the row as it changes). */
  health: Partial<Health> & { last_success_at?: string | null } = {}
  /** Where the event hooks' writes wait to be written together (writes.ts); null otherwise. */
  batch: WriteBatch | null = null
  /**
   * The last batch's writes, not written yet: the next batch writes them while
   * the worker runs its hooks (manager.ts runBatch), or writePending does.
   */
  unwritten: { batch: WriteBatch; written: () => void } | null = null
  /** Whether `health` holds an outcome not written yet, and when it was last written. */
  healthDirty = false
  healthSavedAt = 0
  /**
   * Whether its event hooks have read or written a transaction: from then on
   * each batch is handed the transactions of its events (batches.ts).
   */
  readsTransactions = false
  /**
   * The transactions of the batch that runs next, read while the worker runs
   * the batch before (batches.ts prepare): their ids, the read (null if it
   * failed), and the changes written since it began.
   */
  ahead: {
    ids: ReadonlySet<string>
    read: Promise<Map<string, TransactionJson> | null>
    writtenSince: PendingChanges
  } | null = null
  /** Calls into the sandbox, one after another (restarts included). */
  turn: Promise<unknown> = Promise.resolve()

  constructor(
    readonly name: string,
    readonly dir: string,
  ) {}
}

/** A plugin as the API shows it (CONTRACT 9): what is stored, with what this process knows over it. */
export function pluginJson(
  name: string,
  plugin: Plugin | undefined,
  row: PluginRow | null,
): PluginJson {
  const manifest = plugin?.manifest ?? null
  const enabled = row?.enabled === 1
  // An enabled plugin is "loaded" while its sandbox runs or is being started
  // again after a limit (or runs in another process); "error" when it cannot run.
  const state: PluginJson['state'] = !plugin
    ? 'missing'
    : plugin.problem
      ? 'error'
      : enabled
        ? 'loaded'
        : 'disabled'
  const lastError =
    state === 'error' && plugin?.problem ? plugin.problem : (row?.last_error ?? null)
  return {
    id: name,
    name,
    version: manifest?.version ?? '',
    description: manifest?.description ?? '',
    author: manifest?.author ?? '',
    runtime: 'js',
    enabled,
    state,
    hooks: manifest?.hooks ?? [],
    capabilities: manifest?.capabilities ?? [],
    net_grants: grantsOf(row),
    last_status: (row?.last_status as Status | null) ?? (state === 'error' ? 'error' : null),
    last_error: lastError,
    last_run_at: row?.last_run_at ?? null,
    last_success_at: row?.last_success_at ?? null,
    // What this process ran last may be newer than the row (written at most once a second).
    ...(plugin?.healthDirty
      ? {
          last_status: plugin.health.last_status ?? null,
          last_error: plugin.health.last_error ?? null,
          last_run_at: plugin.health.last_run_at ?? null,
          last_success_at: plugin.health.last_success_at ?? row?.last_success_at ?? null,
        }
      : {}),
  }
}

export function hasPage(manifest: Manifest): boolean {
  return manifest.capabilities.includes('ui:page') && manifest.hooks.includes('onPageRender')
}

/** The manifest's [config] defaults with the plugin's stored changes that still fit them. */
export function effectiveConfig(
  manifest: Manifest,
  stored: Record<string, ConfigValue>,
): Record<string, ConfigValue> {
  const out = { ...manifest.config }
  for (const [key, value] of Object.entries(stored))
    if (Object.hasOwn(out, key) && typeof out[key] === typeof value) out[key] = value
  return out
}

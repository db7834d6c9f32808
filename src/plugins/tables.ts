// Plugins (CONTRACT 9): one row per plugin that was ever seen enabled or changed.
// The files in plugins.dir are the plugin; this is what is kept about it.
import type { Selectable } from 'kysely'

export interface PluginsTable {
  name: string
  enabled: number
  /** JSON array of host names the operator granted at enable. */
  net_grants: string
  /** JSON object of the config values the plugin set (over its manifest's defaults). */
  config: string
  /** The last event sequence its hooks dealt with (null before it was first enabled). */
  cursor: number | null
  last_status: string | null
  last_error: string | null
  last_run_at: string | null
  last_success_at: string | null
  updated_at: string
}

export interface PluginTables {
  plugins: PluginsTable
}

export type PluginRow = Selectable<PluginsTable>

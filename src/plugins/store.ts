// What is kept of each plugin in the database (table `plugins`, tables.ts): its
// enabled state and grants, the config values it set, its health and its cursor.
// Processes that share a PostgreSQL database share all of it.
import type { DbExecutor } from '../db/schema.js'
import type { ConfigValue } from './manifest.js'
import type { PluginRow } from './tables.js'

export type { PluginRow } from './tables.js'

export interface Health {
  last_status: 'ok' | 'error' | 'timeout' | 'memory'
  last_error: string | null
  last_run_at: string
}

export async function readPluginRows(db: DbExecutor): Promise<Map<string, PluginRow>> {
  const rows = await db.selectFrom('plugins').selectAll().execute()
  return new Map(rows.map((row) => [row.name, { ...row, cursor: numberOrNull(row.cursor) }]))
}

export async function readPluginRow(db: DbExecutor, name: string): Promise<PluginRow | null> {
  const row = await db.selectFrom('plugins').selectAll().where('name', '=', name).executeTakeFirst()
  return row ? { ...row, cursor: numberOrNull(row.cursor) } : null
}

/** Whether any plugin is enabled (in any process sharing the database). */
export async function anyPluginEnabled(db: DbExecutor): Promise<boolean> {
  const row = await db
    .selectFrom('plugins')
    .select('name')
    .where('enabled', '=', 1)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

function numberOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value)
}

/** Creates the row when missing, then applies `changes`. */
export async function savePluginRow(
  db: DbExecutor,
  name: string,
  changes: Partial<Omit<PluginRow, 'name' | 'updated_at'>>,
  now: string,
): Promise<void> {
  await db
    .insertInto('plugins')
    .values({ name, enabled: 0, net_grants: '[]', config: '{}', ...changes, updated_at: now })
    .onConflict((oc) => oc.column('name').doUpdateSet({ ...changes, updated_at: now }))
    .execute()
}

export async function saveHealth(db: DbExecutor, name: string, health: Health): Promise<void> {
  const success = health.last_status === 'ok' ? { last_success_at: health.last_run_at } : {}
  await db
    .updateTable('plugins')
    .set({ ...health, ...success, updated_at: health.last_run_at })
    .where('name', '=', name)
    .execute()
}

export async function saveCursor(db: DbExecutor, name: string, sequence: number): Promise<void> {
  await db.updateTable('plugins').set({ cursor: sequence }).where('name', '=', name).execute()
}

export async function deletePluginRow(db: DbExecutor, name: string): Promise<void> {
  await db.deleteFrom('plugins').where('name', '=', name).execute()
}

export function grantsOf(row: PluginRow | null): string[] {
  return row ? (JSON.parse(row.net_grants) as string[]) : []
}

export function storedConfigOf(row: PluginRow | null): Record<string, ConfigValue> {
  return row ? (JSON.parse(row.config) as Record<string, ConfigValue>) : {}
}

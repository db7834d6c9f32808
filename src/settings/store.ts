// Where stored settings live (CONTRACT 10): the `settings` table holds every
// non-secret value as JSON; a secret's value goes to the secret store under
// `setting:<key>`, so the table never holds one. Both are shared by every process
// on one PostgreSQL database.
import type { ConfigKeySpec } from '../config/index.js'
import { CONFIG_KEYS, isSettable } from '../config/index.js'
import type { Db } from '../db/connect.js'
import type { SecretStore } from '../secrets/store.js'
import { isoNow, type Clock } from '../clock.js'

/** The secret store's name for a secret setting. */
function secretName(key: string): string {
  return `setting:${key}`
}

const SECRET_KEYS = CONFIG_KEYS.filter((spec) => spec.secret && isSettable(spec))

export interface SettingStoreDeps {
  db: Db
  secrets: SecretStore
  clock: Clock
}

/** Every stored value by dotted key: what loadConfig takes as `stored`. */
export async function readStoredSettings(deps: SettingStoreDeps): Promise<Record<string, unknown>> {
  const stored: Record<string, unknown> = {}
  // A whole-table read: the table holds at most one row per configuration key.
  const rows = await deps.db.kysely.selectFrom('settings').select(['key', 'value']).execute()
  for (const row of rows) stored[row.key] = JSON.parse(row.value) as unknown
  for (const spec of SECRET_KEYS) {
    const value = await deps.secrets.get(secretName(spec.key))
    // An empty text stands for a stored null (the secret store keeps strings).
    if (value !== null) stored[spec.key] = value === '' ? null : value
  }
  return stored
}

/** Stores one checked value (secrets to the secret store). */
export async function writeStoredSetting(
  deps: SettingStoreDeps,
  spec: ConfigKeySpec,
  value: unknown,
): Promise<void> {
  if (spec.secret) {
    await deps.secrets.set(secretName(spec.key), typeof value === 'string' ? value : '')
    return
  }
  const now = isoNow(deps.clock)
  const text = JSON.stringify(value)
  await deps.db.kysely
    .insertInto('settings')
    .values({ key: spec.key, value: text, updated_at: now })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: text, updated_at: now }))
    .execute()
}

export async function deleteStoredSetting(
  deps: SettingStoreDeps,
  spec: ConfigKeySpec,
): Promise<void> {
  if (spec.secret) await deps.secrets.delete(secretName(spec.key))
  else await deps.db.kysely.deleteFrom('settings').where('key', '=', spec.key).execute()
}

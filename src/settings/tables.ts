// Stored settings (CONTRACT 10): one row per key that was set, its value as JSON.
// Secret keys are never here: their values go to the secret store (store.ts).
export interface SettingsTable {
  key: string
  /** The value as JSON text (an int stays a number, a duration the string as given). */
  value: string
  updated_at: string
}

export interface SettingTables {
  settings: SettingsTable
}

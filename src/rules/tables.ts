// Table types owned by rules/ (CONTRACT 8).
import type { Selectable } from 'kysely'

export interface RulesTable {
  id: string
  /** Creation order: rules apply oldest first, and a later rule wins a shared key. */
  position: number
  name: string
  /** The search query as the user wrote it (CONTRACT 7). */
  query: string
  /** JSON object of label key → value (keys canonical, lower-cased). */
  labels: string
  /** JSON object of extension key → JSON value. */
  extensions: string
  enabled: number
  created_at: string
  updated_at: string
}

export interface RuleTables {
  rules: RulesTable
}

export type RuleRow = Selectable<RulesTable>

// The one serializer of a rule row into the JSON shape of CONTRACT 8.
import type { JsonValue } from '../ledger/json.js'
import type { RuleRow } from './tables.js'

export interface RuleJson {
  id: string
  name: string
  query: string
  labels: Record<string, string>
  extensions: Record<string, JsonValue>
  enabled: boolean
  created_at: string
  updated_at: string
}

export function toRuleJson(row: RuleRow): RuleJson {
  return {
    id: row.id,
    name: row.name,
    query: row.query,
    labels: JSON.parse(row.labels) as Record<string, string>,
    extensions: JSON.parse(row.extensions) as Record<string, JsonValue>,
    enabled: row.enabled === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

// The one serializer of a rule row into the JSON shape of CONTRACT 8.
import type { Static } from 'typebox'
import type { JsonValue } from '../ledger/json.js'
import type { Rule } from '../schemas/rules.js'
import type { RuleRow } from './tables.js'

/** CONTRACT 8's rule, as src/schemas/rules.ts declares it. */
export type RuleJson = Static<typeof Rule>

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

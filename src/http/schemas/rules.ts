// Schemas of rules (CONTRACT 8), shared by the REST routes, the MCP tools and the
// OpenAPI document.
import Type from 'typebox'
import { JsonObject, PageQuery, StringMap, Timestamp } from './common.js'
import { Transaction } from './ledger.js'

export const Rule = Type.Object({
  id: Type.String(),
  name: Type.String(),
  query: Type.String(),
  labels: StringMap,
  extensions: JsonObject,
  enabled: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
})

const Query = Type.String({
  description:
    'A search query (the language of GET /transactions/search), at most 4096 characters; it must parse.',
  examples: ['payee:starbucks'],
})

const RuleLabels = Type.Optional(
  Type.Record(Type.String(), Type.String(), {
    description: 'Labels the rule sets: at most 50 keys, key ≤ 64 characters, value ≤ 256.',
  }),
)

const RuleExtensions = Type.Optional(
  Type.Object(
    {},
    {
      additionalProperties: true,
      description: 'Extensions the rule sets: at most 50 keys, a value at most 8 KiB of JSON.',
    },
  ),
)

/** POST /rules and PUT /rules/{id} (a full replace). */
export const RuleBody = Type.Object(
  {
    name: Type.String({ description: '1–200 characters.' }),
    query: Query,
    labels: RuleLabels,
    extensions: RuleExtensions,
    enabled: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  },
  { additionalProperties: false },
)

export const RuleListQuery = Type.Object({ ...PageQuery })

export const RunResult = Type.Object({
  matched: Type.Integer({ description: 'Transactions matched by at least one rule.' }),
  updated: Type.Integer({ description: 'Transactions changed.' }),
})

export const UnapplyResult = Type.Object({
  matched: Type.Integer({ description: 'Transactions the query matches now.' }),
  removed: Type.Integer({ description: 'Transactions that lost a key of the rule.' }),
})

export const PreviewBody = Type.Object(
  { query: Query, labels: RuleLabels, extensions: RuleExtensions },
  { additionalProperties: false },
)

export const PreviewResult = Type.Object({
  matched: Type.Integer(),
  would_update: Type.Integer(),
  transactions: Type.Array(Transaction, {
    description: 'The first 20 transactions (newest first) that would change, as they are now.',
  }),
})

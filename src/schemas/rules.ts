// Rules (SPEC 4.2, 4.3; CONTRACT 8): the rule, the request bodies, the results
// of runs and each route's schema, for REST, MCP tools and the OpenAPI document.
import Type from 'typebox'
import {
  ErrorResponses,
  IdParams,
  JsonObject,
  ListOf,
  NoContent,
  PageQuery,
  StringMap,
  Timestamp,
} from './common.js'
import { Transaction } from './transactions.js'

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
    'A search query (the language of GET /transactions/search), at most 4096 characters and 100 terms; it must parse.',
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
      description:
        'Extensions the rule sets: at most 50 keys, a value at most 8 KiB of JSON (request bodies nest at most 64 levels).',
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

export const RuleFailure = Type.Object({
  rule_id: Type.String(),
  name: Type.String(),
  detail: Type.String({ description: 'Why the rule could not run.' }),
})

export const RunResult = Type.Object({
  matched: Type.Integer({ description: 'Transactions matched by at least one rule.' }),
  updated: Type.Integer({ description: 'Transactions changed.' }),
  failed: Type.Optional(
    Type.Array(RuleFailure, {
      description:
        'POST /rules/run only, and only when some enabled rule could not run: those rules, skipped; every other rule ran.',
    }),
  ),
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

const tags = ['rules']

export const RuleRoutes = {
  list: {
    tags,
    summary: 'List rules, oldest first (the order they apply in)',
    querystring: RuleListQuery,
    response: { 200: ListOf('rules', Rule), ...ErrorResponses },
  },
  create: {
    tags,
    summary: 'Create a rule; it changes no transaction until it runs or one is created',
    body: RuleBody,
    response: { 201: Rule, ...ErrorResponses },
  },
  runAll: {
    tags,
    summary: 'Apply every enabled rule, oldest first, to the transactions they match',
    response: { 200: RunResult, ...ErrorResponses },
  },
  preview: {
    tags,
    summary: 'What a rule would do, without writing anything',
    body: PreviewBody,
    response: { 200: PreviewResult, ...ErrorResponses },
  },
  get: {
    tags,
    summary: 'Get a rule',
    params: IdParams,
    response: { 200: Rule, ...ErrorResponses },
  },
  replace: {
    tags,
    summary: 'Replace a rule (omitted labels, extensions and enabled take their defaults)',
    params: IdParams,
    body: RuleBody,
    response: { 200: Rule, ...ErrorResponses },
  },
  delete: {
    tags,
    summary: 'Delete a rule (the labels and extensions it set stay)',
    params: IdParams,
    response: { 204: NoContent, ...ErrorResponses },
  },
  run: {
    tags,
    summary: 'Apply one rule (even a disabled one) to the transactions it matches',
    params: IdParams,
    response: { 200: RunResult, ...ErrorResponses },
  },
  unapply: {
    tags,
    summary: "Remove the rule's keys where they still hold its values",
    params: IdParams,
    response: { 200: UnapplyResult, ...ErrorResponses },
  },
}

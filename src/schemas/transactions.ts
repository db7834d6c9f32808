// Transactions and their sub-resources (SPEC 2, 4.2, 4.3; CONTRACT 6, 7): labels,
// extensions, relationships, history, provenance and search. The JSON shapes, the
// request schemas and each route's schema, for REST, MCP tools and OpenAPI.
import Type, { type Static } from 'typebox'
import {
  AnyJson,
  CursorListOf,
  CursorQuery,
  DateInput,
  Decimal,
  DecimalText,
  ErrorResponses,
  Id,
  IdParams,
  JsonObject,
  NoContent,
  NextCursor,
  NullableString,
  PageQuery,
  StringMap,
  Timestamp,
} from './common.js'

export const Transaction = Type.Object({
  id: Type.String(),
  account_id: Type.String(),
  amount: DecimalText,
  date: Timestamp,
  description: NullableString,
  payee: NullableString,
  memo: NullableString,
  pending: Type.Boolean(),
  source: Type.String(),
  labels: StringMap,
  extensions: JsonObject,
  synced_at: Type.Union([Timestamp, Type.Null()]),
})
export type TransactionJson = Static<typeof Transaction>

export const TransactionListQuery = Type.Object({
  label_key: Type.Optional(Type.String({ minLength: 1 })),
  label_value: Type.Optional(Type.String()),
  since: Type.Optional(
    Type.String({ description: 'Inclusive: YYYY-MM-DD, RFC 3339 or unix seconds.' }),
  ),
  until: Type.Optional(
    Type.String({
      description: 'Inclusive: YYYY-MM-DD (the whole day), RFC 3339 or unix seconds.',
    }),
  ),
  order: Type.Optional(
    Type.Union([Type.Literal('desc'), Type.Literal('asc')], {
      description:
        'desc (default): newest first, by date then id; asc: oldest first. A cursor continues only the order it came from.',
    }),
  ),
  ...PageQuery,
  ...CursorQuery,
})

/** A page of transactions: `{transactions, total, limit, offset, next_cursor}`. */
export const TransactionList = CursorListOf('transactions', Transaction)

const TransactionText = Type.Optional(Type.Union([Type.String(), Type.Null()]))

/** The fields a client writes, as POST takes them (account_id, amount, date required). */
const TransactionInput = {
  account_id: Id,
  amount: Decimal,
  date: DateInput,
  description: TransactionText,
  payee: TransactionText,
  memo: TransactionText,
  pending: Type.Optional(Type.Boolean()),
}

export const CreateTransactionBody = Type.Object(TransactionInput, { additionalProperties: false })

/** PUT takes the same fields, every one optional. */
export const UpdateTransactionBody = Type.Object(
  {
    ...TransactionInput,
    account_id: Type.Optional(Id),
    amount: Type.Optional(Decimal),
    date: Type.Optional(DateInput),
  },
  { additionalProperties: false },
)

export const LabelsBody = Type.Object({ labels: StringMap }, { additionalProperties: false })
export const LabelsResult = Type.Object({ id: Type.String(), labels: StringMap })
export const LabelList = Type.Object({
  labels: Type.Array(
    Type.Object({ key: Type.String(), value: Type.String(), transaction_count: Type.Integer() }),
  ),
})
export const DeleteLabelQuery = Type.Object({ value: Type.Optional(Type.String()) })
export const DeleteLabelResult = Type.Object({
  key: Type.String(),
  value: Type.Optional(Type.String()),
  removed_from: Type.Integer(),
})

export const ExtensionsBody = Type.Object(
  { extensions: JsonObject },
  {
    additionalProperties: false,
    description:
      'At most 50 keys, key ≤ 100 characters, a value at most 8 KiB of JSON; JSON nested deeper than 64 levels (counting the whole request) is refused.',
  },
)
export const ExtensionsResult = Type.Object({ id: Type.String(), extensions: JsonObject })
export const ExtensionVocabulary = Type.Array(
  Type.Object({ namespace: Type.String(), key: Type.String(), transaction_count: Type.Integer() }),
)

export const RelationshipBody = Type.Object(
  { kind: Type.String(), target: Id },
  { additionalProperties: false },
)
export const RelationshipQuery = Type.Object({
  kind: Type.String({ minLength: 1 }),
  target: Type.String({ minLength: 1 }),
})
export const Relationships = Type.Object({
  id: Type.String(),
  relationships: Type.Array(
    Type.Object({
      kind: Type.String(),
      direction: Type.Union([Type.Literal('outbound'), Type.Literal('inbound')]),
      transaction_id: Type.String(),
    }),
  ),
})
export const RelationshipKinds = Type.Object({
  relationships: Type.Array(Type.Object({ kind: Type.String(), count: Type.Integer() })),
})

const Diff = Type.Record(Type.String(), Type.Object({ from: AnyJson, to: AnyJson }))

export const History = Type.Object({
  transaction_id: Type.String(),
  versions: Type.Array(
    Type.Object({
      version: Type.Integer(),
      kind: Type.String(),
      occurred_at: Timestamp,
      snapshot: Transaction,
      diff: Diff,
      actor: Type.Optional(
        Type.String({ description: 'Who made the change when a plugin did: `plugin:<name>`.' }),
      ),
    }),
  ),
})

export const Provenance = Type.Object({
  transaction_id: Type.String(),
  source: Type.String(),
  source_transaction_id: Type.String(),
  account_id: Type.String(),
  institution: Type.Optional(Type.String()),
  imported_at: Type.Union([Timestamp, Type.Null()]),
  last_seen: Type.Union([Timestamp, Type.Null()]),
  transformations: Type.Array(
    Type.Object({ kind: Type.String(), occurred_at: Timestamp, summary: Type.String() }),
  ),
})

/** GET /transactions/search (CONTRACT 7): the list filters plus the query text. */
export const TransactionSearchQuery = Type.Object({
  q: Type.Optional(
    Type.String({
      description:
        'Search query (docs/search.md); empty matches all. At most 100 terms, nested at most 100 levels.',
    }),
  ),
  ...TransactionListQuery.properties,
})

export const SearchResult = Type.Object({
  query: Type.String(),
  total: Type.Integer({
    description: 'Every match; a lower bound of them when total_is_lower_bound is true.',
  }),
  total_is_lower_bound: Type.Boolean({
    description:
      'true when counting stopped at its budget: a query the database cannot decide alone, over a large ledger (docs/search.md "How it runs"). `total` is then the matches found so far, and there are more.',
  }),
  transactions: Type.Array(Transaction),
  next_cursor: NextCursor,
})

export const LabelKeyParams = Type.Object({ key: Type.String({ minLength: 1 }) })

const transactions = ['transactions']
const labels = ['labels']
const extensions = ['extensions']
const relationships = ['relationships']

export const TransactionRoutes = {
  list: {
    tags: transactions,
    summary: 'List transactions, newest first (or oldest first with order=asc)',
    querystring: TransactionListQuery,
    response: { 200: TransactionList, ...ErrorResponses },
  },
  search: {
    tags: transactions,
    summary:
      'Search transactions with the query language (docs/search.md), newest first (or oldest first with order=asc)',
    querystring: TransactionSearchQuery,
    response: { 200: SearchResult, ...ErrorResponses },
  },
  get: {
    tags: transactions,
    summary: 'Get a transaction',
    params: IdParams,
    response: { 200: Transaction, ...ErrorResponses },
  },
  create: {
    tags: transactions,
    summary: 'Create a manual transaction',
    body: CreateTransactionBody,
    response: { 201: Transaction, ...ErrorResponses },
  },
  update: {
    tags: transactions,
    summary: 'Edit a manual transaction (partial)',
    params: IdParams,
    body: UpdateTransactionBody,
    response: { 200: Transaction, ...ErrorResponses },
  },
  delete: {
    tags: transactions,
    summary: 'Delete a manual transaction',
    params: IdParams,
    response: { 204: NoContent, ...ErrorResponses },
  },
  history: {
    tags: transactions,
    summary: 'Version history of a transaction',
    params: IdParams,
    response: { 200: History, ...ErrorResponses },
  },
  provenance: {
    tags: transactions,
    summary: 'Origin and lineage of a transaction',
    params: IdParams,
    response: { 200: Provenance, ...ErrorResponses },
  },
  setLabels: {
    tags: labels,
    summary: "Replace a transaction's labels",
    params: IdParams,
    body: LabelsBody,
    response: { 200: LabelsResult, ...ErrorResponses },
  },
  listLabels: {
    tags: labels,
    summary: 'Label vocabulary with per-pair counts',
    response: { 200: LabelList, ...ErrorResponses },
  },
  deleteLabel: {
    tags: labels,
    summary: 'Remove a label key (or one key:value pair) from every transaction',
    params: LabelKeyParams,
    querystring: DeleteLabelQuery,
    response: { 200: DeleteLabelResult, ...ErrorResponses },
  },
  setExtensions: {
    tags: extensions,
    summary: "Replace a transaction's extensions",
    params: IdParams,
    body: ExtensionsBody,
    response: { 200: ExtensionsResult, ...ErrorResponses },
  },
  listExtensions: {
    tags: extensions,
    summary: 'Extension key vocabulary with transaction counts',
    response: { 200: ExtensionVocabulary, ...ErrorResponses },
  },
  getRelationships: {
    tags: relationships,
    summary: 'Outbound and derived inbound edges of a transaction',
    params: IdParams,
    response: { 200: Relationships, ...ErrorResponses },
  },
  addRelationship: {
    tags: relationships,
    summary: 'Add an outbound edge',
    params: IdParams,
    body: RelationshipBody,
    response: { 201: Relationships, ...ErrorResponses },
  },
  removeRelationship: {
    tags: relationships,
    summary: 'Remove an outbound edge',
    params: IdParams,
    querystring: RelationshipQuery,
    response: { 200: Relationships, ...ErrorResponses },
  },
  listRelationshipKinds: {
    tags: relationships,
    summary: 'Relationship kinds with edge counts',
    response: { 200: RelationshipKinds, ...ErrorResponses },
  },
}

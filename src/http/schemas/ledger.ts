// Schemas of the ledger resources (SPEC 2), shared by REST routes, MCP tools
// and the OpenAPI document.
import Type from 'typebox'
import {
  AnyJson,
  DateInput,
  Decimal,
  Id,
  JsonObject,
  NullableString,
  PageQuery,
  StringMap,
  Timestamp,
} from './common.js'

export const Organization = Type.Object({
  id: Type.String(),
  name: Type.String(),
  domain: NullableString,
  source: Type.String(),
})

export const Account = Type.Object({
  id: Type.String(),
  name: Type.String(),
  currency: Type.String(),
  balance: Decimal,
  source: Type.String(),
  org_id: Type.String(),
})

export const Transaction = Type.Object({
  id: Type.String(),
  account_id: Type.String(),
  amount: Decimal,
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

export const AccountListQuery = Type.Object({
  org_id: Type.Optional(Type.String()),
  ...PageQuery,
})

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
  ...PageQuery,
})

export const CreateAccountBody = Type.Object(
  {
    name: Type.String({ description: 'Display name, 1–200 characters.' }),
    currency: Type.String({ description: 'Currency code, e.g. USD.' }),
    balance: Type.Optional(Decimal),
  },
  { additionalProperties: false },
)

export const UpdateAccountBody = Type.Object(
  {
    name: Type.Optional(Type.String()),
    currency: Type.Optional(Type.String()),
    balance: Type.Optional(Decimal),
  },
  { additionalProperties: false },
)

const TransactionText = Type.Optional(Type.Union([Type.String(), Type.Null()]))

export const CreateTransactionBody = Type.Object(
  {
    account_id: Id,
    amount: Decimal,
    date: DateInput,
    description: TransactionText,
    payee: TransactionText,
    memo: TransactionText,
    pending: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

export const UpdateTransactionBody = Type.Object(
  {
    account_id: Type.Optional(Id),
    amount: Type.Optional(Decimal),
    date: Type.Optional(DateInput),
    description: TransactionText,
    payee: TransactionText,
    memo: TransactionText,
    pending: Type.Optional(Type.Boolean()),
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
  { additionalProperties: false },
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
    Type.String({ description: 'Search query (docs/search.md); empty matches all.' }),
  ),
  ...TransactionListQuery.properties,
})

export const SearchResult = Type.Object({
  query: Type.String(),
  total: Type.Integer(),
  transactions: Type.Array(Transaction),
})

// Basic schemas every resource builds on (DESIGN "Schemas are declared once"):
// one module per resource beside this one holds the params, query, body and
// response of each route; routes, MCP tools and the OpenAPI document import them,
// and service types are derived with Static<>. Request bodies are strict
// (additionalProperties: false, no coercion); query and path values are coerced.
import Type, { type TSchema } from 'typebox'
import { CURSOR_MAX_CHARS, DECIMAL_INPUT_MAX_CHARS, DECIMAL_INPUT_PATTERN } from './limits.js'

export const Id = Type.String({
  minLength: 1,
  maxLength: 512,
  description: 'An opaque identifier.',
})

/**
 * An amount as a client sends it. The validator leaves its pattern and length to
 * the service (ledger/fields.ts requireAmount), whose message CONTRACT 6 words;
 * the document shows them (http/validation.ts).
 */
export const Decimal = Type.String({
  pattern: DECIMAL_INPUT_PATTERN,
  maxLength: DECIMAL_INPUT_MAX_CHARS,
  description:
    'An exact decimal as text: optional sign, digits, optional fraction, at most 64 characters. Never a float.',
  examples: ['-12.34'],
})

/**
 * An amount as the service answers it: as sent without a leading '+' (CONTRACT 6),
 * or a canonical sum (a balance), which may be longer than 64 characters.
 */
export const DecimalText = Type.String({
  pattern: '^-?(\\d+(\\.\\d*)?|\\.\\d+)$',
  description:
    'An exact decimal as text: optional minus, digits, optional fraction. Never a float.',
  examples: ['-12.34'],
})

export const Timestamp = Type.String({
  description: 'RFC 3339 UTC timestamp.',
  examples: ['2024-01-15T00:00:00Z'],
})

export const DATE_INPUT_DESCRIPTION = 'YYYY-MM-DD, an RFC 3339 timestamp, or unix seconds.'

/**
 * A date as a client sends it. The validator lets any number through to the
 * service (ledger/fields.ts requireDate), whose message names the accepted forms,
 * so a fractional unix date is not answered "must be string" (http/validation.ts).
 */
export const DateInput = Type.Union([Type.String(), Type.Integer()], {
  description: DATE_INPUT_DESCRIPTION,
})

export const NullableString = Type.Union([Type.String(), Type.Null()])

/** Any JSON value, kept with its exact JSON type. */
export const AnyJson = Type.Unknown()

export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

/** A JSON object of any keys (extensions, the effective configuration). */
export const JsonObject = Type.Unsafe<{ [key: string]: JsonValue }>(
  Type.Object({}, { additionalProperties: true }),
)

export const StringMap = Type.Record(Type.String(), Type.String())

/**
 * The largest integer a query or path parameter may carry: beyond it a double
 * is no longer exact and PostgreSQL's bigint overflows (a 500 instead of a 400).
 */
export const MAX_PARAM_INTEGER = Number.MAX_SAFE_INTEGER

export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_PARAM_INTEGER,
      description: 'Page size; default 100, clamped to 1000.',
    }),
  ),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_PARAM_INTEGER, description: 'Rows to skip.' }),
  ),
}

/** The keyset paging of the lists a person scrolls (transactions, search): src/page.ts. */
export const CursorQuery = {
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: CURSOR_MAX_CHARS,
      description:
        'Continue after the last row of a page: the next_cursor it answered (opaque). Instead of offset; bound to the same list, filters and query.',
    }),
  ),
}

/** The cursor of the next page; null on the last page. */
export const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'Pass as cursor for the next page; null on the last page (and when limit is 0).',
})

export const IdParams = Type.Object({ id: Id })

export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    errors: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), message: Type.String() })),
    ),
  },
  { description: 'RFC 9457 problem details.' },
)

/** A list response: `{<plural>: [...], total, limit, offset}` (CONTRACT 3). */
export function ListOf<K extends string, T extends TSchema>(plural: K, item: T) {
  return Type.Object({
    [plural]: Type.Array(item),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  } as { [P in K]: ReturnType<typeof Type.Array<T>> } & {
    total: ReturnType<typeof Type.Integer>
    limit: ReturnType<typeof Type.Integer>
    offset: ReturnType<typeof Type.Integer>
  })
}

/** A keyset list response: a list response plus `next_cursor`. */
export function CursorListOf<K extends string, T extends TSchema>(plural: K, item: T) {
  const list = ListOf(plural, item)
  return Type.Object({ ...list.properties, next_cursor: NextCursor })
}

/** The error responses every route may give, merged into each route's `response`. */
export const ErrorResponses = {
  400: Problem,
  401: Problem,
  403: Problem,
  404: Problem,
  409: Problem,
  503: Problem,
}

export const NoContent = Type.Null({ description: 'No content.' })

// One term of the search language: a free-text word or phrase, or `name:value`
// for the fields of CONTRACT 7. Values are checked and normalized here, so a bad
// amount or date is a QueryError naming where it is.
import { canonicalLabelKey } from '../ledger/labels.js'
import { normalizeAmount } from '../decimal.js'
import { parseInstant } from '../ledger/time.js'
import type { Bound, ExactField, Interval, KeyedOp, QueryNode, TextField } from './ast.js'
import { QueryError } from './query-error.js'
import type { Piece } from './tokenize.js'

/** A field's value text; operators are only recognized in its unquoted start. */
interface Value {
  text: string
  offset: number
  /** Length of the leading unquoted part of `text`. */
  unquoted: number
}

const TEXT_FIELDS: ReadonlySet<string> = new Set<TextField>([
  'description',
  'payee',
  'memo',
  'account',
  'id',
])
const EXACT_FIELDS: ReadonlySet<string> = new Set<ExactField>(['account_id', 'source'])

export function parseTerm(pieces: Piece[], offset: number): QueryNode {
  const first = pieces[0]!
  const colon = first.quoted ? -1 : first.text.indexOf(':')
  if (colon < 0) {
    const text = pieces.map((p) => p.text).join('')
    if (text.trim() === '') throw new QueryError('empty phrase', offset)
    return { kind: 'text', needle: text.toLowerCase() }
  }
  const name = first.text.slice(0, colon)
  if (name === '') throw new QueryError('empty field name before ":"', offset)
  const rest = first.text.slice(colon + 1)
  const value: Value = {
    text:
      rest +
      pieces
        .slice(1)
        .map((p) => p.text)
        .join(''),
    offset: first.offset + colon + 1,
    unquoted: rest.length,
  }
  if (value.text === '') throw new QueryError(`empty value for field "${name}"`, value.offset)
  return parseField(name.toLowerCase(), name, value)
}

function parseField(field: string, rawName: string, value: Value): QueryNode {
  if (TEXT_FIELDS.has(field)) {
    return { kind: 'field_text', field: field as TextField, needle: value.text.toLowerCase() }
  }
  if (EXACT_FIELDS.has(field))
    return { kind: 'exact', field: field as ExactField, value: value.text }
  switch (field) {
    case 'amount':
      return { kind: 'amount', interval: parseInterval(value, parseAmountBound) }
    case 'date':
      return { kind: 'instant', field: 'date', interval: parseInterval(value, parsePeriod) }
    case 'synced':
      return { kind: 'instant', field: 'synced_at', interval: parseInterval(value, parsePeriod) }
    case 'pending':
      return { kind: 'pending', value: parsePending(value) }
    case 'label': {
      const { key, op, operand } = parseKeyed(value, 'label')
      return { kind: 'label', key: canonicalLabelKey(key), op, ...operand }
    }
    case 'ext': {
      const { key, op, operand } = parseKeyed(value, 'ext')
      return { kind: 'ext', key, op, ...operand }
    }
    case 'rel': {
      const eq = value.text.indexOf('=')
      if (eq < 0) return { kind: 'rel', relKind: value.text }
      const relKind = value.text.slice(0, eq)
      const target = value.text.slice(eq + 1)
      if (relKind === '') throw new QueryError('empty relationship kind', value.offset)
      if (target === '') throw new QueryError('empty relationship target', value.offset + eq + 1)
      return { kind: 'rel', relKind, target }
    }
    case 'related':
      return { kind: 'related', id: value.text }
    default:
      // Any other name is label shorthand: `category:food` is `label:category=food`.
      return {
        kind: 'label',
        key: canonicalLabelKey(rawName),
        op: 'eq',
        value: value.text.toLowerCase(),
      }
  }
}

// Comparison operators, longest first so `<=` is not read as `<`.
const COMPARISONS = ['!=', '<=', '>=', '<', '>', '='] as const
type Comparison = (typeof COMPARISONS)[number]

/** One side of a comparison: `[start, end]` of the value, inclusive (equal for an amount). */
interface Span {
  start: string
  end: string
}

function parseInterval(value: Value, parseSide: (text: string, offset: number) => Span): Interval {
  const op: Comparison | undefined = COMPARISONS.find((c) => value.text.startsWith(c))
  const operandOffset = value.offset + (op?.length ?? 0)
  const operand = value.text.slice(op?.length ?? 0)
  const range = splitRange(operand, operandOffset, parseSide)
  if (range) {
    if (op !== undefined) throw new QueryError(`a range cannot follow "${op}"`, value.offset)
    return range
  }
  if (operand === '') throw new QueryError(`"${op}" needs a value`, operandOffset)
  const span = parseSide(operand, operandOffset)
  const at = (v: string, inclusive: boolean): Bound => ({ value: v, inclusive })
  switch (op) {
    case undefined:
    case '=':
      return { min: at(span.start, true), max: at(span.end, true), outside: false }
    case '!=':
      return { min: at(span.start, true), max: at(span.end, true), outside: true }
    case '<':
      return { max: at(span.start, false), outside: false }
    case '<=':
      return { max: at(span.end, true), outside: false }
    case '>':
      return { min: at(span.end, false), outside: false }
    case '>=':
      return { min: at(span.start, true), outside: false }
  }
}

/**
 * `lo..hi`, `lo..` or `..hi`, or null when there is no '..'. An amount may end
 * or start with '.', so `5...-5` could split in two places: the first split
 * whose sides both parse wins.
 */
function splitRange(
  operand: string,
  offset: number,
  parseSide: (text: string, offset: number) => Span,
): Interval | null {
  let firstError: QueryError | undefined
  for (let at = operand.indexOf('..'); at >= 0; at = operand.indexOf('..', at + 1)) {
    const lo = operand.slice(0, at)
    const hi = operand.slice(at + 2)
    if (lo === '' && hi === '') throw new QueryError('a range needs at least one end', offset)
    try {
      const interval: Interval = { outside: false }
      if (lo !== '') interval.min = { value: parseSide(lo, offset).start, inclusive: true }
      if (hi !== '') interval.max = { value: parseSide(hi, offset + at + 2).end, inclusive: true }
      return interval
    } catch (error) {
      if (!(error instanceof QueryError)) throw error
      firstError ??= error
    }
  }
  if (firstError !== undefined) throw firstError
  return null
}

function parseAmountBound(text: string, offset: number): Span {
  // `,` groups digits for the reader; it carries no value.
  const amount = normalizeAmount(text.replaceAll(',', ''))
  if (amount === null) throw new QueryError(`bad amount ${quote(text)}`, offset)
  return { start: amount, end: amount }
}

const PERIOD = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/

/** `YYYY`, `YYYY-MM` or `YYYY-MM-DD` as its first and last second, UTC. */
function parsePeriod(text: string, offset: number): Span {
  const match = PERIOD.exec(text)
  const bad = () =>
    new QueryError(`bad date ${quote(text)} (use YYYY, YYYY-MM or YYYY-MM-DD)`, offset)
  if (!match) throw bad()
  const [, year, month, day] = match
  const firstDay = `${year}-${month ?? '01'}-${day ?? '01'}`
  const start = parseInstant(firstDay)
  if (start === null) throw bad()
  let lastDay: string | undefined
  if (day !== undefined) lastDay = firstDay
  else if (month === undefined) lastDay = `${year}-12-31`
  else {
    // The last calendar day of the month: the first of 31, 30, 29, 28 that exists.
    for (const d of ['31', '30', '29', '28']) {
      if (parseInstant(`${year}-${month}-${d}`) !== null) {
        lastDay = `${year}-${month}-${d}`
        break
      }
    }
  }
  const end = lastDay === undefined ? null : parseInstant(lastDay)
  if (end === null) throw bad()
  // Instants are whole seconds, so the period's last second is its inclusive end.
  return { start, end: end.replace('T00:00:00Z', 'T23:59:59Z') }
}

const PENDING: Record<string, boolean> = {
  true: true,
  yes: true,
  '1': true,
  false: false,
  no: false,
  '0': false,
}

function parsePending(value: Value): boolean {
  const parsed = PENDING[value.text.toLowerCase()]
  if (parsed === undefined) {
    throw new QueryError(
      `bad pending value ${quote(value.text)} (use true/false, yes/no or 1/0)`,
      value.offset,
    )
  }
  return parsed
}

/** `k`, `k=v`, `k!=v`, `k~v`; the operator must sit in the unquoted start. */
function parseKeyed(
  value: Value,
  field: string,
): { key: string; op: KeyedOp; operand: { value?: string } } {
  const head = value.text.slice(0, value.unquoted)
  const at = head.search(/!=|=|~/)
  if (at < 0) return { key: checkKey(value.text, value, field), op: 'has', operand: {} }
  const key = checkKey(value.text.slice(0, at), value, field)
  const op: KeyedOp = head[at] === '!' ? 'ne' : head[at] === '=' ? 'eq' : 'contains'
  const operandStart = at + (op === 'ne' ? 2 : 1)
  const operand = value.text.slice(operandStart)
  if (operand === '') {
    throw new QueryError(`empty value after the ${field} key`, value.offset + operandStart)
  }
  return { key, op, operand: { value: operand.toLowerCase() } }
}

function checkKey(key: string, value: Value, field: string): string {
  if (key.trim() === '') throw new QueryError(`empty ${field} key`, value.offset)
  return key
}

function quote(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)
}

// The one evaluator of a parsed query against one transaction (CONTRACT 7).
// Every door and the database path end here: the database only narrows the
// candidates, this decides. Text compares lower-cased (toLowerCase), amounts as
// exact decimals (decimal.ts), instants as fixed-width UTC text.
import { compareDecimal } from '../decimal.js'
import type { JsonValue, TransactionJson } from '../ledger/json.js'
import type { Interval, KeyedOp, QueryNode, TextField } from './ast.js'

/** Everything the matcher may look at for one transaction. */
export interface MatchSubject {
  transaction: TransactionJson
  accountName: string
  outbound: ReadonlyArray<{ kind: string; to: string }>
  inbound: ReadonlyArray<{ kind: string; from: string }>
}

/** An extension value as text: a JSON string by its text, anything else as compact JSON. */
export function extensionText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

function lower(text: string | null): string {
  return text === null ? '' : text.toLowerCase()
}

/** Whether `text` holds the (lower-cased) needle, ignoring case: how every text term reads. */
export function contains(text: string | null, needle: string): boolean {
  return text !== null && text.toLowerCase().includes(needle)
}

function textField(subject: MatchSubject, field: TextField): string | null {
  if (field === 'account') return subject.accountName
  return subject.transaction[field]
}

function freeText(subject: MatchSubject, needle: string): boolean {
  const t = subject.transaction
  if (
    contains(t.description, needle) ||
    contains(t.payee, needle) ||
    contains(t.memo, needle) ||
    contains(subject.accountName, needle) ||
    contains(t.id, needle)
  ) {
    return true
  }
  for (const [key, value] of Object.entries(t.labels)) {
    if (contains(key, needle) || contains(value, needle) || contains(`${key}:${value}`, needle)) {
      return true
    }
  }
  for (const [key, value] of Object.entries(t.extensions)) {
    if (contains(key, needle) || contains(extensionText(value), needle)) return true
  }
  return false
}

function inInterval(compare: (bound: string) => number, interval: Interval): boolean {
  const { min, max } = interval
  const inside =
    (min === undefined || (min.inclusive ? compare(min.value) >= 0 : compare(min.value) > 0)) &&
    (max === undefined || (max.inclusive ? compare(max.value) <= 0 : compare(max.value) < 0))
  return inside !== interval.outside
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Labels and extensions share the operators; `text` is the stored value as text, or absent. */
function keyed(text: string | undefined, op: KeyedOp, operand: string | undefined): boolean {
  switch (op) {
    case 'has':
      return text !== undefined
    case 'eq':
      return text !== undefined && lower(text) === operand
    case 'ne':
      // A missing key is "not equal" too.
      return text === undefined || lower(text) !== operand
    case 'contains':
      return text !== undefined && lower(text).includes(operand!)
  }
}

function own<V>(map: Record<string, V>, key: string): V | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined
}

export function matches(query: QueryNode, subject: MatchSubject): boolean {
  const t = subject.transaction
  switch (query.kind) {
    case 'all':
      return true
    case 'and':
      return query.items.every((item) => matches(item, subject))
    case 'or':
      return query.items.some((item) => matches(item, subject))
    case 'not':
      return !matches(query.item, subject)
    case 'text':
      return freeText(subject, query.needle)
    case 'field_text':
      return contains(textField(subject, query.field), query.needle)
    case 'exact':
      return t[query.field] === query.value
    case 'amount':
      return inInterval((bound) => compareDecimal(t.amount, bound), query.interval)
    case 'instant': {
      const instant = query.field === 'date' ? t.date : t.synced_at
      // A transaction never synced has no time to compare: it matches no `synced:` period.
      if (instant === null) return false
      return inInterval((bound) => compareText(instant, bound), query.interval)
    }
    case 'pending':
      return t.pending === query.value
    case 'label':
      return keyed(own(t.labels, query.key), query.op, query.value)
    case 'ext': {
      const value = own(t.extensions, query.key)
      return keyed(value === undefined ? undefined : extensionText(value), query.op, query.value)
    }
    case 'rel':
      return subject.outbound.some(
        (edge) =>
          edge.kind === query.relKind && (query.target === undefined || edge.to === query.target),
      )
    case 'related':
      return (
        subject.outbound.some((edge) => edge.to === query.id) ||
        subject.inbound.some((edge) => edge.from === query.id)
      )
  }
}

// A parsed query back to query text (CONTRACT 7): one canonical spelling, which
// parses to the same tree. Field names are lower-case, label shorthand is written
// `label:key=value`, a value is quoted only when it must be, AND is a space, OR is
// written `OR`, NOT is `-`, and parentheses appear only where precedence needs them.
// A rule, a saved search or a log line can so show a query in one form, whatever
// spelling the user typed.
//
// Only trees the parser produces have a spelling: a value with a '"' or a control
// character, an empty value, or an interval no comparison writes has none, and
// printQuery throws a RangeError for it.
import { isCalendarDay } from '../ledger/time.js'
import type { Interval, KeyedOp, QueryNode } from './ast.js'
import { BLANKS } from './tokenize.js'

/** The query text of `node`; parseQuery(printQuery(node)) deep-equals `node`. */
export function printQuery(node: QueryNode): string {
  return node.kind === 'all' ? '' : printNode(node)
}

function printNode(node: QueryNode): string {
  switch (node.kind) {
    case 'all':
      throw new RangeError('"all" has a spelling only as the whole query (the empty query)')
    case 'and':
      return node.items
        .map((item) => operand(item, item.kind === 'and' || item.kind === 'or'))
        .join(' ')
    case 'or':
      return node.items.map((item) => operand(item, item.kind === 'or')).join(' OR ')
    case 'not':
      return `-${operand(node.item, node.item.kind === 'and' || node.item.kind === 'or')}`
    case 'text':
      if (node.needle.trim() === '')
        throw new RangeError('a free-text needle needs a visible character')
      return isWord(node.needle) ? node.needle : quoted(node.needle)
    case 'field_text':
      return `${node.field}:${value(node.needle)}`
    case 'exact':
      return `${node.field}:${value(node.value)}`
    case 'amount':
      return `amount:${interval(node.interval, amountSide)}`
    case 'instant':
      return `${node.field === 'synced_at' ? 'synced' : 'date'}:${interval(node.interval, periodSide)}`
    case 'pending':
      return `pending:${node.value}`
    case 'label':
      if (node.op === 'eq' && !canPrecedeOperator(node.key, node.op) && isShorthandName(node.key)) {
        // `=x:y` is label "=x" equal to "y", a key no `label:` spelling can carry.
        return `${node.key}:${value(node.value ?? '')}`
      }
      return `label:${keyed(node.key, node.op, node.value)}`
    case 'ext':
      return `ext:${keyed(node.key, node.op, node.value)}`
    case 'rel':
      if (node.relKind.includes('=')) throw new RangeError('a relationship kind cannot contain "="')
      return `rel:${value(node.relKind)}${node.target === undefined ? '' : `=${value(node.target)}`}`
    case 'related':
      return `related:${value(node.id)}`
  }
}

function operand(node: QueryNode, grouped: boolean): string {
  return grouped ? `(${printNode(node)})` : printNode(node)
}

// The characters that end an unquoted word (tokenize.ts), and the control characters
// that no query may hold.
const DELIMITER = new RegExp(`[${BLANKS}()"&|]`)
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/

/** A free-text word that needs no quotes: not a field, not an operator, not a negation. */
function isWord(text: string): boolean {
  return (
    text !== '' &&
    !DELIMITER.test(text) &&
    !CONTROL.test(text) &&
    !text.includes(':') &&
    !text.startsWith('-') &&
    !['and', 'or', 'not'].includes(text.toLowerCase())
  )
}

function quoted(text: string): string {
  if (text.includes('"')) throw new RangeError("a query value cannot contain '\"'")
  if (CONTROL.test(text)) throw new RangeError('a query value cannot contain a control character')
  return `"${text}"`
}

/** A field's value: as it is when nothing in it ends a word, else quoted. */
function value(text: string): string {
  if (text === '') throw new RangeError('a field value cannot be empty')
  return DELIMITER.test(text) || CONTROL.test(text) ? quoted(text) : text
}

const KEYED_OPS: Record<Exclude<KeyedOp, 'has'>, string> = { eq: '=', ne: '!=', contains: '~' }

/** `key`, `key=value`, `key!=value` or `key~value` of a label or an extension. */
function keyed(key: string, op: KeyedOp, operandValue: string | undefined): string {
  if (key.trim() === '') throw new RangeError('a key needs a visible character')
  if (op === 'has') {
    // Quoted, a key may hold '=' or '~': operators are read only outside quotes.
    return /[=~]/.test(key) ? quoted(key) : value(key)
  }
  if (!canPrecedeOperator(key, op)) {
    throw new RangeError(`the key ${JSON.stringify(key)} has no spelling with an operator`)
  }
  if (operandValue === undefined) throw new RangeError(`"${op}" needs a value`)
  return `${key}${KEYED_OPS[op]}${value(operandValue)}`
}

/** With an operator the key stands unquoted before it, and "k!" then "=" reads as "!=". */
function canPrecedeOperator(key: string, op: KeyedOp): boolean {
  return (
    key !== '' &&
    !DELIMITER.test(key) &&
    !CONTROL.test(key) &&
    !/[=~]/.test(key) &&
    !(op === 'eq' && key.endsWith('!'))
  )
}

// Field names (parse-term.ts): any other name before ':' is label shorthand.
const FIELD_NAMES = new Set([
  'description',
  'payee',
  'memo',
  'account',
  'id',
  'account_id',
  'source',
  'amount',
  'date',
  'synced',
  'pending',
  'label',
  'ext',
  'rel',
  'related',
])

/** Whether `key:value` is label shorthand for this key. */
function isShorthandName(key: string): boolean {
  return (
    key !== '' &&
    !DELIMITER.test(key) &&
    !CONTROL.test(key) &&
    !key.includes(':') &&
    !key.startsWith('-') &&
    !FIELD_NAMES.has(key)
  )
}

interface Side {
  /** The text of a single value that is both the start and the end of a span (`=`, `!=`). */
  single(min: string, max: string): string | null
  /** The text whose span starts at `at` (`>=`, `<`, a range's low end). */
  start(at: string): string
  /** The text whose span ends at `at` (`<=`, `>`, a range's high end). */
  end(at: string): string
}

function interval(i: Interval, side: Side): string {
  const { min, max } = i
  if (min && max) {
    if (!min.inclusive || !max.inclusive) throw new RangeError('a range includes both ends')
    const single = side.single(min.value, max.value)
    if (i.outside) {
      if (single === null) throw new RangeError('"!=" takes one value')
      return `!=${single}`
    }
    if (single !== null) return single
    let low = side.start(min.value)
    // "5." then ".." reads as "5" then "..": a ',' (which carries no value) keeps the dot.
    if (low.endsWith('.')) low += ','
    return `${low}..${side.end(max.value)}`
  }
  if (i.outside) throw new RangeError('"!=" takes one value')
  if (max) return max.inclusive ? `<=${side.end(max.value)}` : `<${side.start(max.value)}`
  if (min) return min.inclusive ? `>=${side.start(min.value)}` : `>${side.end(min.value)}`
  throw new RangeError('an interval needs a bound')
}

const amountSide: Side = {
  single: (min, max) => (min === max ? amount(min) : null),
  start: amount,
  end: amount,
}

function amount(text: string): string {
  if (!/^-?(\d+(\.\d*)?|\.\d+)$/.test(text))
    throw new RangeError(`not a stored amount: ${JSON.stringify(text)}`)
  return text
}

/** The day of an instant that is the first second of a day. */
function dayStarting(instant: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T00:00:00Z$/.exec(instant)
  if (!match) throw new RangeError(`not the start of a day: ${JSON.stringify(instant)}`)
  return match[1]!
}

/** The day of an instant that is the last second of a day. */
function dayEnding(instant: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T23:59:59Z$/.exec(instant)
  if (!match) throw new RangeError(`not the end of a day: ${JSON.stringify(instant)}`)
  return match[1]!
}

const periodSide: Side = {
  // The shortest period from the first second of one day to the last of another:
  // a day, a whole month, a whole year.
  single(min, max) {
    const [first, last] = [dayStarting(min), dayEnding(max)]
    if (first === last) return first
    const [year, month, day] = first.split('-')
    if (day !== '01') return null
    if (month === '01' && last === `${year}-12-31`) return year!
    const lastDay = ['31', '30', '29', '28'].find((d) =>
      isCalendarDay(Number(year), Number(month), Number(d)),
    )
    return last === `${year}-${month}-${lastDay}` ? `${year}-${month}` : null
  },
  start: dayStarting,
  end: dayEnding,
}

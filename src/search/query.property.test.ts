// Properties of the search language: the printer (print.ts) and the parser
// (parse.ts) are inverse on every tree the parser can produce, a printed query is
// stable, and no text makes the parser throw anything but a QueryError.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { holds } from '../../test/helpers/property.js'
import type { Bound, Interval, QueryNode } from './ast.js'
import { parseQuery, parseStoredQuery, printQuery, QueryError } from './index.js'

// Characters with a meaning to the tokenizer or a field, and any others.
const SPECIAL = [...' ():&|-=~!.,"\t\n\r_/0aZ'].concat(['é', 'İ', 'ß', '\u00a0', '\u2028', '😀'])
const char = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL) },
  { weight: 3, arbitrary: fc.constantFrom(...'abcxyz019') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
)
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/

/** Text a query can carry in quotes: no '"', no control character, not empty. */
const carried = fc
  .string({ unit: char, minLength: 1, maxLength: 12 })
  .filter((s) => !s.includes('"') && !CONTROL.test(s))
/** The same, lower-cased as the parser leaves needles and values. */
const lowered = carried.map((s) => s.toLowerCase()).filter((s) => s === s.toLowerCase())
/** A key that can stand unquoted before an operator. */
const plainKey = fc
  .string({ unit: fc.constantFrom(...'abcxyz019_./-!é'), minLength: 1, maxLength: 8 })
  .filter((k) => !k.endsWith('!'))

const amountText = fc
  .tuple(
    fc.constantFrom('', '-'),
    fc.oneof(
      fc.stringMatching(/^\d{1,6}$/),
      fc.stringMatching(/^\d{1,6}\.\d{0,4}$/),
      fc.stringMatching(/^\.\d{1,4}$/),
      // "5." before ".." is the case a range must spell with care.
      fc.stringMatching(/^\d{1,3}\.$/),
    ),
  )
  .map(([sign, digits]) => `${sign}${digits}`)

const inclusive = (value: string): Bound => ({ value, inclusive: true })
const exclusive = (value: string): Bound => ({ value, inclusive: false })

const amountInterval: fc.Arbitrary<Interval> = fc.oneof(
  amountText.map((v) => ({ min: inclusive(v), max: inclusive(v), outside: false })),
  amountText.map((v) => ({ min: inclusive(v), max: inclusive(v), outside: true })),
  amountText.map((v) => ({ max: exclusive(v), outside: false })),
  amountText.map((v) => ({ max: inclusive(v), outside: false })),
  amountText.map((v) => ({ min: exclusive(v), outside: false })),
  amountText.map((v) => ({ min: inclusive(v), outside: false })),
  {
    weight: 4,
    arbitrary: fc
      .tuple(amountText, amountText)
      .map(([lo, hi]) => ({ min: inclusive(lo), max: inclusive(hi), outside: false })),
  },
)

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** A day of years 0001-9999, as YYYY-MM-DD. */
const day = fc
  .date({
    min: new Date('0001-01-01T00:00:00Z'),
    max: new Date('9999-12-31T00:00:00Z'),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString().slice(0, 10))

/** A period (YYYY, YYYY-MM or YYYY-MM-DD) as its first and last day. */
const period = fc.tuple(day, fc.constantFrom('day', 'month', 'year')).map(([d, size]) => {
  const [y, m] = [Number(d.slice(0, 4)), Number(d.slice(5, 7))]
  if (size === 'day') return { first: d, last: d }
  if (size === 'year') return { first: `${pad(y, 4)}-01-01`, last: `${pad(y, 4)}-12-31` }
  const last = new Date(0)
  last.setUTCFullYear(y, m, 0)
  return {
    first: `${pad(y, 4)}-${pad(m)}-01`,
    last: `${pad(y, 4)}-${pad(m)}-${pad(last.getUTCDate())}`,
  }
})

const startOf = (d: string) => `${d}T00:00:00Z`
const endOf = (d: string) => `${d}T23:59:59Z`

const instantInterval: fc.Arbitrary<Interval> = fc.oneof(
  period.map((p) => ({
    min: inclusive(startOf(p.first)),
    max: inclusive(endOf(p.last)),
    outside: false,
  })),
  period.map((p) => ({
    min: inclusive(startOf(p.first)),
    max: inclusive(endOf(p.last)),
    outside: true,
  })),
  day.map((d) => ({ max: exclusive(startOf(d)), outside: false })),
  day.map((d) => ({ max: inclusive(endOf(d)), outside: false })),
  day.map((d) => ({ min: exclusive(endOf(d)), outside: false })),
  day.map((d) => ({ min: inclusive(startOf(d)), outside: false })),
  fc.tuple(day, day).map(([lo, hi]) => ({
    min: inclusive(startOf(lo)),
    max: inclusive(endOf(hi)),
    outside: false,
  })),
)

const keyedOp = fc.constantFrom('eq' as const, 'ne' as const, 'contains' as const)

const leaf: fc.Arbitrary<QueryNode> = fc.oneof(
  lowered.filter((s) => s.trim() !== '').map((needle) => ({ kind: 'text' as const, needle })),
  fc.record({
    kind: fc.constant('field_text' as const),
    field: fc.constantFrom(
      'description' as const,
      'payee' as const,
      'memo' as const,
      'account' as const,
      'id' as const,
    ),
    needle: lowered,
  }),
  fc.record({
    kind: fc.constant('exact' as const),
    field: fc.constantFrom('account_id' as const, 'source' as const),
    value: carried,
  }),
  amountInterval.map((interval) => ({ kind: 'amount' as const, interval })),
  fc.record({
    kind: fc.constant('instant' as const),
    field: fc.constantFrom('date' as const, 'synced_at' as const),
    interval: instantInterval,
  }),
  fc.boolean().map((value) => ({ kind: 'pending' as const, value })),
  // Labels: keys trimmed and lower-cased; extensions keep theirs.
  lowered
    .map((k) => k.trim())
    .filter((k) => k !== '')
    .map((key) => ({ kind: 'label' as const, key, op: 'has' as const })),
  fc.record({ kind: fc.constant('label' as const), key: plainKey, op: keyedOp, value: lowered }),
  carried
    .filter((k) => k.trim() !== '')
    .map((key) => ({ kind: 'ext' as const, key, op: 'has' as const })),
  fc.record({
    kind: fc.constant('ext' as const),
    key: plainKey.map((k) => k.toUpperCase()),
    op: keyedOp,
    value: lowered,
  }),
  fc.record(
    {
      kind: fc.constant('rel' as const),
      relKind: carried.filter((k) => !k.includes('=')),
      target: carried,
    },
    { requiredKeys: ['kind', 'relKind'] },
  ),
  carried.map((id) => ({ kind: 'related' as const, id })),
)

// Nested AND, OR and NOT, at most 3 levels of lists (27 terms, under the bound of 100).
const tree: fc.Arbitrary<QueryNode> = fc.letrec<{ node: QueryNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc
      .array(tie('node'), { minLength: 2, maxLength: 3 })
      .map((items) => ({ kind: 'and' as const, items })),
    fc
      .array(tie('node'), { minLength: 2, maxLength: 3 })
      .map((items) => ({ kind: 'or' as const, items })),
    tie('node').map((item) => ({ kind: 'not' as const, item })),
  ),
})).node

// fc.record builds objects without a prototype; the parser's have Object's.
const plain = (node: QueryNode) => JSON.parse(JSON.stringify(node)) as QueryNode

const query = fc.oneof(
  { weight: 1, arbitrary: fc.constant<QueryNode>({ kind: 'all' }) },
  { weight: 20, arbitrary: tree.map(plain) },
)

test('parseQuery(printQuery(tree)) is the tree', () => {
  holds(
    fc.property(query, (node) => {
      const text = printQuery(node)
      assert.deepEqual(parseQuery(text), node, text)
    }),
  )
})

// Pieces of queries: words, phrases, fields, operators and stray characters.
const PIECES = [
  'coffee',
  'Bottle',
  '"blue bottle"',
  '"a"b',
  'AND',
  'or',
  'Not',
  '&',
  '|',
  '-',
  '(',
  ')',
  '"',
  ':',
  'amount:',
  '>',
  '<=',
  '!=',
  '..',
  '5.',
  '.5',
  '-1,000.00',
  'date:',
  'synced:',
  '2024',
  '2024-02',
  '2024-02-29',
  'pending:',
  'yes',
  '0',
  'label:',
  'ext:',
  'k',
  '=',
  '~',
  'rel:',
  'related:',
  'category:food',
  'Payee:"Blue Bottle"',
  'account_id:',
  'source:csv',
]
const queryish = fc
  .array(fc.tuple(fc.constantFrom(...PIECES), fc.constantFrom('', ' ', '  ')), { maxLength: 12 })
  .map((parts) => parts.map(([piece, space]) => piece + space).join(''))

function parsed(text: string): QueryNode | null {
  try {
    return parseQuery(text)
  } catch (error) {
    if (error instanceof QueryError) return null
    throw error
  }
}

test('a printed query is canonical: it parses to the same tree and prints the same again', () => {
  holds(
    fc.property(queryish, (text) => {
      const node = parsed(text)
      if (node === null) return
      const printed = printQuery(node)
      assert.deepEqual(parseQuery(printed), node, `${text} → ${printed}`)
      assert.equal(printQuery(parseQuery(printed)), printed)
    }),
  )
})

test('no text makes the parser throw anything but a QueryError at an offset inside the text', () => {
  const anyText = fc.oneof(
    queryish,
    fc.string({ unit: char, maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
  )
  holds(
    fc.property(anyText, (text) => {
      for (const parse of [parseQuery, parseStoredQuery]) {
        try {
          parse(text)
        } catch (error) {
          assert.ok(error instanceof QueryError, `${JSON.stringify(text)}: ${String(error)}`)
          assert.ok(
            error.offset >= 0 && error.offset <= text.length,
            `${JSON.stringify(text)}: ${error.message}`,
          )
        }
      }
    }),
  )
})

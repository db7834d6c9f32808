// The canonical spelling of a query (print.ts), by example.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseQuery, printQuery } from './index.js'

const canonical = (text: string) => printQuery(parseQuery(text))

test('a query prints in one canonical spelling', () => {
  const cases: Array<[string, string]> = [
    ['', ''],
    ['Coffee  AND  tea', 'coffee tea'],
    ['coffee | tea & juice', 'coffee OR tea juice'],
    ['NOT (coffee OR tea)', '-(coffee OR tea)'],
    ['(a b) c', '(a b) c'],
    ['"blue bottle" "and" ref:123', '"blue bottle" "and" label:ref=123'],
    ['"ref:123" "-x"', '"ref:123" "-x"'],
    ['PAYEE:"Blue Bottle"', 'payee:"blue bottle"'],
    ['amount:>=1,000.50 amount:-5..5. amount:!=0', 'amount:>=1000.50 amount:-5..5. amount:!=0'],
    ['date:2024 synced:2024-02 date:2024-02-29', 'date:2024 synced:2024-02 date:2024-02-29'],
    ['date:2024-01..2024-03 date:>2024-02', 'date:2024-01-01..2024-03-31 date:>2024-02-29'],
    ['pending:yes label:Trip ext:Tax.Rate~1', 'pending:true label:trip ext:Tax.Rate~1'],
    ['rel:refund_of=csv:x related:man_1', 'rel:refund_of=csv:x related:man_1'],
  ]
  for (const [input, printed] of cases) assert.equal(canonical(input), printed, input)
})

test('a range whose low end ends in "." keeps it with a ","', () => {
  // "5...7" reads as 5 to .7; "5.,..7" is 5. to 7.
  assert.equal(canonical('amount:5.,..7'), 'amount:5.,..7')
  assert.deepEqual(parseQuery('amount:5.,..7'), {
    kind: 'amount',
    interval: {
      min: { value: '5.', inclusive: true },
      max: { value: '7', inclusive: true },
      outside: false,
    },
  })
  assert.equal(canonical('amount:5...7'), 'amount:5...7')
})

test('a label key that no label: spelling carries prints as shorthand', () => {
  assert.equal(canonical('=pending:coffee'), '=pending:coffee')
})

test('a tree the parser cannot produce has no spelling', () => {
  assert.throws(() => printQuery({ kind: 'text', needle: 'say "hi"' }), RangeError)
  assert.throws(
    () => printQuery({ kind: 'and', items: [{ kind: 'all' }, { kind: 'all' }] }),
    RangeError,
  )
  assert.throws(
    () =>
      printQuery({
        kind: 'instant',
        field: 'date',
        interval: { max: { value: '2024-01-01T10:00:00Z', inclusive: true }, outside: false },
      }),
    RangeError,
  )
})

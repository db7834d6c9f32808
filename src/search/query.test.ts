// The search language (CONTRACT 7) without a database: each grammar rule, each
// field, the edge cases, and the errors with their offsets.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { TransactionJson } from '../ledger/json.js'
import { matches, parseQuery, QueryError, type MatchSubject } from './index.js'

function subject(
  over: Partial<TransactionJson> = {},
  extra: Partial<MatchSubject> = {},
): MatchSubject {
  return {
    transaction: {
      id: 'csv:abc123',
      account_id: 'csv:checking',
      amount: '-12.50',
      date: '2024-02-29T10:00:00Z',
      description: 'Coffee at Blue Bottle',
      payee: 'Blue Bottle',
      memo: null,
      pending: false,
      source: 'csv',
      labels: { category: 'Food', trip: 'paris' },
      extensions: { 'tax.deductible': true, 'tax.rate': 10, 'custom.app.note': 'Ref:123' },
      synced_at: '2024-03-01T00:00:00Z',
      ...over,
    },
    accountName: 'Checking',
    outbound: [{ kind: 'refund_of', to: 'csv:zzz' }],
    inbound: [{ kind: 'split_of', from: 'man_1' }],
    ...extra,
  }
}

function check(query: string, expected: boolean, s: MatchSubject = subject()): void {
  assert.equal(matches(parseQuery(query), s), expected, query)
}

function rejects(query: string, message: RegExp, offset?: number): void {
  assert.throws(
    () => parseQuery(query),
    (error: unknown) => {
      assert.ok(error instanceof QueryError, `${query}: ${String(error)}`)
      assert.match(error.message, message, query)
      assert.match(error.message, /at offset \d+$/)
      if (offset !== undefined) assert.equal(error.offset, offset, `${query}: ${error.message}`)
      assert.equal(error.status, 400)
      return true
    },
  )
}

test('an empty or blank query matches everything', () => {
  check('', true)
  check('   \t', true)
})

test('a no-break space and the other Unicode blanks separate terms as a space does', () => {
  for (const blank of ['\u00a0', '\u3000', '\u2028', '\ufeff', '\u202f']) {
    assert.deepEqual(parseQuery(blank), parseQuery(''), `${JSON.stringify(blank)} alone`)
    assert.deepEqual(
      parseQuery(`coffee${blank}`),
      parseQuery('coffee'),
      `coffee${JSON.stringify(blank)}`,
    )
    assert.deepEqual(
      parseQuery(`coffee${blank}-bottle`),
      parseQuery('coffee -bottle'),
      `a NOT after ${JSON.stringify(blank)}`,
    )
    check(`blue${blank}coffee`, true)
    check(`"blue${blank}bottle"`, false)
  }
  // Vertical tab and form feed are control characters, as before.
  rejects('coffee\u000bbottle', /control character U\+000b/, 6)
})

test('terms side by side are AND; AND, &, OR, | and keywords in any case', () => {
  check('coffee bottle', true)
  check('coffee tea', false)
  check('coffee AND tea', false)
  check('coffee and bottle', true)
  check('coffee & bottle', true)
  check('tea OR coffee', true)
  check('tea or juice', false)
  check('tea | coffee', true)
})

test('NOT binds tighter than AND, AND tighter than OR', () => {
  // tea OR (coffee AND NOT bottle) → false; (tea OR coffee) AND NOT bottle would also be false,
  // so test a case where precedence decides.
  check('coffee OR tea juice', true) // coffee OR (tea AND juice)
  check('tea juice OR coffee', true)
  check('NOT tea coffee', true) // (NOT tea) AND coffee
  check('NOT coffee OR bottle', true) // (NOT coffee) OR bottle
  check('NOT (coffee OR tea)', false)
})

test('nested NOT and "-" before a word, a phrase or a parenthesis', () => {
  check('NOT NOT coffee', true)
  check('not not not coffee', false)
  check('-tea', true)
  check('-coffee', false)
  check('--coffee', true)
  check('-"blue bottle"', false)
  check('-(tea OR coffee)', false)
  check('-(tea OR juice)', true)
  check('NOT -coffee', true)
  // A lone '-' is a word, not a negation.
  check('-', false)
})

test('a quoted phrase is one free-text term, also with ":" inside', () => {
  check('"blue bottle"', true)
  check('"bottle blue"', false)
  check('"ref:123"', true) // extension value text
  check('"category:food"', true) // label key:value
  check('"trip:par"', true)
})

test('free text looks at every text of the transaction, case-insensitively', () => {
  check('COFFEE', true) // description
  check('blue', true) // payee
  check('checking', true) // account name
  check('abc12', true) // id
  check('trip', true) // label key
  check('PARIS', true) // label value
  check('deductible', true) // extension key
  check('true', true) // extension value as JSON
  check('memo', false)
  check('Kelvin', false)
})

test('description, payee, memo, account and id are substrings; field names in any case', () => {
  check('description:bottle', true)
  check('Description:BOTTLE', true)
  check('DESCRIPTION:"at blue"', true)
  check('payee:blue', true)
  check('payee:coffee', false)
  check('memo:x', false)
  check('memo:x', true, subject({ memo: 'Xmas' }))
  check('account:CHECK', true)
  check('account:savings', false)
  check('id:abc', true)
})

test('account_id and source are exact', () => {
  check('account_id:csv:checking', true)
  check('account_id:csv:check', false)
  check('source:csv', true)
  check('source:cs', false)
  check('source:manual', false)
})

test('amount compares exact decimals with every operator and range form', () => {
  check('amount:-12.5', true)
  check('amount:=-12.500', true)
  check('amount:!=-12.5', false)
  check('amount:<0', true)
  check('amount:<-12.5', false)
  check('amount:<=-12.5', true)
  check('amount:>-12.5', false)
  check('amount:>=-12.50', true)
  check('amount:-20..-10', true)
  check('amount:-12.5..-12.5', true)
  check('amount:-12.49..', false)
  check('amount:..-12.5', true)
  check('amount:-1,000..0', true)
  check('amount:=0.1', true, subject({ amount: '0.10' }))
  // 0.1 + 0.2 style float traps never happen: exact text decimals.
  check('amount:>0.30000000000000000001', false, subject({ amount: '0.3' }))
  check('amount:<=0.30000000000000000001', true, subject({ amount: '0.3' }))
})

test('date is a UTC period: year, month (across month ends, leap day) and day', () => {
  check('date:2024', true)
  check('date:2024-02', true)
  check('date:2024-02-29', true)
  check('date:2024-03', false)
  check('date:!=2024-02', false)
  check('date:<2024-02', false)
  check('date:<2024-03', true) // before March 1st
  check('date:<=2024-02', true) // up to Feb 29th 23:59:59
  check('date:>2024-02', false)
  check('date:>2024-01', true)
  check('date:>=2024-02-29', true)
  check('date:2023..2024-02', true)
  check('date:2024-03..', false)
  check('date:..2024-02-29', true)
  // The last second of a month is inside it, the next second is not.
  const last = subject({ date: '2023-02-28T23:59:59Z' })
  check('date:2023-02', true, last)
  check('date:2023-03', false, subject({ date: '2023-02-28T23:59:59Z' }))
  check('date:2023-03', true, subject({ date: '2023-03-01T00:00:00Z' }))
})

test('synced compares synced_at; a never-synced transaction matches no synced period', () => {
  check('synced:2024-03', true)
  check('synced:2024-02', false)
  const manual = subject({ synced_at: null })
  check('synced:2024', false, manual)
  check('synced:!=2024', false, manual)
  check('-synced:2024', true, manual)
})

test('pending takes true/false, yes/no, 1/0', () => {
  check('pending:false', true)
  check('pending:NO', true)
  check('pending:0', true)
  check('pending:true', false)
  check('pending:yes', true, subject({ pending: true }))
  check('pending:1', true, subject({ pending: true }))
})

test('label: present, equal, not equal (missing key included), contains', () => {
  check('label:category', true)
  check('label:CATEGORY', true)
  check('label:merchant', false)
  check('label:category=food', true)
  check('label:category=FOOD', true)
  check('label:category=fo', false)
  check('label:category!=food', false)
  check('label:category!=rent', true)
  check('label:merchant!=x', true) // a missing label matches !=
  check('label:category~OO', true)
  check('label:category~x', false)
  check('label:note="a b"', true, subject({ labels: { note: 'A B' } }))
  check('label:note="x=y"', true, subject({ labels: { note: 'x=y' } }))
})

test('any other name:value is label shorthand', () => {
  check('category:food', true)
  check('Category:Food', true)
  check('trip:london', false)
})

test('ext: the same operators over extension values as text', () => {
  check('ext:tax.deductible', true)
  check('ext:tax.missing', false)
  check('ext:tax.deductible=true', true)
  check('ext:tax.deductible=TRUE', true)
  check('ext:tax.rate=10', true)
  check('ext:tax.rate!=10', false)
  check('ext:tax.rate!=11', true)
  check('ext:tax.other!=1', true)
  check('ext:custom.app.note~ref:1', true)
  check('ext:custom.app.note=ref:123', true)
  check('ext:Tax.rate', false) // extension keys keep their case
  check('ext:obj={"a":1}', false) // a quote starts a quoted piece: value is {a:1}
  check('ext:obj~"a"', true, subject({ extensions: { obj: { a: 1 } } }))
})

test('rel and related follow relationships', () => {
  check('rel:refund_of', true)
  check('rel:refund_of=csv:zzz', true)
  check('rel:refund_of=csv:other', false)
  check('rel:split_of', false) // inbound edges are not rel:
  check('related:csv:zzz', true)
  check('related:man_1', true)
  check('related:man_2', false)
})

test('bad queries name the problem and where it is', () => {
  rejects('(coffee', /'\(' is never closed/, 0)
  rejects('coffee)', /'\)' without '\('/, 6)
  rejects('a (b', /never closed/, 2)
  rejects('"coffee', /unterminated quote/, 0)
  rejects('payee:"blue', /unterminated quote/, 6)
  rejects('amount:abc', /bad amount "abc"/, 7)
  rejects('amount:>=1..2', /range/, 7)
  rejects('amount:..', /at least one end/, 7)
  rejects('amount:>', /needs a value/, 8)
  rejects('date:2024-13', /bad date/, 5)
  rejects('date:2023-02-29', /bad date/, 5)
  rejects('date:24', /bad date/, 5)
  rejects('pending:maybe', /bad pending value/, 8)
  rejects('description:', /empty value for field "description"/, 12)
  rejects('label:', /empty value/, 6)
  rejects('label:k=', /empty value after the label key/, 8)
  rejects('label:=x', /empty label key/, 6)
  rejects(':x', /empty field name/, 0)
  rejects('coffee OR', /end of the query/, 9)
  rejects('OR coffee', /expected a term, found OR/, 0)
  rejects('coffee AND AND tea', /found AND/, 11)
  rejects('()', /empty parentheses/, 0)
  rejects('""', /empty phrase/, 0)
  rejects('coffee\u0000', /control character U\+0000/, 6)
  rejects('a\u001bb', /control character/, 1)
  rejects('"a\u0007"', /control character/, 2)
})

test('nesting is capped, so no query can exhaust the stack', () => {
  const deep = (n: number) => '('.repeat(n) + 'zq' + ')'.repeat(n)
  check(deep(100), false)
  rejects(deep(101), /nests deeper than 100/, 100)
  rejects('('.repeat(10_240), /nests deeper than 100/, 100)
  rejects('NOT '.repeat(200) + 'x', /nests deeper/)
  rejects('-'.repeat(5000) + 'x', /nests deeper/)
  // Long flat lists are loops, not recursion; their length is capped too (the
  // SQL narrowing and the matcher walk every term).
  const list = (n: number, op: string) => Array.from({ length: n }, (_, i) => `w${i}`).join(op)
  check(list(100, ' OR '), false)
  check(list(100, ' '), false)
  rejects(list(101, ' OR '), /at most 100 terms/, list(100, ' OR ').length + 4)
  rejects(list(5000, ' '), /at most 100 terms/, list(100, ' ').length + 1)
})

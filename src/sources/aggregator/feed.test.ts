// One accounts answer in neutral form (CONTRACT 4), in both protocol shapes.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { readFeedPage } from './feed.js'

const posted = 1_714_000_000 // 2024-04-24T23:06:40Z

test('v1: org per account (id, else domain, else sfin-url host), errors, rows verbatim', () => {
  const page = readFeedPage({
    errors: ['Bank A: needs attention'],
    accounts: [
      {
        org: {
          id: 'ORG-A',
          domain: 'a.example',
          name: 'Bank A',
          'sfin-url': 'https://s.a.example',
        },
        id: 'A1',
        name: 'Checking',
        currency: 'EUR',
        balance: '+10.500',
        transactions: [
          { id: 'x', posted, amount: '-1.230', description: 'D', payee: 'P', memo: 'M' },
          { id: 'n', posted, amount: -1.23, description: 'a number, not a string' },
          { id: 'p', posted: 0, transacted_at: posted, amount: '2', pending: true },
          { id: 'z', posted: 0, amount: '2' },
        ],
      },
      { org: { domain: 'b.example' }, id: 'B1', name: 'Card', currency: 'USD', balance: 'n/a' },
      {
        org: { 'sfin-url': 'https://sfin.c.example/x' },
        id: 'C1',
        name: 'C',
        currency: 'USD',
        balance: '0',
      },
      { org: {}, id: 'D1', name: 'D', currency: 'USD', balance: '0' },
      { name: 'no id' },
    ],
  })
  assert.deepEqual(page.errors, ['Bank A: needs attention'])
  assert.deepEqual(page.organizations, [
    { id: 'aggregator:ORG-A', name: 'Bank A', domain: 'a.example' },
    { id: 'aggregator:b.example', name: 'b.example', domain: 'b.example' },
    { id: 'aggregator:sfin.c.example', name: 'sfin.c.example', domain: null },
    { id: 'aggregator:unknown', name: 'Unknown institution' },
  ])
  assert.deepEqual(
    page.accounts.map((a) => [a.id, a.org_id, a.balance, a.currency]),
    [
      ['aggregator:A1', 'aggregator:ORG-A', '10.500', 'EUR'],
      ['aggregator:B1', 'aggregator:b.example', '0', 'USD'],
      ['aggregator:C1', 'aggregator:sfin.c.example', '0', 'USD'],
      ['aggregator:D1', 'aggregator:unknown', '0', 'USD'],
    ],
  )
  assert.deepEqual(page.transactions, [
    {
      id: 'aggregator:A1:x',
      account_id: 'aggregator:A1',
      amount: '-1.230',
      date: '2024-04-24T23:06:40Z',
      description: 'D',
      payee: 'P',
      memo: 'M',
      pending: false,
    },
    {
      id: 'aggregator:A1:p',
      account_id: 'aggregator:A1',
      amount: '2',
      date: '2024-04-24T23:06:40Z',
      description: null,
      payee: null,
      memo: null,
      pending: true,
    },
  ])
  assert.deepEqual(page.skipped, [
    'aggregator:A1:n: amount is not usable',
    'aggregator:A1:z: date is not usable',
  ])
  assert.deepEqual(page.warnings, [
    'account "B1": its balance is not a decimal; shown as 0',
    'an account without an id was left out',
  ])
})

test('v2: the connection names the institution; errlist entries carry their code', () => {
  const page = readFeedPage({
    errlist: [{ code: 'con.auth', msg: 'Log in again.', conn_id: 'C1' }, { code: 'gen.x' }, {}],
    connections: [
      { conn_id: 'C1', name: 'My Bank', org_id: 'ORG-1', org_url: 'https://www.bank.example/' },
    ],
    accounts: [
      {
        conn_id: 'C1',
        id: 'A',
        name: 'Savings',
        currency: 'USD',
        balance: '5',
        transactions: [
          { id: 't', posted, transacted_at: posted - 86_400, amount: '1', pending: false },
        ],
      },
    ],
  })
  assert.deepEqual(page.errors, ['Log in again. (con.auth)', 'gen.x'])
  assert.deepEqual(page.organizations, [
    { id: 'aggregator:ORG-1', name: 'My Bank', domain: 'www.bank.example' },
  ])
  // Posted rows are dated by `posted`, even when transacted_at is earlier.
  assert.equal(page.transactions[0]!.date, '2024-04-24T23:06:40Z')
})

test('an answer without an accounts list is an error', () => {
  assert.throws(() => readFeedPage({ errors: [] }), /without an accounts list/)
  assert.throws(() => readFeedPage([]), /without an accounts list/)
})

test('what the ledger cannot keep as sent: NUL left out, long text cut, unusable ids skipped', () => {
  const long = 'x'.repeat(5000)
  const page = readFeedPage({
    accounts: [
      {
        id: 'A1',
        name: `Check\u0000ing${' '.repeat(3)}`,
        currency: 'USD',
        balance: '1',
        org: { id: 'O1', name: 'Bank\u0000 A' },
        transactions: [
          { id: 't1', posted: 1714000000, amount: '-1', description: 'nul\u0000here', payee: long },
          // 4,095 characters and an emoji: the cut leaves no half of it.
          { id: 't2', posted: 1714000000, amount: '-2', memo: `${'y'.repeat(4095)}😀` },
          { id: 't\u0000x', posted: 1714000000, amount: '-3' },
          { id: long, posted: 1714000000, amount: '-4' },
        ],
      },
      { id: 'B\u0001', name: 'Control', balance: '0', transactions: [] },
    ],
  })
  assert.deepEqual(
    page.accounts.map((a) => a.name),
    ['Checking'],
  )
  assert.deepEqual(
    page.organizations.map((o) => o.name),
    ['Bank A'],
  )
  const [first, second] = page.transactions
  assert.equal(page.transactions.length, 2)
  assert.equal(first!.description, 'nulhere')
  assert.equal(first!.payee, 'x'.repeat(4096))
  assert.equal(second!.memo, 'y'.repeat(4095))
  assert.deepEqual(page.skipped, [
    'account "A1": transaction id "t\\u0000x" is longer than 240 characters or holds a control character',
    `account "A1": transaction id "${'x'.repeat(40)}…" is longer than 240 characters or holds a control character`,
  ])
  assert.deepEqual(page.warnings, [
    'an account whose id is longer than 240 characters or holds a control character was left out',
  ])
})

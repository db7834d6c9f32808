import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ledgerRowOf, type ExplorerTransaction } from './ledger-row.js'

const ME = '0x' + 'a'.repeat(40)
const OTHER = '0x' + 'b'.repeat(40)
const HASH = '0x' + 'C'.repeat(64)

function record(fields: Partial<ExplorerTransaction>): ExplorerTransaction {
  return {
    hash: HASH,
    blockNumber: '10',
    timeStamp: '1700000000',
    from: OTHER,
    to: ME,
    value: '0',
    gasUsed: '21000',
    gasPrice: '1000000000',
    isError: '0',
    ...fields,
  }
}

test('amounts are exact wei arithmetic, as canonical ETH text', () => {
  const cases: Array<[string, Partial<ExplorerTransaction>, string]> = [
    ['one wei received', { value: '1' }, '0.000000000000000001'],
    ['whole ether received', { value: '2000000000000000000' }, '2'],
    // 1.5 ETH sent plus 21000 × 1 gwei of gas.
    ['send pays value and gas', { from: ME, to: OTHER, value: '1500000000000000000' }, '-1.500021'],
    ['self-send nets to the gas', { from: ME, to: ME, value: '7' }, '-0.000021'],
    ['reverted send pays gas only', { from: ME, to: OTHER, value: '5', isError: '1' }, '-0.000021'],
    ['failed receipt moves no value', { value: '5', txreceipt_status: '0' }, '0'],
    [
      'contract creation pays value and gas',
      { from: ME, to: '', contractAddress: OTHER, value: '3', gasPrice: '1' },
      '-0.000000000000021003',
    ],
    // 2^64 wei: far beyond a double's exact range.
    ['huge values stay exact', { value: '18446744073709551616' }, '18.446744073709551616'],
  ]
  for (const [name, fields, amount] of cases) {
    assert.equal(ledgerRowOf(ME, record(fields))?.amount, amount, name)
  }
})

test('description, payee, ids and date follow SPEC 1.2', () => {
  assert.deepEqual(ledgerRowOf(ME, record({ value: '1' })), {
    id: `ethereum:${ME}:${HASH.toLowerCase()}`,
    account_id: `ethereum:${ME}`,
    amount: '0.000000000000000001',
    date: '2023-11-14T22:13:20Z',
    description: 'Received ETH',
    payee: OTHER,
    memo: null,
    pending: false,
  })
  const sent = ledgerRowOf(ME, record({ from: ME.toUpperCase().replace('0X', '0x'), to: OTHER }))
  assert.equal(sent?.description, 'Sent ETH')
  assert.equal(sent?.payee, OTHER)
  const created = ledgerRowOf(ME, record({ from: ME, to: '', contractAddress: OTHER }))
  assert.equal(created?.payee, OTHER)
  assert.equal(ledgerRowOf(ME, record({ from: ME, to: OTHER, isError: '1' }))?.memo, 'reverted')
})

test('a record that does not touch the address is null; a malformed one throws', () => {
  assert.equal(ledgerRowOf(ME, record({ to: OTHER })), null)
  assert.throws(() => ledgerRowOf(ME, record({ value: '1.5' })), /value/)
  assert.throws(() => ledgerRowOf(ME, record({ value: '-1' })), /value/)
  assert.throws(() => ledgerRowOf(ME, record({ from: ME, gasPrice: '1e9' })), /gasPrice/)
  assert.throws(() => ledgerRowOf(ME, record({ timeStamp: 'yesterday' })), /timeStamp/)
  assert.throws(() => ledgerRowOf(ME, record({ hash: '0x12' })), /hash/)
  // More ETH than an amount may hold (64 characters): refused, not stored.
  const longest = ledgerRowOf(ME, record({ to: ME, value: `${'9'.repeat(45)}${'1'.repeat(18)}` }))
  assert.equal(longest!.amount, `${'9'.repeat(27)}${'9'.repeat(18)}.${'1'.repeat(18)}`)
  assert.equal(longest!.amount.length, 64)
  assert.throws(
    () => ledgerRowOf(ME, record({ to: ME, value: `1${'0'.repeat(62)}1` })),
    /more than 64 characters/,
  )
})

// The name mappings of docs/export.md "Names" and "beancount", pinned.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  accountComponent,
  beancountCommodity,
  beancountMetaKeys,
  counterAccount,
  hledgerCommodity,
  ledgerAccountNames,
  shortHash,
} from './names.js'

test('an account component keeps letters (any script) and digits, joined by -', () => {
  assert.equal(accountComponent('Cash: été / "savings"'), 'Cash-été-savings')
  assert.equal(accountComponent('checking'), 'Checking')
  assert.equal(accountComponent('  1inch bag '), '1inch-bag')
  assert.equal(accountComponent('日本 口座'), '日本-口座')
  assert.equal(accountComponent('***'), `X${shortHash('***')}`)
})

test('accounts that would share a ledger name each get a suffix of their id', () => {
  const names = ledgerAccountNames([
    { id: 'a1', name: 'Wallet', org_name: 'Manual' },
    { id: 'a2', name: 'wallet', org_name: 'Manual' },
    { id: 'a3', name: 'Checking', org_name: 'Big Bank' },
  ])
  assert.deepEqual(Object.fromEntries(names), {
    a1: `Assets:Manual:Wallet-${shortHash('a1')}`,
    a2: `Assets:Manual:Wallet-${shortHash('a2')}`,
    a3: 'Assets:Big-Bank:Checking',
  })
})

test('a suffixed account name never takes the name of another account', () => {
  // "Wallet 6FA3…" is named like the first Wallet's suffixed name.
  const accounts = [
    { id: 'a1', name: 'Wallet', org_name: 'Manual' },
    { id: 'a2', name: 'Wallet', org_name: 'Manual' },
    { id: 'a3', name: `Wallet ${shortHash('a1')}`, org_name: 'Manual' },
  ]
  const names = ledgerAccountNames(accounts)
  assert.equal(new Set(names.values()).size, accounts.length)
  assert.equal(names.get('a3'), `Assets:Manual:Wallet-${shortHash('a1')}`)
  assert.equal(names.get('a1'), `Assets:Manual:Wallet-${shortHash('a1')}-2`)
  assert.equal(names.get('a2'), `Assets:Manual:Wallet-${shortHash('a2')}`)
})

test('the counter account goes by sign: zero and more from income, less to expenses', () => {
  assert.equal(counterAccount('0'), 'Income:Unknown')
  assert.equal(counterAccount('12.5'), 'Income:Unknown')
  assert.equal(counterAccount('-0.000000000000000001'), 'Expenses:Unknown')
})

test('"-0" is zero, not negative: its counter account is income', () => {
  assert.equal(counterAccount('-0'), 'Income:Unknown')
  assert.equal(counterAccount('-0.00'), 'Income:Unknown')
})

test('hledger commodities are bare when letters only, quoted otherwise', () => {
  assert.equal(hledgerCommodity('USD'), 'USD')
  assert.equal(hledgerCommodity('USDC2'), '"USDC2"')
  assert.equal(hledgerCommodity('1INCH'), '"1INCH"')
  assert.equal(hledgerCommodity('A"B'), '"A_B"')
})

test('an hledger commodity never holds a ";" (it would end the quoted symbol)', () => {
  assert.equal(hledgerCommodity('https://x.example/c?u=1;v=2'), '"https://x.example/c?u=1_v=2"')
  assert.equal(hledgerCommodity(''), '')
})

test('beancount commodities are kept when valid, mapped with a hash otherwise', () => {
  for (const ok of ['USD', 'ETH', 'USDC2', 'BTC.B', 'AB']) assert.equal(beancountCommodity(ok), ok)
  assert.equal(beancountCommodity('X'), `X-${shortHash('X')}`)
  assert.equal(beancountCommodity('1INCH'), `C1INCH-${shortHash('1INCH')}`)
  assert.equal(beancountCommodity('usd'), `USD-${shortHash('usd')}`)
  const long = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
  assert.equal(beancountCommodity(long), `ABCDEFGHIJKLMNO-${shortHash(long)}`)
  assert.match(beancountCommodity('ÉTH!'), /^[A-Z][A-Z0-9'._-]{0,22}[A-Z0-9]$/)
})

test('beancount metadata keys are prefixed, cleaned, and never repeat within an entry', () => {
  assert.deepEqual(beancountMetaKeys('label-', ['category', 'tax.rate']), [
    'label-category',
    'label-tax_rate',
  ])
  assert.deepEqual(beancountMetaKeys('label-', ['odd.key/x', 'odd_key_x']), [
    `label-odd_key_x-${shortHash('odd.key/x').toLowerCase()}`,
    `label-odd_key_x-${shortHash('odd_key_x').toLowerCase()}`,
  ])
})

test('a suffixed metadata key never takes another key of the entry', () => {
  // The third key is spelled like the first one's suffixed key.
  const suffix = shortHash('x.y').toLowerCase()
  const keys = beancountMetaKeys('ext-', ['x.y', 'x_y', `x_y-${suffix}`])
  assert.equal(new Set(keys).size, 3)
  assert.deepEqual(keys, [
    `ext-x_y-${suffix}-2`,
    `ext-x_y-${shortHash('x_y').toLowerCase()}`,
    `ext-x_y-${suffix}`,
  ])
})

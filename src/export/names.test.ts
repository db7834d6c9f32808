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

test('the counter account goes by sign: zero and more from income, less to expenses', () => {
  assert.equal(counterAccount('0'), 'Income:Unknown')
  assert.equal(counterAccount('12.5'), 'Income:Unknown')
  assert.equal(counterAccount('-0.000000000000000001'), 'Expenses:Unknown')
})

test('hledger commodities are bare when letters only, quoted otherwise', () => {
  assert.equal(hledgerCommodity('USD'), 'USD')
  assert.equal(hledgerCommodity('USDC2'), '"USDC2"')
  assert.equal(hledgerCommodity('1INCH'), '"1INCH"')
  assert.equal(hledgerCommodity('A"B'), '"A_B"')
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

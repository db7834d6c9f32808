import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp } from './helpers/app.js'

test('manual account and transaction round trip', async (t) => {
  const app = await startTestApp(t)
  const acct = await app.request('POST', '/api/v1/accounts', {
    body: { name: 'Cash', currency: 'usd' },
  })
  assert.equal(acct.status, 201, acct.text)
  const tx = await app.request('POST', '/api/v1/transactions', {
    body: { account_id: acct.body.id, amount: '-0.000000000000000001', date: '2024-02-29' },
  })
  assert.equal(tx.status, 201, tx.text)
  assert.equal(tx.body.amount, '-0.000000000000000001')
  const list = await app.request('GET', '/api/v1/transactions')
  assert.equal(list.status, 200, list.text)
  assert.equal(list.body.total, 1)
  const events = await app.request('GET', '/api/v1/events')
  assert.deepEqual(
    events.body.events.map((e: { type: string }) => e.type),
    ['account.created', 'transaction.created'],
  )
  const bad = await app.request('POST', '/api/v1/transactions', {
    body: { account_id: acct.body.id, amount: 1, date: 'x', extra: 1 },
  })
  assert.equal(bad.status, 400, bad.text)
  console.log(bad.body)
  const del = await app.request('DELETE', '/api/v1/accounts/' + acct.body.id)
  assert.equal(del.status, 204, del.text)
  const hist = await app.request('GET', `/api/v1/transactions/${tx.body.id}/history`)
  console.log(JSON.stringify(hist.body))
  const nf = await app.request('GET', '/nope')
  console.log(nf.status, nf.body)
  const oa = await app.request('GET', '/api/v1/openapi.json')
  assert.equal(oa.status, 200)
})

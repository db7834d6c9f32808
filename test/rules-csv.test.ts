// Rules on rows a real CSV sync creates (CONTRACT 8 "New transactions"): a file in
// a configured folder, a sync over HTTP, rows born labelled in the sync's unit of
// work, and an unchanged re-sync that applies nothing.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import {
  allTransactions,
  eventsAfter,
  headSequence,
  startCsvApp,
  syncNow,
  type Json,
} from './sync-helpers.js'

const CSV = [
  'Date,Description,Payee,Amount',
  '2024-03-01,Card purchase,Starbucks #1,-4.50',
  '2024-03-02,Card purchase,Grocer,-40.00',
  '2024-03-03,Salary,Employer,2000.00',
  '',
].join('\n')

test('a CSV sync creates rows born labelled; an unchanged re-sync applies nothing', async (t) => {
  const { app, root } = await startCsvApp(t, [{ name: 'Checking', files: { 'march.csv': CSV } }])
  const rule = await app.request('POST', '/api/v1/rules', {
    body: {
      name: 'Coffee',
      query: 'payee:starbucks account:checking',
      labels: { category: 'coffee' },
      extensions: { 'merchant.name': 'Starbucks' },
    },
  })
  assert.equal(rule.status, 201, rule.text)
  const spending = await app.request('POST', '/api/v1/rules', {
    body: { name: 'Spending', query: 'amount:<0 source:csv', labels: { flow: 'out' } },
  })
  assert.equal(spending.status, 201, spending.text)

  const mark = await headSequence(app)
  const run = await syncNow(app)
  assert.deepEqual(run.counts.csv, { inserted: 3, updated: 0, unchanged: 0, skipped: 0 })
  const rows = Object.fromEntries(
    (await allTransactions(app, 'csv:checking')).map((r: Json) => [r.payee, r]),
  )
  assert.deepEqual(rows['Starbucks #1'].labels, { category: 'coffee', flow: 'out' })
  assert.deepEqual(rows['Starbucks #1'].extensions, { 'merchant.name': 'Starbucks' })
  assert.deepEqual(rows.Grocer.labels, { flow: 'out' })
  assert.deepEqual(rows.Employer.labels, {})

  const events = await eventsAfter(app, mark)
  const coffee = rows['Starbucks #1']
  const ofCoffee = events.filter((e: Json) => e.entity_id === coffee.id)
  assert.deepEqual(
    ofCoffee.map((e: Json) => [e.type, e.data.change?.key ?? null]),
    [
      ['transaction.created', null],
      ['label.applied', 'category'],
      ['label.applied', 'flow'],
      ['extension.set', 'merchant.name'],
    ],
  )
  assert.deepEqual(ofCoffee[0].data, coffee)
  assert.equal(events.filter((e: Json) => e.type === 'rule.executed').length, 0)
  const versions = await app.request(
    'GET',
    `/api/v1/transactions/${encodeURIComponent(coffee.id)}/history`,
  )
  assert.deepEqual(
    versions.body.versions.map((v: Json) => [v.kind, v.snapshot]),
    [['imported', coffee]],
  )

  // An unchanged re-sync: no transaction event at all (only the run's own).
  const mark2 = await headSequence(app)
  const again = await syncNow(app)
  assert.deepEqual(again.counts.csv, { inserted: 0, updated: 0, unchanged: 3, skipped: 0 })
  assert.deepEqual(
    (await eventsAfter(app, mark2)).map((e: Json) => e.type),
    ['sync.completed'],
  )

  // A new row in the next file is born labelled too.
  writeFileSync(
    join(root, 'Checking', 'april.csv'),
    'Date,Description,Payee,Amount\n2024-04-01,Card purchase,STARBUCKS,-5.00\n',
  )
  const third = await syncNow(app)
  assert.deepEqual(third.counts.csv, { inserted: 1, updated: 0, unchanged: 3, skipped: 0 })
  const april = (await allTransactions(app, 'csv:checking')).find(
    (r: Json) => r.payee === 'STARBUCKS',
  )
  assert.deepEqual(april.labels, { category: 'coffee', flow: 'out' })
})

// The example plugins of examples/plugins/ (docs/plugins.md), copied into the
// test app's plugins.dir as a user would install them, enabled, and driven
// through REST: their hooks run in the real sandbox, fed from the event log.
import assert from 'node:assert/strict'
import { cpSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { startTestApp, type TestApp } from './helpers/app.js'
import { headSequence } from './helpers/ledger.js'
import { newAccount, newTransaction } from './helpers/plugins.js'

const TOKEN = 'plugin-examples-token-0123456789abcdef'
const auth = { token: TOKEN }
const EXAMPLES = fileURLToPath(new URL('../examples/plugins/', import.meta.url))

/** Copies an example into plugins.dir and enables it. */
async function install(app: TestApp, name: string): Promise<void> {
  const dir = app.ctx.config.plugins.dir
  mkdirSync(dir, { recursive: true })
  cpSync(join(EXAMPLES, name), join(dir, name), { recursive: true })
  const res = await app.request('POST', `/api/v1/plugins/${name}/enable`, auth)
  assert.equal(res.status, 200, res.text)
  assert.equal(res.body.state, 'loaded', res.text)
  assert.equal(res.body.last_error, null)
}

/** Resolves once the plugin's hooks dealt with every event written so far. */
async function settled(app: TestApp, name: string): Promise<void> {
  await app.plugins.manager.whenHandled(name, await headSequence(app, auth))
}

const account = (app: TestApp) => newAccount(app, TOKEN)
const transaction = (app: TestApp, body: Record<string, unknown>) =>
  newTransaction(app, TOKEN, body)

async function labelsOf(app: TestApp, id: string): Promise<Record<string, string>> {
  const res = await app.request('GET', `/api/v1/transactions/${id}`, auth)
  assert.equal(res.status, 200, res.text)
  return res.body.labels as Record<string, string>
}

test('merchant-labels labels by merchant on create and update, once', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  await install(app, 'merchant-labels')
  const acct = await account(app)
  const starbucks = await transaction(app, {
    account_id: acct,
    amount: '-4.10',
    description: 'STARBUCKS #123',
  })
  const byPayee = await transaction(app, {
    account_id: acct,
    amount: '-5.00',
    description: 'Card payment',
    payee: 'Blue Bottle Coffee',
  })
  const other = await transaction(app, {
    account_id: acct,
    amount: '-30.00',
    description: 'Hardware store',
  })
  await settled(app, 'merchant-labels')
  assert.deepEqual(await labelsOf(app, starbucks), { category: 'coffee', merchant: 'starbucks' })
  assert.deepEqual(await labelsOf(app, byPayee), { category: 'coffee', merchant: 'blue bottle' })
  assert.deepEqual(await labelsOf(app, other), {})

  // An edit that names a merchant is labelled by onTransactionUpdate.
  const edited = await app.request('PUT', `/api/v1/transactions/${other}`, {
    ...auth,
    body: { description: 'NETFLIX.COM' },
  })
  assert.equal(edited.status, 200, edited.text)
  // An edit that keeps the merchant leaves the labels alone: no second write.
  const memo = await app.request('PUT', `/api/v1/transactions/${starbucks}`, {
    ...auth,
    body: { memo: 'team coffee' },
  })
  assert.equal(memo.status, 200, memo.text)
  await settled(app, 'merchant-labels')
  assert.deepEqual(await labelsOf(app, other), {
    category: 'subscriptions',
    merchant: 'netflix',
  })

  const history = await app.request('GET', `/api/v1/transactions/${starbucks}/history`, auth)
  const versions = history.body.versions as Array<{ kind: string; actor?: string }>
  assert.deepEqual(
    versions.map((v) => [v.kind, v.actor ?? null]),
    [
      ['imported', null],
      ['labeled', 'plugin:merchant-labels'],
      ['edited', null],
    ],
  )
  const provenance = await app.request('GET', `/api/v1/transactions/${starbucks}/provenance`, auth)
  const labeled = (provenance.body.transformations as Array<{ kind: string; summary: string }>)
    .filter((x) => x.kind === 'labeled')
    .map((x) => x.summary)
  assert.deepEqual(labeled, [
    '+label category:coffee; +label merchant:starbucks (by plugin merchant-labels)',
  ])

  const plugin = await app.request('GET', '/api/v1/plugins/merchant-labels', auth)
  assert.equal(plugin.body.last_status, 'ok', plugin.text)
  assert.equal(plugin.body.last_error, null)
})

test('spending-stats renders exact sums and its form changes the query', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const acct = await account(app)
  // The exact sum keeps the scale of its terms: -8.00 (a float sum would show -8).
  await transaction(app, { account_id: acct, amount: '-3.25', description: 'Coffee B' })
  await transaction(app, { account_id: acct, amount: '-0.65', description: 'Coffee C' })
  await transaction(app, { account_id: acct, amount: '-4.10', description: 'Coffee A' })
  await transaction(app, { account_id: acct, amount: '2500.00', description: 'Salary' })
  await install(app, 'spending-stats')

  const pages = await app.request('GET', '/api/v1/plugins/pages', auth)
  assert.deepEqual(pages.body, {
    pages: [
      { name: 'spending-stats', plugin: 'spending-stats', title: 'Spending stats', icon: '📊' },
    ],
  })

  const form = (query: string) => ({
    type: 'form',
    id: 'query',
    fields: [{ name: 'query', label: 'Search query', kind: 'text', value: query }],
    submit_label: 'Show',
  })
  const refresh = { type: 'actions', actions: [{ id: 'refresh', label: 'Refresh' }] }

  const page = await app.request('GET', '/api/v1/plugins/pages/spending-stats', auth)
  assert.equal(page.status, 200, page.text)
  assert.deepEqual(page.body, {
    name: 'spending-stats',
    page: {
      title: 'Spending stats',
      blocks: [
        { type: 'heading', text: 'Transactions matching amount:<0' },
        { type: 'stat', label: 'Matches', value: '3', hint: 'all of them' },
        { type: 'stat', label: 'Sum', value: '-8.00', hint: `account ${acct}` },
        { type: 'divider' },
        { type: 'heading', text: 'The 3 largest' },
        {
          type: 'table',
          columns: ['Date', 'Description', 'Account', 'Amount'],
          rows: [
            ['2026-11-01', 'Coffee A', acct, '-4.10'],
            ['2026-11-01', 'Coffee B', acct, '-3.25'],
            ['2026-11-01', 'Coffee C', acct, '-0.65'],
          ],
        },
        { type: 'divider' },
        form('amount:<0'),
        refresh,
      ],
    },
  })

  // The form's action stores the query and answers the page for it.
  const acted = await app.request('POST', '/api/v1/plugins/pages/spending-stats/action', {
    ...auth,
    body: { id: 'query', params: { query: 'salary' } },
  })
  assert.equal(acted.status, 200, acted.text)
  const blocks = acted.body.page.blocks as Array<Record<string, unknown>>
  assert.deepEqual(blocks[0], { type: 'heading', text: 'Transactions matching salary' })
  assert.deepEqual(blocks[1], { type: 'stat', label: 'Matches', value: '1', hint: 'all of them' })
  assert.deepEqual(blocks[2], {
    type: 'stat',
    label: 'Sum',
    value: '2500.00',
    hint: `account ${acct}`,
  })
  assert.deepEqual(blocks.at(-2), form('salary'))

  // Kept in config: the next render uses it.
  const again = await app.request('GET', '/api/v1/plugins/pages/spending-stats', auth)
  assert.deepEqual(again.body, acted.body)

  // A blank query is refused on the page itself; the stored one stays.
  const blank = await app.request('POST', '/api/v1/plugins/pages/spending-stats/action', {
    ...auth,
    body: { id: 'query', params: { query: '  ' } },
  })
  assert.equal(blank.status, 200, blank.text)
  assert.deepEqual(blank.body.page.blocks.slice(0, 2), [
    { type: 'text', text: 'Type a search query first.' },
    { type: 'heading', text: 'Transactions matching salary' },
  ])
  const plugin = await app.request('GET', '/api/v1/plugins/spending-stats', auth)
  assert.equal(plugin.body.last_status, 'ok', plugin.text)
})

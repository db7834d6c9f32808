// The transaction pages (issue 13, item 3) in Chromium against a real `coffer
// serve`: a manual transaction created, edited, labelled, extended with exact
// JSON, related, its history and provenance read, then deleted; a synced CSV row
// that explains why it cannot be edited; the list's label and extension filters
// kept in the address bar; and a read key that sees no write control.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test, type TestContext } from 'node:test'
import type { Page } from 'playwright-core'
import { closeBrowser, openDashboard, serve, writeFixture, type Serve } from '../helpers/browser.js'

after(closeBrowser)

const TOKEN = 'web-test-dashboard-token-0123456789'

async function createAccount(server: Serve, name: string, token?: string): Promise<string> {
  const res = await server.request('POST', '/api/v1/accounts', {
    body: { name, currency: 'USD' },
    ...(token ? { token } : {}),
  })
  assert.equal(res.status, 201, res.text)
  return res.body.id as string
}

async function createTransaction(
  server: Serve,
  body: Record<string, unknown>,
  token?: string,
): Promise<string> {
  const res = await server.request('POST', '/api/v1/transactions', {
    body,
    ...(token ? { token } : {}),
  })
  assert.equal(res.status, 201, res.text)
  return res.body.id as string
}

async function getTransaction(server: Serve, id: string) {
  const res = await server.request('GET', `/api/v1/transactions/${encodeURIComponent(id)}`)
  return res
}

/** Waits until `check` passes (the page saves asynchronously). */
async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      await check()
      return
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

const tab = (page: Page, name: string) => page.getByRole('tab', { name, exact: true })

test('a manual transaction: created, edited, labelled, extended exactly, related, its history read, deleted', async (t) => {
  const server = await serve(t)
  const accountId = await createAccount(server, 'Everyday')
  const otherId = await createTransaction(server, {
    account_id: accountId,
    amount: '250.00',
    date: '2024-05-20',
    description: 'Store refund',
  })
  const dash = await openDashboard(t, server)
  const { page } = dash

  // Create through the form; a malformed amount is caught before it is sent.
  await dash.goto('/transactions')
  await page.getByRole('link', { name: 'New transaction' }).click()
  await page.getByRole('heading', { name: 'New transaction' }).waitFor()
  await page.getByLabel('Account').selectOption({ label: 'Everyday (USD)' })
  await page.getByLabel('Amount (USD)').fill('$1,234.50')
  await page.getByLabel('Date').fill('2024-05-02')
  await page.getByLabel('Description').fill('Hardware store')
  await page.getByLabel('Payee').fill('Acme Tools')
  await page.getByLabel('Memo').fill('drill and bits')
  await page.getByRole('button', { name: 'Create transaction' }).click()
  await page.getByText('Write the amount as digits').waitFor()
  assert.equal(new URL(page.url()).pathname, '/transactions/new')
  await dash.screenshot('transaction-new')
  await page.getByLabel('Amount (USD)').fill('-1234.50')
  await page.getByRole('button', { name: 'Create transaction' }).click()
  await page.getByRole('heading', { name: 'Hardware store' }).waitFor()
  const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!)
  const created = (await getTransaction(server, id)).body
  assert.equal(created.amount, '-1234.50')
  assert.equal(created.source, 'manual')
  assert.equal(created.payee, 'Acme Tools')
  assert.equal(created.memo, 'drill and bits')
  assert.equal(created.date, '2024-05-02T00:00:00Z')
  // The account is linked.
  assert.equal(
    await page.getByRole('link', { name: 'Everyday' }).getAttribute('href'),
    `/accounts/${encodeURIComponent(accountId)}`,
  )
  await dash.phone('/transactions/new', 'transaction-new')

  // Edit: only what changed is sent; the rest stays.
  await page.getByRole('button', { name: 'Edit' }).click()
  const editDialog = page.getByRole('dialog', { name: 'Edit transaction' })
  await editDialog.waitFor()
  await editDialog.getByLabel('Amount (USD)').fill('-1300.00')
  await editDialog.getByLabel('Description').fill('Hardware store (tools)')
  await editDialog.getByRole('button', { name: 'Save changes' }).click()
  await page.getByRole('heading', { name: 'Hardware store (tools)' }).waitFor()
  const edited = (await getTransaction(server, id)).body
  assert.equal(edited.amount, '-1300.00')
  assert.equal(edited.payee, 'Acme Tools')
  assert.equal(edited.description, 'Hardware store (tools)')

  // Labels: added, then one changed and one removed; PUT replaces the set.
  await tab(page, 'Labels').click()
  await page.getByRole('button', { name: 'Add label' }).click()
  await page.getByLabel('Label 1 key').fill('Category')
  await page.getByLabel('Label 1 value').fill('home')
  await page.getByRole('button', { name: 'Add label' }).click()
  await page.getByLabel('Label 2 key').fill('project')
  await page.getByLabel('Label 2 value').fill('garage')
  await page.getByRole('button', { name: 'Save labels' }).click()
  await eventually(async () =>
    assert.deepEqual((await getTransaction(server, id)).body.labels, {
      category: 'home',
      project: 'garage',
    }),
  )
  // Keys come back lower-cased and the editor shows what was saved.
  await eventually(async () =>
    assert.equal(await page.getByLabel('Label 1 key').inputValue(), 'category'),
  )
  await page.getByRole('button', { name: 'Remove label project' }).click()
  await page.getByLabel('Label 1 value').fill('diy')
  await page.getByRole('button', { name: 'Save labels' }).click()
  await eventually(async () =>
    assert.deepEqual((await getTransaction(server, id)).body.labels, { category: 'diy' }),
  )

  // Extensions: the text typed is what is sent. A number no double holds is
  // refused by the service (had the page parsed and re-serialized it, it would
  // have been rounded to 12345678901234567000 and accepted silently).
  await tab(page, 'Extensions').click()
  const editor = page.getByLabel('Extensions (JSON object)')
  await editor.fill('{"ref.big": 12345678901234567890}')
  await page.getByText('is more precise than a JSON number holds').waitFor()
  await page.getByRole('button', { name: 'Save extensions' }).click()
  const refused = page.getByRole('alert').filter({ hasText: 'The extensions were not saved' })
  await refused.waitFor()
  assert.match((await refused.textContent()) ?? '', /12345678901234567890 cannot be kept exactly/)
  assert.deepEqual((await getTransaction(server, id)).body.extensions, {})
  // Not JSON: said before anything is sent.
  await editor.fill('{"tax.rate": 0.075,}')
  await page.getByText('Not valid JSON').waitFor()
  assert.equal(await page.getByRole('button', { name: 'Save extensions' }).isDisabled(), true)
  // A number whose spelling is not kept is pointed out.
  await editor.fill('{"tax.rate": 1.10}')
  await page.getByText('will read back as 1.1').waitFor()
  const exact =
    '{"tax.deductible": true, "tax.rate": 0.075, "ref.big": "12345678901234567890",' +
    ' "ref.amount": "1.10", "ref.max": 9007199254740991, "ref.exact": 12345678901234567000,' +
    ' "custom.app.meta": {"nested": [1, "two", false, null, -0.5]}, "custom.app.none": null}'
  await editor.fill(exact)
  await page.getByRole('button', { name: 'Save extensions' }).click()
  await page.getByText('Extensions saved.').waitFor()
  const raw = (await getTransaction(server, id)).text
  for (const piece of [
    '"ref.big":"12345678901234567890"',
    '"ref.amount":"1.10"',
    '"ref.max":9007199254740991',
    '"ref.exact":12345678901234567000',
    '"tax.rate":0.075',
    '"tax.deductible":true',
    '"custom.app.meta":{"nested":[1,"two",false,null,-0.5]}',
    '"custom.app.none":null',
  ]) {
    assert.ok(raw.includes(piece), `${piece} in ${raw}`)
  }
  await dash.screenshot('transaction-extensions')

  // Relationships: one added (seen inbound on its target), one added and removed.
  await tab(page, 'Relationships').click()
  await page.getByLabel('Kind').fill('refund')
  await page.getByLabel('Target transaction id').fill(otherId)
  await page.getByRole('button', { name: 'Add relationship' }).click()
  await page.getByRole('link', { name: otherId }).waitFor()
  await page.getByLabel('Kind').fill('duplicate')
  await page.getByLabel('Target transaction id').fill(otherId)
  await page.getByRole('button', { name: 'Add relationship' }).click()
  await page.getByRole('button', { name: `Remove duplicate relationship to ${otherId}` }).click()
  await eventually(async () => {
    const edges = await server.request(
      'GET',
      `/api/v1/transactions/${encodeURIComponent(id)}/relationships`,
    )
    assert.deepEqual(edges.body.relationships, [
      { kind: 'refund', direction: 'outbound', transaction_id: otherId },
    ])
  })
  // A bad kind is explained, and the service's 400 for an unknown target shown.
  await page.getByLabel('Kind').fill('refund')
  await page.getByLabel('Target transaction id').fill('no-such-transaction')
  await page.getByRole('button', { name: 'Add relationship' }).click()
  await page.getByRole('alert').filter({ hasText: 'The relationship was not changed' }).waitFor()
  await dash.screenshot('transaction-relationships')

  await page.getByRole('link', { name: otherId }).click()
  await page.getByRole('heading', { name: 'Store refund' }).waitFor()
  await tab(page, 'Relationships').click()
  const inbound = page.getByRole('region', { name: 'Inbound (to this transaction)' })
  await inbound.getByRole('link', { name: id }).waitFor()
  await inbound.getByText('refund').waitFor()
  await page.goBack()
  await page.getByRole('heading', { name: 'Hardware store (tools)' }).waitFor()

  // History: each version with its diff, from → to.
  await tab(page, 'History').click()
  await page.getByRole('heading', { name: /Version 1: Imported/ }).waitFor()
  const amountRow = page.getByRole('row', { name: /^amount changed/ })
  assert.match((await amountRow.textContent()) ?? '', /-1234\.50.*-1300\.00/)
  const removed = page.getByRole('row', { name: /^labels\.project removed/ })
  assert.match((await removed.textContent()) ?? '', /garage.*none/)
  await page.getByRole('row', { name: /^extensions\.ref\.big added/ }).waitFor()
  // An extension set to JSON null is a value, told apart from "none" (absent).
  const nullRow = page.getByRole('row', { name: /^extensions\.custom\.app\.none added/ })
  assert.match((await nullRow.textContent()) ?? '', /none.*null/)
  assert.equal(await page.getByRole('heading', { name: /Version \d+: Edited/ }).count(), 1)
  assert.equal(new URL(page.url()).searchParams.get('tab'), 'history')
  await dash.screenshot('transaction-history')
  await dash.phone(`/transactions/${encodeURIComponent(id)}?tab=history`, 'transaction-history')

  // Provenance.
  await tab(page, 'Provenance').click()
  await page.getByText('imported from manual').waitFor()
  await page.getByText('amount -1234.50 → -1300.00').waitFor()
  await dash.screenshot('transaction-detail')
  await dash.phone(`/transactions/${encodeURIComponent(id)}`, 'transaction-detail')

  // Delete: asked first; Cancel keeps it.
  await page.getByRole('button', { name: 'Delete' }).click()
  const confirm = page.getByRole('dialog', { name: 'Delete this transaction?' })
  await confirm.getByRole('button', { name: 'Cancel' }).click()
  assert.equal((await getTransaction(server, id)).status, 200)
  await page.getByRole('button', { name: 'Delete' }).click()
  await confirm.getByRole('button', { name: 'Delete transaction' }).click()
  await page.getByRole('heading', { name: 'Transactions' }).waitFor()
  assert.equal((await getTransaction(server, id)).status, 404)
  await page.getByRole('link', { name: 'Store refund' }).waitFor()
  assert.equal(await page.getByRole('link', { name: /Hardware store/ }).count(), 0)
})

/** A CSV folder with one file, and the SERVICE_* variable that points a source at it. */
function csvFolder(t: TestContext): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-web-csv-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  writeFixture(
    dir,
    'may.csv',
    'date,amount,description,payee\n2024-05-03,-42.10,Grocery run,Corner Market\n',
  )
  return {
    SERVICE_CSV_FOLDERS: JSON.stringify([{ name: 'Bank', path: dir, account: 'Bank' }]),
  }
}

async function syncAndWait(server: Serve): Promise<void> {
  const started = await server.request('POST', '/api/v1/sync')
  assert.equal(started.status, 202, started.text)
  await eventually(async () => {
    const latest = (await server.request('GET', '/api/v1/sync')).body.latest
    assert.ok(latest && latest.status !== 'running', JSON.stringify(latest))
    assert.equal(latest.status, 'success', JSON.stringify(latest))
  }, 30_000)
}

test('a synced row says its source owns it instead of offering edit and delete; its labels still change', async (t) => {
  const server = await serve(t, csvFolder(t))
  await syncAndWait(server)
  const list = await server.request('GET', '/api/v1/transactions')
  const row = list.body.transactions.find(
    (x: { description: string }) => x.description === 'Grocery run',
  )
  assert.ok(row, list.text)
  assert.equal(row.source, 'csv')

  const dash = await openDashboard(t, server)
  const { page } = dash
  await dash.goto('/transactions')
  await page.getByRole('link', { name: 'Grocery run' }).click()
  await page.getByRole('heading', { name: 'Grocery run' }).waitFor()
  await page.getByText('comes from the csv source, which owns its fields').waitFor()
  assert.equal(await page.getByRole('button', { name: 'Edit' }).count(), 0)
  assert.equal(await page.getByRole('button', { name: 'Delete' }).count(), 0)
  // The service agrees: a direct edit is a 409.
  const refused = await server.request('PUT', `/api/v1/transactions/${row.id}`, {
    body: { amount: '1.00' },
  })
  assert.equal(refused.status, 409)

  await page.getByRole('button', { name: 'Add label' }).click()
  await page.getByLabel('Label 1 key').fill('category')
  await page.getByLabel('Label 1 value').fill('groceries')
  await page.getByRole('button', { name: 'Save labels' }).click()
  await eventually(async () =>
    assert.deepEqual((await getTransaction(server, row.id)).body.labels, {
      category: 'groceries',
    }),
  )
  await tab(page, 'Provenance').click()
  await page.getByText('imported from csv').waitFor()
  await dash.screenshot('transaction-synced')
  await dash.phone(`/transactions/${encodeURIComponent(row.id)}`, 'transaction-synced')
})

test('the list filters by label and extension, kept in the address bar; the syntax help is complete', async (t) => {
  const server = await serve(t)
  const account = await createAccount(server, 'Everyday')
  const seed = async (description: string, labels: object, extensions: object) => {
    const id = await createTransaction(server, {
      account_id: account,
      amount: '-10.00',
      date: '2024-05-02',
      description,
    })
    await server.request('PUT', `/api/v1/transactions/${id}/labels`, { body: { labels } })
    await server.request('PUT', `/api/v1/transactions/${id}/extensions`, {
      body: { extensions },
    })
  }
  await seed('Lunch out', { category: 'food' }, { 'tax.deductible': false })
  await seed('Client dinner', { category: 'food' }, { 'tax.deductible': true })
  await seed('Train ticket', { category: 'travel' }, { 'tax.deductible': true })
  await seed('Cash withdrawal', {}, {})

  const dash = await openDashboard(t, server)
  const { page } = dash
  const shown = async () =>
    (await page.locator('table.transactions tbody').getByRole('link').allTextContents()).sort()

  await dash.goto('/transactions')
  await page.getByRole('link', { name: 'Cash withdrawal' }).waitFor()
  await page.getByLabel('Label', { exact: true }).selectOption('category')
  await page.getByLabel('Label value').selectOption('food')
  await eventually(async () => assert.deepEqual(await shown(), ['Client dinner', 'Lunch out']))
  let url = new URL(page.url())
  assert.equal(url.searchParams.get('label_key'), 'category')
  assert.equal(url.searchParams.get('label_value'), 'food')

  await page.getByLabel('Extension', { exact: true }).selectOption('tax.deductible')
  await page.getByLabel('Extension value').fill('true')
  await page.getByLabel('Extension value').press('Enter')
  await eventually(async () => assert.deepEqual(await shown(), ['Client dinner']))
  url = new URL(page.url())
  assert.equal(url.searchParams.get('ext_key'), 'tax.deductible')
  assert.equal(url.searchParams.get('ext_value'), 'true')

  // A reload (or a shared link) keeps every filter.
  await page.reload()
  await page.waitForLoadState('networkidle')
  await eventually(async () => assert.deepEqual(await shown(), ['Client dinner']))
  assert.equal(await page.getByLabel('Extension', { exact: true }).inputValue(), 'tax.deductible')
  assert.equal(await page.getByLabel('Extension value').inputValue(), 'true')
  assert.equal(await page.getByLabel('Label value').inputValue(), 'food')

  // The search text combines with the filter; its OR stays inside it.
  await page.getByLabel('Label', { exact: true }).selectOption('')
  const box = page.getByRole('searchbox', { name: 'Search transactions' })
  await box.fill('lunch OR train')
  await box.press('Enter')
  await eventually(async () => assert.deepEqual(await shown(), ['Train ticket']))
  // An error in the text is shown at its own offset (7, its end), not at one of
  // the query sent with the filter, `(train () ext:…`, which fails elsewhere.
  await box.fill('train (')
  await box.press('Enter')
  const error = page.locator('.query-input').getByRole('alert')
  await error.waitFor()
  assert.match((await error.textContent()) ?? '', /at offset 7$/)

  await box.fill('')
  await box.press('Enter')
  await eventually(async () => assert.deepEqual(await shown(), ['Client dinner', 'Train ticket']))
  await page.getByRole('button', { name: 'Syntax' }).click()
  const help = page.getByRole('region', { name: 'Search syntax' })
  for (const example of ['related:<id>', 'rel:refund', 'pending:true', 'synced:2024-06']) {
    await help.getByText(example, { exact: false }).first().waitFor()
  }
  await dash.screenshot('transactions-list')
  const phone = await dash.phone(
    '/transactions?ext_key=tax.deductible&ext_value=true',
    'transactions-list',
    async (p) => {
      await p.getByRole('link', { name: 'Train ticket' }).waitFor()
      await p.getByRole('button', { name: 'Syntax' }).click()
    },
  )
  assert.deepEqual(
    await phone.evaluate('document.documentElement.scrollWidth <= window.innerWidth'),
    true,
    'nothing overflows sideways on a phone',
  )

  await page.getByRole('button', { name: 'Clear filters' }).click()
  await eventually(async () => assert.equal((await shown()).length, 4))
  assert.equal(new URL(page.url()).search, '')
})

test('a read key sees the transaction but no write control, and why once', async (t) => {
  const server = await serve(t, { SERVICE_DASHBOARD_TOKEN: TOKEN })
  const account = await createAccount(server, 'Everyday', TOKEN)
  const id = await createTransaction(
    server,
    { account_id: account, amount: '-3.00', date: '2024-05-02', description: 'Coffee' },
    TOKEN,
  )
  await server.request('PUT', `/api/v1/transactions/${id}/extensions`, {
    token: TOKEN,
    body: { extensions: { 'tax.rate': 0.2 } },
  })
  const key = await server.request('POST', '/api/v1/security/api-keys', {
    token: TOKEN,
    body: { name: 'viewer', scope: 'read' },
  })
  const dash = await openDashboard(t, server, { token: key.body.key })
  const { page } = dash
  await dash.goto(`/transactions/${encodeURIComponent(id)}`)
  await page.getByRole('heading', { name: 'Coffee' }).waitFor()
  assert.equal(await page.getByText('Read-only:').count(), 1)
  for (const name of ['Edit', 'Delete', 'Add label', 'Save labels']) {
    assert.equal(await page.getByRole('button', { name }).count(), 0, name)
  }
  await tab(page, 'Extensions').click()
  await page.getByText('"tax.rate": 0.2').waitFor()
  assert.equal(await page.getByRole('textbox').count(), 0)
  await tab(page, 'Relationships').click()
  await page.getByRole('heading', { name: 'Outbound (from this transaction)' }).waitFor()
  assert.equal(await page.getByRole('button', { name: 'Add relationship' }).count(), 0)
  await dash.screenshot('transaction-read-only')

  await dash.goto('/transactions/new')
  await page.getByText('Read-only:').waitFor()
  assert.equal(await page.getByRole('button', { name: 'Create transaction' }).count(), 0)
})

test('accounts made by another client show by name, and are offered, without a reload', async (t) => {
  const server = await serve(t)
  await createAccount(server, 'Everyday')
  const dash = await openDashboard(t, server)
  const { page } = dash
  await dash.goto('/transactions')
  await page.getByText('No transactions match.').waitFor()

  // Another client adds an account and a row in it while the page is open.
  const brokerage = await server.request('POST', '/api/v1/accounts', {
    body: { name: 'Brokerage', currency: 'EUR' },
  })
  assert.equal(brokerage.status, 201, brokerage.text)
  await createTransaction(server, {
    account_id: brokerage.body.id,
    amount: '12.34',
    date: '2024-05-01',
    description: 'Dividend',
  })
  // The list reloads (a search): the new row names its account and currency.
  const box = page.getByRole('searchbox', { name: 'Search transactions' })
  await box.fill('Dividend')
  await box.press('Enter')
  await page.getByRole('link', { name: 'Dividend' }).waitFor()
  await page.getByText('Brokerage', { exact: true }).waitFor({ timeout: 5000 })
  await page.getByText('EUR', { exact: true }).waitFor()
  assert.equal(await page.getByText(brokerage.body.id as string).count(), 0)

  // Another account, then "New transaction" (no reload): it is offered.
  await createAccount(server, 'Savings')
  await page.getByRole('link', { name: 'New transaction' }).click()
  await page.waitForURL((url) => url.pathname === '/transactions/new')
  const select = page.getByLabel('Account', { exact: true })
  await select
    .locator('option', { hasText: 'Savings' })
    .waitFor({ state: 'attached', timeout: 5000 })
})

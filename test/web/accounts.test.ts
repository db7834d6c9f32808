// The accounts pages (issue 13, item 4) in Chromium: accounts grouped by
// organization with exact totals, a manual account created, edited and deleted
// (with its transactions), a synced CSV account that says why it cannot be
// changed, and an account's transactions paged forward and back by cursor.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import type { Page } from 'playwright-core'
import { sumDecimals, totalsByCurrency } from '../../web/src/pages/accounts/balance-totals.js'
import { closeBrowser, openDashboard, serve, writeFixture, type Serve } from '../helpers/browser.js'

after(closeBrowser)

const TOKEN = 'web-test-dashboard-token-0123456789'

test('balance totals are exact decimal sums, per currency', () => {
  assert.equal(sumDecimals(['0.1', '0.2']), '0.3')
  assert.equal(sumDecimals(['0.10', '0.20']), '0.30')
  assert.equal(sumDecimals(['1.5', '-2.25', '3']), '2.25')
  assert.equal(sumDecimals(['-0.5', '0.25']), '-0.25')
  assert.equal(sumDecimals(['.5', '5.']), '5.5')
  assert.equal(sumDecimals([]), '0')
  assert.equal(
    sumDecimals(['9007199254740993.000000000000000001', '1']),
    '9007199254740994.000000000000000001',
  )
  assert.equal(sumDecimals(['1', 'abc']), null)
  // Balances of the longest amounts total past 64 characters, still exactly.
  assert.equal(sumDecimals(['9'.repeat(64), '1']), `1${'0'.repeat(64)}`)
  assert.deepEqual(
    totalsByCurrency([
      { currency: 'USD', balance: '0.10' },
      { currency: 'EUR', balance: '5' },
      { currency: 'USD', balance: '0.20' },
    ]),
    [
      ['EUR', '5'],
      ['USD', '0.30'],
    ],
  )
})

async function createAccount(server: Serve, name: string, currency: string, balance: string) {
  const created = await server.request('POST', '/api/v1/accounts', {
    body: { name, currency, balance },
  })
  assert.equal(created.status, 201, created.text)
  return created.body.id as string
}

async function addTransactions(server: Serve, accountId: string, count: number, label: string) {
  for (let i = 1; i <= count; i++) {
    const day = String(1 + (i % 28)).padStart(2, '0')
    const month = String(1 + Math.floor(i / 28)).padStart(2, '0')
    const created = await server.request('POST', '/api/v1/transactions', {
      body: {
        account_id: accountId,
        amount: `-${i}.25`,
        date: `2024-${month}-${day}`,
        description: `${label} ${String(i).padStart(3, '0')}`,
      },
    })
    assert.equal(created.status, 201, created.text)
  }
}

async function waitForSync(server: Serve): Promise<void> {
  const started = await server.request('POST', '/api/v1/sync')
  assert.equal(started.status, 202, started.text)
  const deadline = Date.now() + 30_000
  for (;;) {
    const latest = await server.request('GET', '/api/v1/sync')
    const run = latest.body.latest
    if (run && run.id === started.body.run_id && run.status !== 'running') {
      assert.equal(run.status, 'success', JSON.stringify(run))
      return
    }
    assert.ok(Date.now() < deadline, 'the sync did not finish')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The row of an account in the table of its organization. */
const accountRow = (page: Page, name: string) =>
  page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) })

test('accounts: grouped with exact totals; a manual account created, edited, paged and deleted; a synced one explained', async (t) => {
  const csvRoot = mkdtempSync(join(tmpdir(), 'coffer-web-csv-'))
  t.after(() => rmSync(csvRoot, { recursive: true, force: true }))
  const folder = join(csvRoot, 'checking')
  writeFixture(
    folder,
    'march.csv',
    'date,amount,description\n2024-03-01,-12.50,Bakery\n2024-03-02,1500.00,Salary\n',
  )
  const server = await serve(t, {
    SERVICE_CSV_FOLDERS: JSON.stringify([
      {
        name: 'Hometown Checking',
        account: 'Hometown Checking',
        path: folder,
        org: 'Hometown Bank',
        currency: 'USD',
      },
    ]),
  })
  await waitForSync(server)

  // Two USD balances whose float sum is 0.30000000000000004: the total must read 0.30.
  const everyday = await createAccount(server, 'Everyday', 'USD', '0.10')
  await createAccount(server, 'Spare change', 'USD', '0.20')
  await addTransactions(server, everyday, 120, 'Purchase')
  const temp = await createAccount(server, 'Old wallet', 'USD', '0')
  await addTransactions(server, temp, 3, 'Wallet')

  const dash = await openDashboard(t, server)
  const { page } = dash
  await dash.goto('/accounts')
  await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor()

  // Grouped by organization; the manual organization's exact USD total.
  await page.getByRole('heading', { name: 'Manual', level: 2 }).waitFor()
  await page.getByRole('heading', { name: 'Hometown Bank', level: 2 }).waitFor()
  const manualTotal = page.getByLabel('Total of Manual')
  assert.equal((await manualTotal.textContent())?.replace(/\s+/g, ' '), 'Total0.30 USD')

  // The synced account: its balance, its source, no Edit or Delete, and why.
  const checking = accountRow(page, 'Hometown Checking')
  await checking.getByText('csv', { exact: true }).waitFor()
  assert.equal(await checking.getByRole('button').count(), 0)
  await checking.getByText('Owned by its source').waitFor()
  await dash.screenshot('accounts')

  // Create a manual account.
  await page.getByRole('button', { name: 'New account' }).click()
  const dialog = page.getByRole('dialog', { name: 'New account' })
  await dialog.getByLabel('Name').fill('Holiday fund')
  await dialog.getByLabel('Currency').fill('EUR')
  await dialog.getByLabel('Starting balance').fill('1000.10')
  await dash.screenshot('accounts-new')
  await dialog.getByRole('button', { name: 'Create account' }).click()
  await dialog.waitFor({ state: 'hidden' })
  const holiday = accountRow(page, 'Holiday fund')
  await holiday.getByText('1,000.10').waitFor()
  await holiday.getByText('EUR').waitFor()
  const list = await server.request('GET', '/api/v1/accounts?limit=1000')
  const created = list.body.accounts.find((a: { name: string }) => a.name === 'Holiday fund')
  assert.deepEqual(
    { currency: created.currency, balance: created.balance, source: created.source },
    { currency: 'EUR', balance: '1000.10', source: 'manual' },
  )

  // A bad balance is refused with the service's reason, in the dialog.
  await page.getByRole('button', { name: 'Edit Holiday fund' }).click()
  const edit = page.getByRole('dialog', { name: 'Edit Holiday fund' })
  await edit.getByLabel('Balance').fill('12,5')
  await edit.getByRole('button', { name: 'Save' }).click()
  await edit.getByRole('alert').getByText('balance').first().waitFor()
  await dash.screenshot('accounts-edit-error')

  // Edit it: name, currency and balance.
  await edit.getByLabel('Name').fill('Holiday')
  await edit.getByLabel('Currency').fill('USD')
  await edit.getByLabel('Balance').fill('-25.5')
  await edit.getByRole('button', { name: 'Save' }).click()
  await edit.waitFor({ state: 'hidden' })
  await accountRow(page, 'Holiday').getByText('−25.5').waitFor()
  const edited = await server.request('GET', `/api/v1/accounts/${encodeURIComponent(created.id)}`)
  assert.deepEqual(
    { name: edited.body.name, currency: edited.body.currency, balance: edited.body.balance },
    { name: 'Holiday', currency: 'USD', balance: '-25.5' },
  )
  // Three USD balances now: 0.10 + 0.20 - 25.5 + 0 = -25.20.
  assert.equal((await manualTotal.textContent())?.replace(/\s+/g, ' '), 'Total−25.20 USD')

  // Delete an account with transactions: the confirmation says they go with it.
  await page.getByRole('button', { name: 'Delete Old wallet' }).click()
  const confirm = page.getByRole('dialog', { name: 'Delete account?' })
  await confirm.getByText('Its 3 transactions are deleted with it.').waitFor()
  await dash.screenshot('accounts-delete')
  await confirm.getByRole('button', { name: 'Delete account' }).click()
  await confirm.waitFor({ state: 'hidden' })
  await page.getByRole('link', { name: 'Old wallet', exact: true }).waitFor({ state: 'detached' })
  assert.equal((await server.request('GET', `/api/v1/accounts/${temp}`)).status, 404)
  const left = await server.request('GET', '/api/v1/transactions/search?q=Wallet')
  assert.equal(left.body.total, 0)

  await dash.phone('/accounts', 'accounts')
  await dash.phone('/accounts', 'accounts-new', async (phone) => {
    await phone.getByRole('button', { name: 'New account' }).click()
    await phone.getByRole('dialog', { name: 'New account' }).getByLabel('Name').waitFor()
  })

  // An account's page: its fields, and its 120 transactions over three pages.
  await page.getByRole('link', { name: 'Everyday', exact: true }).click()
  await page.getByRole('heading', { name: 'Everyday', level: 1 }).waitFor()
  assert.equal(new URL(page.url()).pathname, `/accounts/${everyday}`)
  await page.getByText('1–50 of 120 rows').waitFor()
  const pager = page.getByRole('navigation', { name: 'Pages' })
  const firstPage = await page.getByRole('link', { name: /^Purchase / }).allTextContents()
  assert.equal(firstPage.length, 50)
  // Newest first: the latest dates lead.
  assert.equal(firstPage[0], 'Purchase 120')
  await dash.screenshot('account')

  await pager.getByRole('button', { name: 'Next' }).click()
  await page.getByText('51–100 of 120 rows').waitFor()
  const secondPage = await page.getByRole('link', { name: /^Purchase / }).allTextContents()
  assert.equal(secondPage.length, 50)
  assert.equal(secondPage.filter((d) => firstPage.includes(d)).length, 0, 'pages overlap')

  await pager.getByRole('button', { name: 'Next' }).click()
  await page.getByText('101–120 of 120 rows').waitFor()
  const thirdPage = await page.getByRole('link', { name: /^Purchase / }).allTextContents()
  assert.equal(thirdPage.length, 20)
  assert.ok(await pager.getByRole('button', { name: 'Next' }).isDisabled())
  assert.equal(new Set([...firstPage, ...secondPage, ...thirdPage]).size, 120)

  await pager.getByRole('button', { name: 'Previous' }).click()
  await page.getByText('51–100 of 120 rows').waitFor()
  assert.deepEqual(
    await page.getByRole('link', { name: /^Purchase / }).allTextContents(),
    secondPage,
  )
  await pager.getByRole('button', { name: 'First' }).click()
  await page.getByText('1–50 of 120 rows').waitFor()
  await dash.phone(`/accounts/${everyday}`, 'account')

  // The synced account's page: its balance and transactions, no Edit, and why.
  await dash.goto('/accounts/csv%3Ahometown-checking')
  await page.getByRole('heading', { name: 'Hometown Checking', level: 1 }).waitFor()
  await page
    .getByRole('note')
    .getByText(/Synced from csv/)
    .waitFor()
  assert.equal(await page.getByRole('button', { name: 'Edit account' }).count(), 0)
  await page.getByRole('link', { name: 'Salary' }).waitFor()
  await page.getByText('1–2 of 2 rows').waitFor()
  await dash.screenshot('account-synced')
  await dash.phone('/accounts/csv%3Ahometown-checking', 'account-synced')

  // An unknown account says so.
  await dash.goto('/accounts/nope')
  await page.getByRole('alert').getByText('No such account').waitFor()
})

test('accounts with a read key: no create, edit or delete, and the reason', async (t) => {
  const server = await serve(t, { SERVICE_DASHBOARD_TOKEN: TOKEN })
  const key = await server.request('POST', '/api/v1/security/api-keys', {
    token: TOKEN,
    body: { name: 'viewer', scope: 'read' },
  })
  const created = await server.request('POST', '/api/v1/accounts', {
    token: TOKEN,
    body: { name: 'Everyday', currency: 'USD', balance: '10' },
  })
  // In dark mode, so that the screenshot shows it.
  const dash = await openDashboard(t, server, { token: key.body.key, colorScheme: 'dark' })
  const { page } = dash
  await dash.goto('/accounts')
  await accountRow(page, 'Everyday').getByText('10').waitFor()
  await page
    .getByRole('note')
    .getByText(/read-only/i)
    .waitFor()
  assert.equal(await page.getByRole('button', { name: 'New account' }).count(), 0)
  assert.equal(await page.getByRole('button', { name: 'Edit Everyday' }).count(), 0)
  assert.equal(await page.getByRole('button', { name: /^Delete/ }).count(), 0)
  await dash.screenshot('accounts-read-only')

  await dash.goto(`/accounts/${created.body.id}`)
  await page.getByRole('heading', { name: 'Everyday', level: 1 }).waitFor()
  assert.equal(await page.getByRole('button', { name: 'Edit account' }).count(), 0)
})

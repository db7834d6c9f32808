// The transaction list's order toggle (issue 13 item 3) in Chromium: "Oldest
// first" reverses the list, lives in the address bar as ?order=asc (so a reload
// or a shared link keeps it), pages by cursor in that order, survives a filter
// change, and works from the keyboard and on a phone.
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { closeBrowser, openDashboard, serve } from '../helpers/browser.js'

after(closeBrowser)

const TOKEN = 'web-sort-order-dashboard-token-0123456789'
const ROWS = 60 // more than one page of 50

test('the list sorts newest first or oldest first, kept in the address', async (t) => {
  const server = await serve(t, { SERVICE_DASHBOARD_TOKEN: TOKEN })
  const account = await server.request('POST', '/api/v1/accounts', {
    token: TOKEN,
    body: { name: 'Everyday', currency: 'USD' },
  })
  for (let i = 1; i <= ROWS; i++) {
    const day = new Date(Date.UTC(2024, 0, i)).toISOString().slice(0, 10)
    const made = await server.request('POST', '/api/v1/transactions', {
      token: TOKEN,
      body: {
        account_id: account.body.id,
        amount: `-${i}.00`,
        date: day,
        description: `Purchase ${String(i).padStart(2, '0')}`,
      },
    })
    assert.equal(made.status, 201)
  }
  const dash = await openDashboard(t, server, { token: TOKEN })
  const { page } = dash
  const order = page.getByRole('group', { name: 'Sort order' })
  const newest = order.getByRole('button', { name: 'Newest first' })
  const oldest = order.getByRole('button', { name: 'Oldest first' })
  const firstLink = () => page.getByRole('link', { name: /^Purchase \d\d$/ }).first()
  const firstRow = () => firstLink().textContent()
  // The list shown until the new page arrives may hold the awaited row further
  // down: wait for it at the top.
  const untilFirst = (name: string) => firstLink().filter({ hasText: name }).waitFor()

  await dash.goto('/transactions')
  assert.equal(await newest.getAttribute('aria-pressed'), 'true')
  assert.equal(await oldest.getAttribute('aria-pressed'), 'false')
  assert.equal(await firstRow(), 'Purchase 60')
  await dash.screenshot('sort-order-newest')

  await oldest.click()
  await page.waitForURL(/[?&]order=asc\b/)
  await untilFirst('Purchase 01')
  assert.equal(await firstRow(), 'Purchase 01')
  assert.equal(await oldest.getAttribute('aria-pressed'), 'true')
  await dash.screenshot('sort-order-oldest')

  // The next page continues oldest first (by its cursor).
  await page.getByRole('button', { name: 'Next' }).click()
  await untilFirst('Purchase 51')
  assert.equal(await firstRow(), 'Purchase 51')
  assert.equal(await page.getByRole('link', { name: 'Purchase 50' }).count(), 0)

  // The page is in the address too: back from a transaction, and after a
  // reload, the list is where it was; Previous still goes back a page.
  const secondPage = page.getByText('51–60 of 60 rows')
  await secondPage.waitFor()
  await page.getByRole('link', { name: 'Purchase 55' }).click()
  await page.waitForURL(/\/transactions\/[^?]+$/)
  await page.goBack()
  await secondPage.waitFor()
  await untilFirst('Purchase 51')
  await page.reload()
  await secondPage.waitFor()
  await untilFirst('Purchase 51')
  await page.getByRole('button', { name: 'Previous' }).click()
  await page.getByText('1–50 of 60 rows').waitFor()
  await untilFirst('Purchase 01')
  await page.getByRole('button', { name: 'Next' }).click()
  await untilFirst('Purchase 51')

  // Kept across a reload (it is in the address); a filter keeps it too, from the first page.
  await page.reload()
  await page.getByRole('link', { name: 'Purchase 51' }).waitFor()
  assert.equal(await oldest.getAttribute('aria-pressed'), 'true')
  await page.getByLabel('From').fill('2024-02-01')
  await page.waitForURL(/since=2024-02-01/)
  assert.match(page.url(), /[?&]order=asc\b/)
  await untilFirst('Purchase 32')
  assert.equal(await firstRow(), 'Purchase 32')

  // From the keyboard: back to newest first, and the address is bare of order again.
  await newest.focus()
  await page.keyboard.press('Enter')
  await page.waitForURL((url) => !url.search.includes('order='))
  await untilFirst('Purchase 60')
  assert.equal(await firstRow(), 'Purchase 60')
  assert.equal(await newest.getAttribute('aria-pressed'), 'true')

  await dash.phone('/transactions?order=asc', 'sort-order', async (phone) => {
    await phone.getByRole('link', { name: 'Purchase 01' }).waitFor()
  })
})

// The dashboard's first run and sign-in (issue 13, item 2) in Chromium: no token
// (pages work, the first token is created from the browser on loopback), a
// configured token (sign-in screen), and a read key (no write controls).
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { closeBrowser, openDashboard, serve } from '../helpers/browser.js'

after(closeBrowser)

const TOKEN = 'web-test-dashboard-token-0123456789'

test('without a token: pages work, admin explains, the first token is created from the browser', async (t) => {
  const server = await serve(t)
  const account = await server.request('POST', '/api/v1/accounts', {
    body: { name: 'Everyday', currency: 'USD' },
  })
  await server.request('POST', '/api/v1/transactions', {
    body: {
      account_id: account.body.id,
      amount: '-4.50',
      date: '2024-05-02',
      description: 'Corner coffee',
    },
  })
  const dash = await openDashboard(t, server)
  const { page } = dash

  await dash.goto('/')
  assert.equal(new URL(page.url()).pathname, '/transactions')
  await page.getByRole('heading', { name: 'Transactions' }).waitFor()
  await page.getByRole('link', { name: 'Corner coffee' }).waitFor()
  assert.equal(await page.getByText('−4.50').count(), 1)
  await dash.screenshot('first-run-transactions')

  await dash.goto('/setup')
  await page.getByRole('heading', { name: 'Set up the dashboard token' }).waitFor()
  await dash.screenshot('first-run-setup')
  await page.getByRole('button', { name: 'Create a dashboard token' }).click()
  await page.getByRole('heading', { name: 'Dashboard token created' }).waitFor()
  const token = (await page.locator('.secret code').textContent()) ?? ''
  assert.ok(token.length >= 16, token)
  // Signed in with it at once (the badge says so), and Continue goes on to the dashboard.
  await page.getByText('Dashboard token', { exact: true }).waitFor({ timeout: 5000 })
  assert.equal(await page.getByText('Read & write', { exact: true }).count(), 0)
  await page.getByRole('button', { name: 'Continue' }).click()
  await page.waitForURL((url) => url.pathname === '/transactions')
  await page.getByRole('heading', { name: 'Transactions' }).waitFor()
  assert.equal(await page.getByText(token).count(), 0)
  await page.getByText('Dashboard token', { exact: true }).waitFor()

  // The service now requires it: an anonymous call is refused, the token is accepted.
  assert.equal((await server.request('GET', '/api/v1/accounts')).status, 401)
  assert.equal((await server.request('GET', '/api/v1/accounts', { token })).status, 200)
})

test('with a token: the sign-in screen refuses a wrong one and accepts the right one', async (t) => {
  const server = await serve(t, { SERVICE_DASHBOARD_TOKEN: TOKEN })
  const dash = await openDashboard(t, server)
  const { page } = dash
  await dash.goto('/transactions')
  await page.getByRole('heading', { name: 'Sign in to Coffer' }).waitFor()
  await dash.screenshot('sign-in')
  await dash.phone('/transactions', 'sign-in')

  await page.getByLabel('Token or API key').fill('not-the-token-at-all')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('alert').waitFor()
  assert.match(
    (await page.getByRole('alert').textContent()) ?? '',
    /neither the dashboard token nor/,
  )

  await page.getByLabel('Token or API key').fill(TOKEN)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Transactions' }).waitFor()
  await page.getByText('Dashboard token', { exact: true }).waitFor()

  // Kept across a reload; signing out forgets it.
  await page.reload()
  await page.getByRole('heading', { name: 'Transactions' }).waitFor()
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('heading', { name: 'Sign in to Coffer' }).waitFor()
})

test('during the lockout for failed sign-ins, the right token is told to wait, not refused', async (t) => {
  const server = await serve(t, { SERVICE_DASHBOARD_TOKEN: TOKEN, SERVICE_AUTH_MAX_FAILURES: '2' })
  // Failed attempts from this address use up its budget.
  for (let i = 0; i < 3; i++) {
    await server.request('GET', '/api/v1/accounts', { token: `wrong-${i}` })
  }
  const dash = await openDashboard(t, server)
  const { page } = dash
  await dash.goto('/transactions')
  await page.getByLabel('Token or API key').fill(TOKEN)
  await page.getByRole('button', { name: 'Sign in' }).click()
  const alert = page.getByRole('alert')
  await alert.waitFor()
  const text = (await alert.textContent()) ?? ''
  assert.match(text, /too many failed authentications from this address; try again in \d+ s/)
  assert.doesNotMatch(text, /neither the dashboard token nor/)
})

test('a read key gets a read-only interface', async (t) => {
  const server = await serve(t, { SERVICE_DASHBOARD_TOKEN: TOKEN })
  const key = await server.request('POST', '/api/v1/security/api-keys', {
    token: TOKEN,
    body: { name: 'viewer', scope: 'read' },
  })
  assert.equal(key.status, 201)
  const writer = await server.request('POST', '/api/v1/security/api-keys', {
    token: TOKEN,
    body: { name: 'writer', scope: 'read_write' },
  })

  const dash = await openDashboard(t, server, { token: key.body.key })
  const { page } = dash
  await dash.goto('/transactions')
  await page.getByText('Read only', { exact: true }).waitFor()
  assert.equal(await page.getByRole('link', { name: 'New transaction' }).count(), 0)
  await dash.screenshot('read-key-transactions')

  const writerDash = await openDashboard(t, server, { token: writer.body.key })
  await writerDash.goto('/transactions')
  await writerDash.page.getByText('Read & write', { exact: true }).waitFor()
  assert.equal(await writerDash.page.getByRole('link', { name: 'New transaction' }).count(), 1)
})

test('a search with a syntax error is shown inline at its offset', async (t) => {
  const server = await serve(t)
  const dash = await openDashboard(t, server)
  const { page } = dash
  await dash.goto('/transactions')
  const box = page.getByRole('searchbox', { name: 'Search transactions' })
  await box.fill('coffee (amount:<0')
  await box.press('Enter')
  const alert = page.locator('.query-error')
  await alert.waitFor()
  assert.match((await alert.textContent()) ?? '', /offset \d+|parenthesis/)
  assert.equal(new URL(page.url()).searchParams.get('q'), 'coffee (amount:<0')
  await dash.screenshot('search-error')
})

test('under a refused search, the rows of the previous one are not left as if they matched', async (t) => {
  const server = await serve(t)
  const account = await server.request('POST', '/api/v1/accounts', {
    body: { name: 'Everyday', currency: 'USD' },
  })
  assert.equal(account.status, 201)
  const made = await server.request('POST', '/api/v1/transactions', {
    body: {
      account_id: account.body.id,
      amount: '-4.50',
      date: '2024-05-01',
      description: 'Coffee',
    },
  })
  assert.equal(made.status, 201)
  const dash = await openDashboard(t, server)
  const { page } = dash
  await dash.goto('/transactions?q=coffee')
  const row = page.getByRole('link', { name: 'Coffee' })
  await row.waitFor()
  const box = page.getByRole('searchbox', { name: 'Search transactions' })
  await box.fill('amount:<abc')
  await box.press('Enter')
  await page.locator('.query-error').waitFor()
  await row.waitFor({ state: 'detached' })
  assert.equal(await page.getByText(/of 1 row/).count(), 0)
  await dash.screenshot('search-error-no-rows')
  // Put right, the matches are back.
  await box.fill('coffee')
  await box.press('Enter')
  await row.waitFor()
})

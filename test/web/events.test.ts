// The events page (issue 13 item 7) in Chromium against a real `coffer serve`:
// the live tail picks up a transaction created through the API while the page
// is open, pause holds new events back until resume, the type and entity
// filters (kept in the address bar) narrow it, a click shows the envelope, and
// a service with the event log off says so.
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Locator } from 'playwright-core'
import { closeBrowser, openDashboard, serve, type Serve } from '../helpers/browser.js'

after(closeBrowser)

/** The text of one column of the table's body rows, read as a person reads cells. */
async function column(table: Locator, index: number): Promise<string[]> {
  const rows = await table.getByRole('row').all()
  const texts: string[] = []
  for (const row of rows.slice(1))
    texts.push(((await row.getByRole('cell').nth(index).textContent()) ?? '').trim())
  return texts
}

async function createTransaction(server: Serve, accountId: string, description: string) {
  const created = await server.request('POST', '/api/v1/transactions', {
    body: { account_id: accountId, amount: '-12.30', date: '2024-06-01', description },
  })
  assert.equal(created.status, 201)
  return created.body.id as string
}

test('the live tail shows new events, pauses, filters by type and entity, and opens an envelope', async (t) => {
  const server = await serve(t)
  const account = await server.request('POST', '/api/v1/accounts', {
    body: { name: 'Everyday', currency: 'USD' },
  })
  assert.equal(account.status, 201)
  const first = await createTransaction(server, account.body.id, 'Before the page')

  const dash = await openDashboard(t, server)
  const { page } = dash
  await dash.goto('/events')
  await page.getByText(/^Live: new events appear within 2 s\./).waitFor()
  const table = page.getByRole('table')
  await table.getByRole('row').filter({ hasText: first }).waitFor()
  await table.getByRole('row').filter({ hasText: 'account.created' }).waitFor()

  // Created while the page is open: it appears by the next poll (every 2 s).
  const second = await createTransaction(server, account.body.id, 'While the page is open')
  const arrived = table.getByRole('row').filter({ hasText: second })
  await arrived.waitFor({ timeout: 6000 })
  assert.match((await arrived.textContent()) ?? '', /transaction\.created/)
  // Newest first.
  assert.match((await table.getByRole('row').nth(1).textContent()) ?? '', new RegExp(second))
  await dash.screenshot('events-live')

  // Paused: nothing new is fetched; resumed: it catches up at once.
  await page.getByRole('button', { name: 'Pause' }).click()
  await page.getByText(/^Paused: new events are not fetched/).waitFor()
  const third = await createTransaction(server, account.body.id, 'While paused')
  await page.waitForTimeout(4500)
  assert.equal(await table.getByRole('row').filter({ hasText: third }).count(), 0)
  await page.getByRole('button', { name: 'Resume' }).click()
  await table.getByRole('row').filter({ hasText: third }).waitFor({ timeout: 6000 })

  // A hidden tab asks nothing; shown again, it catches up at once.
  const polls: string[] = []
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/api/v1/events') polls.push(request.url())
  })
  const setVisibility = (state: 'hidden' | 'visible') =>
    page.evaluate(`(() => {
      Object.defineProperty(document, 'visibilityState', { value: '${state}', configurable: true })
      document.dispatchEvent(new Event('visibilitychange'))
    })()`)
  await setVisibility('hidden')
  await page.getByText('Paused while this tab is in the background.').waitFor()
  polls.length = 0
  const fourth = await createTransaction(server, account.body.id, 'While hidden')
  await page.waitForTimeout(4500)
  assert.deepEqual(polls, [], 'no polling while the tab is hidden')
  await setVisibility('visible')
  await table.getByRole('row').filter({ hasText: fourth }).waitFor({ timeout: 3000 })

  // Filter by type: only account events remain, and the URL says so.
  await page.getByLabel('Type').selectOption('account.created')
  await page.waitForURL(/\/events\?type=account\.created$/)
  // The unfiltered table leaves first (its rows hold the account's event too),
  // then the filtered one arrives: waiting the other way round can pass on the
  // old table and read the new tail while it is still loading. (`first()`:
  // several rows match, and the first of none is detached.)
  await table
    .getByRole('row')
    .filter({ hasText: 'transaction.created' })
    .first()
    .waitFor({ state: 'detached' })
  await table.getByRole('row').filter({ hasText: account.body.id }).waitFor()
  assert.deepEqual(await column(table, 1), ['account.created'])
  // ...and new events of another type do not enter the filtered tail.
  await createTransaction(server, account.body.id, 'Filtered out')
  await page.waitForTimeout(2500)
  assert.deepEqual(await column(table, 1), ['account.created'])

  // Clicking the event shows its whole envelope.
  await table.getByRole('button', { name: /^account\.created/ }).click()
  const dialog = page.getByRole('dialog', { name: /^Event \d+$/ })
  await dialog.waitFor()
  const envelope = JSON.parse(
    (await dialog.getByRole('region', { name: 'Envelope' }).textContent()) ?? '',
  )
  assert.equal(envelope.type, 'account.created')
  assert.equal(envelope.entity_type, 'account')
  assert.equal(envelope.entity_id, account.body.id)
  assert.equal(envelope.data.name, 'Everyday')
  assert.match(envelope.event_id, /^[0-9a-f-]{36}$/)
  await dash.screenshot('events-envelope')
  await page.keyboard.press('Escape')
  await dialog.waitFor({ state: 'hidden' })

  // The entity filter from the address bar: one transaction's events only.
  await dash.goto(`/events?entity_type=transaction&entity_id=${encodeURIComponent(first)}`)
  assert.equal(await page.getByLabel('Entity id').inputValue(), first)
  await table.getByRole('row').filter({ hasText: first }).first().waitFor()
  const entities = await column(table, 2)
  assert.ok(entities.length >= 1)
  assert.deepEqual([...new Set(entities)], [`transaction ${first}`])
  await dash.screenshot('events-entity')

  await dash.phone('/events', 'events', async (phone) => {
    await phone.getByRole('table').getByRole('row').filter({ hasText: second }).waitFor()
  })
  await dash.phone('/events', 'events-envelope', async (phone) => {
    await phone.getByRole('button', { name: /^account\.created/ }).click()
    await phone.getByRole('dialog').getByRole('region', { name: 'Envelope' }).waitFor()
  })
})

test('with the event log turned off, the page says so', async (t) => {
  const server = await serve(t, { SERVICE_EVENTS_ENABLED: 'false' })
  const dash = await openDashboard(t, server)
  const { page } = dash
  await dash.goto('/events')
  await page.getByText('The event log is turned off on this service').waitFor()
  assert.equal(await page.getByRole('table').count(), 0)
  assert.equal(await page.getByRole('button', { name: 'Pause' }).count(), 0)
  await dash.screenshot('events-disabled')
  await dash.phone('/events', 'events-disabled')
})

test('while the event log cannot be read, the page says it is reconnecting, not live', async (t) => {
  const server = await serve(t)
  const dash = await openDashboard(t, server)
  const { page } = dash
  await dash.goto('/events')
  const live = page.getByText(/^Live: new events appear within 2 s\./)
  await live.waitFor()

  // The service answers its polls with a 500 for a while (a restart, a proxy down).
  await page.route('**/api/v1/events?**', (route) =>
    route.fulfill({
      status: 500,
      contentType: 'application/problem+json',
      body: JSON.stringify({ type: 'about:blank', title: 'Internal Server Error', status: 500 }),
    }),
  )
  await page.getByText('Could not read the event log').waitFor({ timeout: 6000 })
  await page.getByText(/^Reconnecting: the event log could not be read/).waitFor()
  assert.equal(await live.count(), 0)
  await dash.screenshot('events-reconnecting')

  // Back: live again, the error gone.
  await page.unroute('**/api/v1/events?**')
  await live.waitFor({ timeout: 10_000 })
  assert.equal(await page.getByText('Could not read the event log').count(), 0)
})

// The admin pages (issue 13 item 8) in Chromium: webhooks created, tested
// against a receiver on 127.0.0.1 (the delivery arrives and its signature
// verifies with the secret the page showed once), rotated, edited and deleted;
// an API key minted, shown once, used and revoked; and the same pages without
// a dashboard token and with a read key, where they say why they are refused.
import assert from 'node:assert/strict'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, test, type TestContext } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import { EVENT_TYPES } from '../../src/events/types.js'
import { closeBrowser, openDashboard, serve } from '../helpers/browser.js'

after(closeBrowser)

const TOKEN = 'web-admin-test-dashboard-token-0123456789'

interface Delivery {
  headers: IncomingHttpHeaders
  body: string
}

/** A webhook receiver outside the service: records each POST, answers `status`. */
async function receiver(t: TestContext) {
  const deliveries: Delivery[] = []
  const state = { status: 200 }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      deliveries.push({
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      })
      response.writeHead(state.status, { 'content-type': 'text/plain' }).end('thanks')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/hook`, deliveries, state }
}

/** SPEC 4.8: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>" with the secret>. */
function signatureVerifies(delivery: Delivery, secret: string): boolean {
  const timestamp = String(delivery.headers['x-service-timestamp'])
  const sent = String(delivery.headers['x-service-signature'])
  const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${delivery.body}`).digest('hex')}`
  return (
    sent.length === expected.length && timingSafeEqual(Buffer.from(sent), Buffer.from(expected))
  )
}

/** Whether the element has the keyboard focus. */
function hasFocus(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element === element.ownerDocument.activeElement)
}

async function until<T>(what: string, probe: () => T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The secret (or key) a "shown once" dialog displays, found by its label. */
async function shownOnce(page: Page, title: string, label: string): Promise<string> {
  const dialog = page.getByRole('dialog', { name: title })
  await dialog.waitFor()
  await dialog.getByText('you will not see it again').waitFor()
  return ((await dialog.getByLabel(label, { exact: true }).textContent()) ?? '').trim()
}

test('webhooks: created with chosen types, tested against a receiver, rotated, disabled, deleted', async (t) => {
  const hook = await receiver(t)
  const server = await serve(t, { SERVICE_DASHBOARD_TOKEN: TOKEN })
  const dash = await openDashboard(t, server, { token: TOKEN })
  const { page } = dash

  await dash.goto('/webhooks')
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
  await page.getByText('No webhooks yet.').waitFor()

  // The checklist offers exactly the service's event types.
  await page.getByRole('button', { name: 'New webhook' }).click()
  const form = page.getByRole('dialog', { name: 'New webhook' })
  await form.getByLabel('URL that receives the deliveries').fill(hook.url)
  const offered = await form
    .getByRole('checkbox')
    .evaluateAll((boxes) => boxes.map((box) => box.closest('label')?.textContent?.trim() ?? ''))
  assert.deepEqual(offered.slice(1), [...EVENT_TYPES])
  await form.getByLabel('All events, including types added in later versions').uncheck()
  assert.equal(await form.getByRole('button', { name: 'Create webhook' }).isDisabled(), true)
  await form.getByLabel('account.created').check()
  await form.getByLabel('transaction.created').check()
  await dash.screenshot('webhooks-new')
  await form.getByRole('button', { name: 'Create webhook' }).click()

  const secret = await shownOnce(page, 'Webhook created', 'Signing secret')
  assert.match(secret, /^whsec_/)
  await dash.screenshot('webhooks-secret')
  await page.getByRole('button', { name: 'I have copied it' }).click()
  // Shown once: gone from the page, and no answer of the service carries it again.
  assert.equal(await page.getByText(secret).count(), 0)
  const listed = await server.request('GET', '/api/v1/webhooks', { token: TOKEN })
  assert.equal(listed.text.includes(secret), false)
  assert.deepEqual(listed.body.webhooks[0].event_types, ['transaction.created', 'account.created'])

  const card = page.getByRole('article', { name: hook.url })
  await card.getByText('unused', { exact: true }).waitFor()
  assert.equal(await card.getByText('account.created').count(), 1)

  // A test delivery: the page reports it, the receiver got it, signed with the secret shown.
  await card.getByRole('button', { name: 'Send test' }).click()
  const result = card.getByRole('status')
  await result.getByText('Test delivered').waitFor()
  assert.match((await result.textContent()) ?? '', /HTTP 200 in \d[\d,]* ms/)
  await card.getByText('healthy', { exact: true }).waitFor()
  assert.equal(hook.deliveries.length, 1)
  const test1 = hook.deliveries[0]!
  assert.equal(test1.headers['x-service-event'], 'webhook.test')
  assert.equal(JSON.parse(test1.body).type, 'webhook.test')
  assert.ok(signatureVerifies(test1, secret), 'the test delivery is signed with the secret shown')

  // The receiver fails: the test says so, and the health reads "failing since…".
  hook.state.status = 500
  await card.getByRole('button', { name: 'Send test' }).click()
  await result.getByText('Test not delivered').waitFor()
  assert.match((await result.textContent()) ?? '', /HTTP 500/)
  await card.getByText('failing', { exact: true }).waitFor()
  await card.getByText(/^Failing since its last successful delivery/).waitFor()
  await card.getByText('HTTP 500', { exact: true }).first().waitFor()
  await dash.screenshot('webhooks-failing')
  await dash.phone('/webhooks', 'webhooks')
  await dash.phone('/webhooks', 'webhooks-edit', async (phone) => {
    await phone.getByRole('button', { name: 'Edit' }).click()
    await phone
      .getByRole('dialog', { name: 'Edit webhook' })
      .getByLabel('account.created')
      .waitFor()
  })

  // Rotate: confirmed, a new secret shown once; the old one no longer verifies.
  hook.state.status = 200
  await card.getByRole('button', { name: 'Rotate secret' }).click()
  const confirmRotate = page.getByRole('dialog', { name: 'Rotate the signing secret?' })
  await confirmRotate.getByText('stops verifying at once').waitFor()
  await dash.screenshot('webhooks-rotate-confirm')
  await confirmRotate.getByRole('button', { name: 'Rotate secret' }).click()
  const rotated = await shownOnce(page, 'New signing secret', 'Signing secret')
  assert.match(rotated, /^whsec_/)
  assert.notEqual(rotated, secret)
  await page.getByRole('button', { name: 'I have copied it' }).click()
  // Focus goes back to the button that started it all, not to the page's body.
  assert.equal(await hasFocus(card.getByRole('button', { name: 'Rotate secret' })), true)
  const before = hook.deliveries.length
  await card.getByRole('button', { name: 'Send test' }).click()
  await result.getByText('Test delivered').waitFor()
  const test2 = hook.deliveries[before]!
  assert.equal(test2.headers['x-service-event'], 'webhook.test')
  assert.ok(signatureVerifies(test2, rotated))
  assert.equal(signatureVerifies(test2, secret), false)

  // Real events: a subscribed type is delivered, signed with the new secret; an
  // unsubscribed one is not (deliveries go out in log order, so once the second
  // account.created has arrived, the account.updated before it would have).
  const account = await server.request('POST', '/api/v1/accounts', {
    token: TOKEN,
    body: { name: 'Everyday', currency: 'USD' },
  })
  assert.equal(account.status, 201)
  await server.request('PUT', `/api/v1/accounts/${account.body.id}`, {
    token: TOKEN,
    body: { name: 'Everyday spending' },
  })
  await server.request('POST', '/api/v1/accounts', {
    token: TOKEN,
    body: { name: 'Savings', currency: 'USD' },
  })
  const createdEvents = await until('two account.created deliveries', () => {
    const found = hook.deliveries.filter((d) => d.headers['x-service-event'] === 'account.created')
    return found.length >= 2 ? found : undefined
  })
  for (const delivery of createdEvents) assert.ok(signatureVerifies(delivery, rotated))
  assert.deepEqual(
    hook.deliveries.map((d) => d.headers['x-service-event']).filter((e) => e !== 'webhook.test'),
    ['account.created', 'account.created'],
    'account.updated is not among the chosen types',
  )

  // Edit: every event, and disabled.
  await card.getByRole('button', { name: 'Edit' }).click()
  const edit = page.getByRole('dialog', { name: 'Edit webhook' })
  assert.equal(await edit.getByLabel('URL that receives the deliveries').inputValue(), hook.url)
  assert.equal(await edit.getByLabel('account.created').isChecked(), true)
  assert.equal(await edit.getByLabel('account.updated').isChecked(), false)
  await edit.getByLabel('All events, including types added in later versions').check()
  await edit.getByLabel(/^Enabled/).uncheck()
  await edit.getByRole('button', { name: 'Save changes' }).click()
  await card.getByText('disabled', { exact: true }).waitFor()
  await card.getByText('All events', { exact: true }).waitFor()
  const stored = await server.request('GET', '/api/v1/webhooks', { token: TOKEN })
  assert.equal(stored.body.webhooks[0].enabled, false)
  assert.deepEqual(stored.body.webhooks[0].event_types, ['*'])
  // …and enabled again by its own button.
  await card.getByRole('button', { name: 'Enable' }).click()
  await card.getByRole('button', { name: 'Disable' }).waitFor()
  await card.getByText('healthy', { exact: true }).waitFor()

  // A refused URL is explained in the form, and nothing is created.
  await page.getByRole('button', { name: 'New webhook' }).click()
  await form.getByLabel('URL that receives the deliveries').fill('http://user:pw@127.0.0.1/x')
  await form.getByRole('button', { name: 'Create webhook' }).click()
  const refusal = form.getByRole('alert')
  await refusal.filter({ hasText: 'must not contain a user name or password' }).waitFor()
  // Said once: the field's message is the detail, not repeated as a list beneath it.
  assert.equal(
    ((await refusal.textContent()) ?? '').split('must not contain a user name or password').length,
    2,
  )
  assert.equal(
    await form.getByLabel('URL that receives the deliveries').getAttribute('aria-invalid'),
    'true',
  )
  await form.getByRole('button', { name: 'Cancel' }).click()

  // Delete: confirmed, gone from the page and from the service.
  await card.getByRole('button', { name: 'Delete' }).click()
  const confirmDelete = page.getByRole('dialog', { name: 'Delete this webhook?' })
  await confirmDelete.getByRole('button', { name: 'Delete webhook' }).click()
  await page.getByText('No webhooks yet.').waitFor()
  assert.equal(await card.count(), 0)
  const none = await server.request('GET', '/api/v1/webhooks', { token: TOKEN })
  assert.deepEqual(none.body.webhooks, [])
})

test('API keys: minted and shown once, it works, revoked it is refused', async (t) => {
  const server = await serve(t, { SERVICE_DASHBOARD_TOKEN: TOKEN })
  const dash = await openDashboard(t, server, { token: TOKEN })
  const { page } = dash

  await dash.goto('/keys')
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
  await page.getByText('No API keys yet.', { exact: false }).waitFor()
  await page.getByLabel('Name').fill('spreadsheet export')
  await page.getByRole('radio', { name: /^Read & write/ }).check()
  await page.getByRole('button', { name: 'Mint key' }).click()

  const key = await shownOnce(page, 'API key created', 'API key')
  await dash.screenshot('keys-created')
  await page.getByRole('button', { name: 'I have copied it' }).click()
  // Focus goes back to the form (its Mint button is disabled until a new name).
  assert.equal(await hasFocus(page.getByLabel('Name')), true)
  assert.equal(await page.getByText(key).count(), 0)

  // The key works against the API, with the scope chosen.
  assert.equal((await server.request('GET', '/api/v1/accounts', { token: key })).status, 200)
  const write = await server.request('POST', '/api/v1/accounts', {
    token: key,
    body: { name: 'Cash', currency: 'EUR' },
  })
  assert.equal(write.status, 201)

  // Listed by name, prefix and scope, never the key; used just now.
  await page.reload()
  const row = page.getByRole('row', { name: /spreadsheet export/ })
  await row.waitFor()
  const prefix = ((await row.getByRole('cell').nth(1).textContent()) ?? '').replace('…', '')
  assert.ok(prefix.length >= 8 && key.startsWith(prefix), `${prefix} is the start of the key`)
  assert.equal(await page.getByText(key).count(), 0)
  await row.getByText('Read & write', { exact: true }).waitFor()
  await row.getByText('just now').waitFor()
  await dash.screenshot('keys')
  await dash.phone('/keys', 'keys')
  const dark = await openDashboard(t, server, { token: TOKEN, colorScheme: 'dark' })
  await dark.goto('/keys')
  await dark.page.getByRole('row', { name: /spreadsheet export/ }).waitFor()
  await dark.screenshot('keys-dark')

  // Revoked (after a confirmation): the key is refused from then on.
  await row.getByRole('button', { name: 'Revoke spreadsheet export' }).click()
  const confirm = page.getByRole('dialog', { name: 'Revoke this API key?' })
  await confirm.getByText('stops working at once').waitFor()
  await dash.screenshot('keys-revoke-confirm')
  await confirm.getByRole('button', { name: 'Revoke key' }).click()
  await page.getByText('No API keys yet.', { exact: false }).waitFor()
  assert.equal((await server.request('GET', '/api/v1/accounts', { token: key })).status, 401)
})

test('without a dashboard token the admin pages explain instead of failing', async (t) => {
  const server = await serve(t)
  const dash = await openDashboard(t, server)
  const { page } = dash
  for (const [path, heading, name] of [
    ['/webhooks', 'Webhooks', 'no-token-webhooks'],
    ['/keys', 'API keys', 'no-token-keys'],
  ] as const) {
    await dash.goto(path)
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
    const note = page.getByRole('note')
    await note
      .getByText('Admin features need a dashboard token, and none is configured yet.')
      .waitFor()
    await note.getByRole('link', { name: 'How to set up the dashboard token' }).waitFor()
    assert.equal(await page.getByRole('button', { name: 'New webhook' }).count(), 0)
    assert.equal(await page.getByRole('button', { name: 'Mint key' }).count(), 0)
    await dash.screenshot(name)
    await dash.phone(path, name)
  }
})

test('a read key sees the admin pages refused, with the reason', async (t) => {
  const server = await serve(t, { SERVICE_DASHBOARD_TOKEN: TOKEN })
  const key = await server.request('POST', '/api/v1/security/api-keys', {
    token: TOKEN,
    body: { name: 'viewer', scope: 'read' },
  })
  assert.equal(key.status, 201)
  // The service refuses it too: the page says what the API would answer.
  assert.equal(
    (await server.request('GET', '/api/v1/webhooks', { token: key.body.key })).status,
    403,
  )

  const dash = await openDashboard(t, server, { token: key.body.key })
  const { page } = dash
  for (const [path, heading, name] of [
    ['/webhooks', 'Webhooks', 'read-key-webhooks'],
    ['/keys', 'API keys', 'read-key-keys'],
  ] as const) {
    await dash.goto(path)
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
    await page
      .getByRole('note')
      .getByText('Admin features need the dashboard token; API keys never reach them.')
      .waitFor()
    assert.equal(await page.getByRole('button', { name: 'New webhook' }).count(), 0)
    assert.equal(await page.getByLabel('Name').count(), 0)
    await dash.screenshot(name)
    await dash.phone(path, name)
  }
})

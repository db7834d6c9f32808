// The settings page (CONTRACT 10) in Chromium: a live setting saved and applied,
// a secret saved and never shown, a setting that waits for a restart flagged,
// the restart asked from the page, and the service back with the value applied.
import assert from 'node:assert/strict'
import { createServer, type AddressInfo } from 'node:net'
import { after, test } from 'node:test'
import { closeBrowser, openDashboard, serve } from '../helpers/browser.js'

after(closeBrowser)

const TOKEN = 'web-settings-test-dashboard-token-0123456789'
const SECRET = 'explorer-key-typed-in-the-page-5d1e'

/** A port that was free a moment ago: a restart keeps a fixed port (port 0 may change). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

test('settings: edit a live key, store a secret, restart from the page for a pending key', async (t) => {
  const port = await freePort()
  const server = await serve(t, {
    SERVICE_DASHBOARD_TOKEN: TOKEN,
    SERVICE_SERVER_ADDR: `127.0.0.1:${port}`,
    SERVICE_WEBHOOKS_MAX_ATTEMPTS: '4',
  })
  const dash = await openDashboard(t, server, {
    token: TOKEN,
    // While the service restarts, the page's polls meet a closed port.
    expectedConsoleErrors: /ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|ERR_EMPTY_RESPONSE/,
  })
  const { page } = dash
  await dash.goto('/settings')
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()

  // A live key: from the environment, saved here, applied at once.
  const attempts = page.locator('li.setting[data-key="webhooks.max_attempts"]')
  await attempts.getByText('environment').waitFor()
  const attemptsInput = page.getByLabel('webhooks.max_attempts', { exact: true })
  assert.equal(await attemptsInput.inputValue(), '4')
  await attemptsInput.fill('9')
  await attempts.getByRole('button', { name: 'Save' }).click()
  await attempts.getByText('stored here').waitFor()
  assert.equal(await attempts.getByText('Restart required').count(), 0)
  const config = await server.request('GET', '/api/v1/config', { token: TOKEN })
  assert.equal(config.body.webhooks.max_attempts, 9)

  // A bad value: the service's message in place, nothing stored.
  const lookback = page.locator('li.setting[data-key="sync.lookback_days"]')
  await page.getByLabel('sync.lookback_days', { exact: true }).fill('-1')
  await lookback.getByRole('button', { name: 'Save' }).click()
  await lookback.getByText('must be at least 0, got -1').waitFor()
  assert.equal(await lookback.getByText('stored here').count(), 0)

  // A secret: typed, saved, never shown back.
  const apiKey = page.locator('li.setting[data-key="ethereum.api_key"]')
  await page.getByLabel('ethereum.api_key', { exact: true }).fill(SECRET)
  await apiKey.getByRole('button', { name: 'Save' }).click()
  await apiKey.getByText('secret: set').waitFor()
  assert.equal(await page.getByLabel('ethereum.api_key', { exact: true }).inputValue(), '')
  assert.ok(!((await page.content()) ?? '').includes(SECRET), 'the secret is in the page')

  // A key that waits for a restart.
  const retention = page.locator('li.setting[data-key="events.retention_days"]')
  await page.getByLabel('events.retention_days', { exact: true }).fill('14')
  await retention.getByRole('button', { name: 'Save' }).click()
  await retention.getByText('Restart required').waitFor()
  await page.getByText('Some changes wait for a restart of the service.').waitFor()
  await dash.screenshot('settings-pending')

  await page.getByRole('button', { name: 'Restart now' }).click()
  const dialog = page.getByRole('dialog', { name: 'Restart the service?' })
  await dialog.getByRole('button', { name: 'Restart' }).click()
  await page.getByText('The service restarted').waitFor({ timeout: 30_000 })
  await page.getByText('Some changes wait for a restart of the service.').waitFor({
    state: 'detached',
  })
  assert.equal(await retention.getByText('Restart required').count(), 0)
  assert.match(server.output(), /restart: draining/)
  const after = await server.request('GET', '/api/v1/config', { token: TOKEN })
  assert.equal(after.body.events.retention_days, 14)
  assert.equal(after.body.ethereum.api_key, '[redacted]')
  assert.ok(!server.output().includes(SECRET), 'the secret is in the log')

  // Reset: the stored value goes, the environment's applies again.
  await attempts.getByRole('button', { name: 'Reset' }).click()
  await attempts.getByText('environment').waitFor()
  assert.equal(await page.getByLabel('webhooks.max_attempts', { exact: true }).inputValue(), '4')
})

// The update page (CONTRACT 10) in Chromium: off until update.check is on; then
// what the feed's check saw (first 15 s after start), and an install that the
// service refuses (a checksum that does not match the feed) explained in the
// dialog with nothing installed. A read key sees the status, never the button.
// Installing for real is tested through a spawned install (test/update.test.ts):
// the service here runs from this checkout, which must not be swapped.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { buildRelease, startFeed } from '../fakes/release-feed.js'
import { CHECKOUT, PROGRAM_ROOT } from '../helpers/program.js'
import { closeBrowser, openDashboard, serve } from '../helpers/browser.js'

after(closeBrowser)

const TOKEN = 'web-update-test-dashboard-token-0123456789'

test('update: off, it says how to turn it on', async (t) => {
  const server = await serve(t, { SERVICE_DASHBOARD_TOKEN: TOKEN })
  const dash = await openDashboard(t, server, { token: TOKEN })
  await dash.goto('/update')
  await dash.page.getByText('Checking for updates is off.').waitFor()
  await dash.page.getByRole('link', { name: 'Settings' }).first().waitFor()
  await dash.screenshot('update-off')
})

test('update: the checked release, a refused install explained, a read key without the button', async (t) => {
  const feed = await startFeed(t)
  const release = await buildRelease('99.0.0')
  feed.publish({ version: '99.0.0', release, sha256: 'cd'.repeat(32) })
  const settingsOf = (allowApply: string) => ({
    SERVICE_DASHBOARD_TOKEN: TOKEN,
    SERVICE_UPDATE_CHECK: 'true',
    SERVICE_UPDATE_ALLOW_APPLY: allowApply,
    SERVICE_UPDATE_URL: feed.url,
  })
  const [server, checkOnly] = await Promise.all([
    serve(t, settingsOf('true')),
    serve(t, settingsOf('false')),
  ])
  const version = (
    JSON.parse(readFileSync(join(CHECKOUT, 'package.json'), 'utf8')) as { version: string }
  ).version
  const dash = await openDashboard(t, server, { token: TOKEN })
  await dash.goto('/update')
  const { page } = dash
  await page.getByText('not yet (15 s after the service starts)').waitFor()
  // The first check comes 15 s after the start; the page shows it once reloaded.
  for (let i = 0; i < 40; i++) {
    const status = await server.request('GET', '/api/v1/update', { token: TOKEN })
    if (status.body.checked_at) break
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  await dash.goto('/update')
  await page.getByText('Version 99.0.0 is available.').waitFor()
  assert.equal(await page.locator('dl.kv dd').first().textContent(), version)
  await dash.screenshot('update-available')
  await dash.phone('/update', 'update-available', (p) =>
    p.getByText('Version 99.0.0 is available.').waitFor(),
  )

  await page.getByRole('button', { name: 'Install 99.0.0' }).click()
  const dialog = page.getByRole('dialog', { name: 'Install version 99.0.0?' })
  await dialog.getByRole('button', { name: 'Install and restart' }).click()
  await dialog.getByText(/SHA-256 is [0-9a-f]{64}, the feed says/).waitFor()
  await dash.screenshot('update-refused')
  assert.equal(feed.downloads(), 1)
  assert.equal(
    existsSync(join(PROGRAM_ROOT, '.coffer-update')),
    false,
    'nothing of the download stays',
  )
  const status = await server.request('GET', '/api/v1/update', { token: TOKEN })
  assert.equal(status.body.current, version, 'nothing was installed')

  const key = await server.request('POST', '/api/v1/security/api-keys', {
    token: TOKEN,
    body: { name: 'reader', scope: 'read' },
  })
  const reader = await openDashboard(t, server, { token: key.body.key })
  await reader.goto('/update')
  await reader.page.getByText('Version 99.0.0 is available.').waitFor()
  const button = reader.page.getByRole('button', { name: 'Install 99.0.0' })
  assert.equal(await button.isDisabled(), true)
  await reader.page.getByText(/Cannot install here:/).waitFor()

  // Where installing is off, the page says so, and which key turns it on (the
  // same service checked its feed meanwhile).
  const admin = await openDashboard(t, checkOnly, { token: TOKEN })
  await admin.goto('/update')
  await admin.page.getByText('Version 99.0.0 is available.').waitFor()
  assert.equal(await admin.page.getByRole('button', { name: 'Install 99.0.0' }).isDisabled(), true)
  await admin.page
    .getByText('Cannot install here: installing is off: turn on update.allow_apply in Settings.')
    .waitFor()
})

// The sources page (issue 13 item 6) in Chromium against a real `coffer serve`:
// a CSV sync started from the page and followed to its outcome; ethereum
// addresses added and removed (the configured one kept); Google Drive's OAuth
// callback landing and a pasted refresh token that is never shown back; and a
// key that may not change credentials being told why.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test, type TestContext } from 'node:test'
import { closeBrowser, openDashboard, serve, writeFixture } from '../helpers/browser.js'

after(closeBrowser)

const TOKEN = 'web-test-dashboard-token-sources-0123'
const CONFIG_ADDRESS = '0x1111111111111111111111111111111111111111'
const ADDED_ADDRESS = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01'

const CSV_ROWS = [
  ['2024-03-01', 'Grocer', '-52.10'],
  ['2024-03-02', 'Payroll', '2500.00'],
  ['2024-03-04', 'Bakery', '-7.25'],
]

/** A local CSV folder, as the configuration's csv.folders value (JSON in SERVICE_CSV_FOLDERS). */
function csvFolder(t: TestContext): string {
  const root = mkdtempSync(join(tmpdir(), 'coffer-web-csv-'))
  t.after(() => rmSync(root, { recursive: true, force: true }))
  const path = join(root, 'checking')
  writeFixture(
    path,
    'march.csv',
    ['Date,Description,Amount', ...CSV_ROWS.map((r) => r.join(','))].join('\n') + '\n',
  )
  return JSON.stringify([{ name: 'Checking', path, account: 'Checking', currency: 'USD' }])
}

test('a CSV sync started from the page shows its outcome, and the rows exist', async (t) => {
  const server = await serve(t, { SERVICE_CSV_FOLDERS: csvFolder(t) })
  const dash = await openDashboard(t, server)
  const { page } = dash
  await dash.goto('/sources')

  const csv = page.getByRole('article', { name: /CSV files/ })
  await csv.getByText('Ready: every sync fetches from it.').waitFor()
  await csv.getByText('Not synced yet.').waitFor()
  // Every source is listed, configured or not, and says why it is left out.
  const ethereum = page.getByRole('article', { name: /Ethereum/ })
  await ethereum.getByText('Not configured: syncs leave it out.').waitFor()
  assert.equal(await ethereum.getByRole('button', { name: 'Sync Ethereum now' }).isDisabled(), true)
  await page.getByRole('article', { name: /SimpleFIN/ }).waitFor()
  await page.getByText('No sync has run yet.').waitFor()
  await dash.screenshot('sources-before-sync')

  await csv.getByRole('button', { name: 'Sync CSV files now' }).click()
  const outcome = page.getByRole('status', { name: 'Sync run' })
  await outcome.getByText('Sync of CSV files succeeded').waitFor({ timeout: 30_000 })
  assert.match(
    (await outcome.textContent()) ?? '',
    /CSV files: 3 new, 0 updated, 0 unchanged, 0 skipped/,
  )

  // The history has the run, by hand, with its counts; the card shows it as its last run.
  const history = page.getByRole('table')
  const row = history.getByRole('row').filter({ hasText: 'Succeeded' })
  await row.waitFor()
  assert.match((await row.textContent()) ?? '', /by hand/)
  assert.match((await row.textContent()) ?? '', /CSV files: 3 new/)
  await csv.getByText(/Last run .* \(by hand\):/).waitFor()
  await dash.screenshot('sources-after-sync')

  const listed = await server.request('GET', '/api/v1/transactions?limit=10')
  assert.equal(listed.status, 200)
  assert.equal(listed.body.total, CSV_ROWS.length)
  assert.deepEqual(
    listed.body.transactions.map((t: { description: string }) => t.description).sort(),
    CSV_ROWS.map((r) => r[1]).sort(),
  )

  // "Sync all now" runs again: the same rows are unchanged, not duplicated.
  await page.getByRole('button', { name: 'Sync all now' }).click()
  await outcome.getByText('Sync of all sources succeeded').waitFor({ timeout: 30_000 })
  assert.match((await outcome.textContent()) ?? '', /CSV files: 0 new, 0 updated, 3 unchanged/)
  assert.equal((await server.request('GET', '/api/v1/transactions')).body.total, CSV_ROWS.length)
  await dash.phone('/sources', 'sources-after-sync')
})

test('ethereum addresses: add one, the configured one stays, remove the added one; a failed sync is explained', async (t) => {
  const server = await serve(t, {
    SERVICE_DASHBOARD_TOKEN: TOKEN,
    SERVICE_ETHEREUM_API_KEY: 'explorer-key-for-the-test',
    SERVICE_ETHEREUM_ADDRESS: CONFIG_ADDRESS,
    // An explorer that is not there (the discard port): every address fails.
    SERVICE_ETHEREUM_API_URL: 'http://127.0.0.1:9/api',
  })
  const dash = await openDashboard(t, server, { token: TOKEN })
  const { page } = dash
  await dash.goto('/sources')

  const card = page.getByRole('article', { name: /Ethereum/ })
  const addresses = card.getByRole('list', { name: 'Ethereum credentials' })
  const configured = addresses.getByRole('listitem').filter({ hasText: CONFIG_ADDRESS })
  await configured.getByText('from config').waitFor()
  assert.equal(
    await configured.getByRole('button').count(),
    0,
    'a configured address has no Remove',
  )

  // A malformed address is refused with the service's reason.
  const field = card.getByLabel('Address to watch')
  await field.fill('0x1234')
  await card.getByRole('button', { name: 'Add address' }).click()
  const refusal = card.getByRole('alert')
  await refusal.waitFor()
  const reason = (await refusal.textContent()) ?? ''
  assert.match(reason, /0x followed by 40 hexadecimal characters/)
  // In the form's words: the field as labelled, not the API's body field (`token`).
  assert.match(reason, /Address to watch: must be an address/)
  assert.doesNotMatch(reason, /\btoken\b/)

  await field.fill(ADDED_ADDRESS)
  await card.getByRole('button', { name: 'Add address' }).click()
  const added = addresses.getByRole('listitem').filter({ hasText: ADDED_ADDRESS.toLowerCase() })
  await added.getByRole('button', { name: `Remove ${ADDED_ADDRESS.toLowerCase()}` }).waitFor()
  assert.equal(await field.inputValue(), '', 'the field is emptied once the address is added')
  assert.equal(await card.getByRole('alert').count(), 0)
  await dash.screenshot('sources-ethereum')
  await dash.phone('/sources', 'sources-ethereum')

  const entries = async () => {
    const list = await server.request('GET', '/api/v1/sources', { token: TOKEN })
    const entry = list.body.sources.find((s: { type: string }) => s.type === 'ethereum')
    return entry.credential.entries.map((e: { id: string; from_config: boolean }) => [
      e.id,
      e.from_config,
    ])
  }
  assert.deepEqual(await entries(), [
    [CONFIG_ADDRESS, true],
    [ADDED_ADDRESS.toLowerCase(), false],
  ])

  await added.getByRole('button', { name: /^Remove/ }).click()
  await added.waitFor({ state: 'detached' })
  assert.deepEqual(await entries(), [[CONFIG_ADDRESS, true]])
  await configured.waitFor()

  // The explorer cannot be reached: the run fails, and the card says what to fix.
  await card.getByRole('button', { name: 'Sync Ethereum now' }).click()
  const outcome = page.getByRole('status', { name: 'Sync run' })
  await outcome.getByText('Sync of Ethereum failed').waitFor({ timeout: 30_000 })
  const problems = card.getByText('Problems in the last run')
  await problems.waitFor()
  assert.match((await card.textContent()) ?? '', new RegExp(`${CONFIG_ADDRESS}`))
  await card.getByText(/Last run .*: ?Failed/).waitFor()
  assert.equal((await page.content()).includes('explorer-key-for-the-test'), false)
  await dash.screenshot('sources-ethereum-failed')
})

test('a read_write key may sync but is told why it cannot change credentials', async (t) => {
  const server = await serve(t, {
    SERVICE_DASHBOARD_TOKEN: TOKEN,
    SERVICE_ETHEREUM_API_KEY: 'explorer-key-never-used-here',
    SERVICE_ETHEREUM_ADDRESS: CONFIG_ADDRESS,
  })
  const key = await server.request('POST', '/api/v1/security/api-keys', {
    token: TOKEN,
    body: { name: 'writer', scope: 'read_write' },
  })
  const dash = await openDashboard(t, server, { token: key.body.key })
  const { page } = dash
  await dash.goto('/sources')
  const card = page.getByRole('article', { name: /Ethereum/ })
  await card.getByText(/Changing credentials needs the dashboard token/).waitFor()
  assert.equal(await card.getByLabel('Address to watch').count(), 0)
  assert.equal(await card.getByRole('button', { name: /^Remove/ }).count(), 0)
  assert.equal(await page.getByRole('button', { name: 'Sync all now' }).isEnabled(), true)
  await dash.screenshot('sources-read-write-key')

  // A read key sees no sync buttons at all, and the reason once.
  const reader = await server.request('POST', '/api/v1/security/api-keys', {
    token: TOKEN,
    body: { name: 'viewer', scope: 'read' },
  })
  const readDash = await openDashboard(t, server, { token: reader.body.key })
  await readDash.goto('/sources')
  await readDash.page.getByText(/^Read-only:/).waitFor()
  assert.equal(await readDash.page.getByRole('button', { name: /Sync/ }).count(), 0)
})

test('Google Drive OAuth landing; drive refresh token and SimpleFIN access URL pasted, never shown back', async (t) => {
  const server = await serve(t, {
    SERVICE_DASHBOARD_TOKEN: TOKEN,
    SERVICE_CSV_DRIVE_CLIENT_ID: 'client-id-for-the-test',
    SERVICE_CSV_DRIVE_CLIENT_SECRET: 'client-secret-for-the-test',
  })
  // In dark mode, to see that the page keeps to the colour variables.
  const dash = await openDashboard(t, server, { token: TOKEN, colorScheme: 'dark' })
  const { page } = dash

  await dash.goto('/sources?source=csv&oauth=error&reason=access_denied%3A%20consent%20refused')
  const alert = page.getByRole('alert').filter({ hasText: 'Google Drive was not connected' })
  await alert.waitFor()
  assert.match((await alert.textContent()) ?? '', /access_denied: consent refused/)
  // The query string is cleaned, so a reload does not announce it again.
  assert.equal(new URL(page.url()).search, '')
  await dash.screenshot('sources-oauth-error')
  await dash.phone('/sources?source=csv&oauth=error&reason=access_denied', 'sources-oauth-error')
  await alert.getByRole('button', { name: 'Dismiss' }).click()
  await alert.waitFor({ state: 'detached' })

  await dash.goto('/sources?source=csv&oauth=connected')
  await page.getByRole('status').filter({ hasText: 'Google Drive is connected.' }).waitFor()
  assert.equal(new URL(page.url()).search, '')

  const card = page.getByRole('article', { name: /CSV files/ })
  await card.getByRole('button', { name: 'Connect Google Drive' }).waitFor()
  await card.getByText('Google Drive is not connected.').waitFor()

  const refreshToken = '1//refresh-token-pasted-in-the-dashboard-XYZ'
  const field = card.getByLabel('Google Drive refresh token')
  assert.equal(await field.getAttribute('type'), 'password')
  await field.fill(refreshToken)
  await card.getByRole('button', { name: 'Save refresh token' }).click()
  const entry = card.getByRole('list', { name: 'CSV files credentials' }).getByRole('listitem')
  await entry.getByText('Drive refresh token').waitFor()
  assert.equal(await field.inputValue(), '')
  assert.equal(
    (await page.content()).includes(refreshToken),
    false,
    'the refresh token is never shown back',
  )
  await dash.screenshot('sources-drive')

  await entry.getByRole('button', { name: 'Remove Drive refresh token' }).click()
  await card.getByText('Google Drive is not connected.').waitFor()

  // SimpleFIN: a pasted access URL starts the source; only its host is shown back.
  const simplefin = page.getByRole('article', { name: /SimpleFIN/ })
  await simplefin.getByText('Not configured: syncs leave it out.').waitFor()
  const secretUrl = 'https://bridge-user:bridge-password-XYZ@127.0.0.1:9/simplefin'
  await simplefin.getByLabel('SimpleFIN setup token or access URL').fill(secretUrl)
  await simplefin.getByRole('button', { name: 'Save credential' }).click()
  const access = simplefin
    .getByRole('list', { name: 'SimpleFIN credentials' })
    .getByRole('listitem')
    .filter({ hasText: 'SimpleFIN access URL (127.0.0.1:9)' })
  await access.waitFor()
  await simplefin.getByText('Ready: every sync fetches from it.').waitFor()
  assert.equal((await page.content()).includes('bridge-password-XYZ'), false)
  await access.getByRole('button', { name: /^Remove/ }).click()
  await simplefin.getByText('No credential is set.').waitFor()
})

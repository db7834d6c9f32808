// The CSV drive backend end to end against a fake Google (SPEC 1.3 "Drive backend",
// 4.4, 5.4; CONTRACT 6): consent URL → callback → token exchange → list →
// download → import; access-token refresh on a 401; a pasted refresh token; no
// secret in any response, log line or event.
import assert from 'node:assert/strict'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { ENGINE } from './helpers/app.js'
import { StepClock } from './helpers/ledger.js'
import {
  FAKE_CLIENT_ID,
  FAKE_CLIENT_SECRET,
  startFakeDrive,
  type FakeDrive,
} from './fakes/drive.js'
import { allTransactions, eventsAfter, startCsvApp, syncNow } from './sync-helpers.js'

const TOKEN = 'dashboard-token-for-drive-tests'
const FOLDER = 'folder-abc'

async function driveApp(t: import('node:test').TestContext, fake: FakeDrive, clock?: StepClock) {
  fake.files.push(
    {
      id: 'f1',
      name: 'january.csv',
      parent: FOLDER,
      content: 'Date,Description,Amount\n2024-01-05,Drive coffee,-4.00\n',
    },
    {
      id: 'f2',
      name: 'february.CSV',
      parent: FOLDER,
      mimeType: 'application/octet-stream',
      content: 'Date,Description,Amount\n2024-02-05,Drive rent,-800.00\n',
    },
    { id: 'f3', name: 'notes.txt', parent: FOLDER, mimeType: 'text/plain', content: 'not a csv' },
    {
      id: 'f4',
      name: 'elsewhere.csv',
      parent: 'other-folder',
      content: 'Date,Amount\n2024-01-01,1\n',
    },
  )
  const { app } = await startCsvApp(
    t,
    [
      { name: 'Local', files: { 'a.csv': 'Date,Amount,Description\n2024-01-01,1.00,local\n' } },
      { name: 'Drive Folder', account: 'Drive', backend: 'drive', folder_id: FOLDER },
    ],
    {
      env: {
        SERVICE_DASHBOARD_TOKEN: TOKEN,
        SERVICE_CSV_DRIVE_CLIENT_ID: FAKE_CLIENT_ID,
        SERVICE_CSV_DRIVE_CLIENT_SECRET: FAKE_CLIENT_SECRET,
        SERVICE_CSV_DRIVE_AUTH_URL: fake.authUrl,
        SERVICE_CSV_DRIVE_TOKEN_URL: fake.tokenUrl,
        SERVICE_CSV_DRIVE_API_URL: fake.apiUrl,
      },
      ...(clock ? { clock } : {}),
    },
  )
  return app
}

/** Plays the browser: follows the consent URL to the callback, returns the final redirect. */
async function consent(url: string): Promise<{ callback: string; location: URL }> {
  const approve = await fetch(url, { redirect: 'manual' })
  assert.equal(approve.status, 302)
  const callback = approve.headers.get('location')!
  const answer = await fetch(callback, { redirect: 'manual' })
  assert.equal(answer.status, 302, await answer.text())
  return { callback, location: new URL(answer.headers.get('location')!) }
}

function assertNoSecret(text: string, fake: FakeDrive, where: string): void {
  for (const value of [FAKE_CLIENT_SECRET, ...fake.issued]) {
    assert.ok(!text.includes(value), `${where} leaks a secret`)
  }
}

test('drive flow: skipped without a token, consent, callback, import, refresh on 401', async (t) => {
  const fake = await startFakeDrive(t)
  const app = await driveApp(t, fake)

  // Without a token the drive folder is skipped; the local folder still imports.
  const before = await syncNow(app, '/api/v1/sync', TOKEN)
  assert.equal(before.status, 'success')
  assert.deepEqual(before.counts.csv, { inserted: 1, updated: 0, unchanged: 0, skipped: 0 })
  assert.deepEqual(before.warnings, ['csv: folder "Drive Folder": drive is not connected; skipped'])
  let entry = (await app.request('GET', '/api/v1/sources', { token: TOKEN })).body.sources[0]
  assert.deepEqual(entry.credential, { kind: 'oauth', entries: [] })

  const start = await app.request('GET', '/api/v1/sources/csv/oauth/start', { token: TOKEN })
  assert.equal(start.status, 200, start.text)
  const consentUrl = new URL(start.body.url)
  assert.equal(`${consentUrl.origin}${consentUrl.pathname}`, fake.authUrl)
  const params = Object.fromEntries(consentUrl.searchParams)
  assert.deepEqual(
    { ...params, state: undefined },
    {
      client_id: FAKE_CLIENT_ID,
      redirect_uri: `${app.url}/api/v1/sources/csv/oauth/callback`,
      response_type: 'code',
      scope: 'https://www.googleapis.com/auth/drive.readonly',
      access_type: 'offline',
      prompt: 'consent',
      state: undefined,
    },
  )
  assert.ok(params.state!.length >= 32)

  const { callback, location } = await consent(start.body.url)
  assert.equal(`${location.origin}${location.pathname}`, `${app.url}/sources`)
  assert.deepEqual(Object.fromEntries(location.searchParams), { source: 'csv', oauth: 'connected' })
  assert.deepEqual(
    fake.grants.map((g) => g.grant_type),
    ['authorization_code'],
  )

  // The state is single use.
  const replay = await fetch(callback, { redirect: 'manual' })
  assert.equal(replay.status, 302)
  assert.deepEqual(Object.fromEntries(new URL(replay.headers.get('location')!).searchParams), {
    source: 'csv',
    oauth: 'error',
    reason: 'invalid or expired state',
  })

  entry = (await app.request('GET', '/api/v1/sources', { token: TOKEN })).body.sources[0]
  assert.equal(entry.connected, true)
  assert.deepEqual(entry.credential, {
    kind: 'oauth',
    entries: [{ id: 'drive', label: 'Drive refresh token', from_config: false }],
  })

  // The refresh token sits in the secret store: a 0600 file on SQLite.
  if (ENGINE === 'sqlite') {
    const file = join(app.dir, 'data', 'secrets.json')
    assert.ok(existsSync(file))
    assert.equal(statSync(file).mode & 0o777, 0o600)
  }

  const run = await syncNow(app, '/api/v1/sync', TOKEN)
  assert.equal(run.status, 'success', JSON.stringify(run))
  assert.deepEqual(run.counts.csv, { inserted: 2, updated: 0, unchanged: 1, skipped: 0 })
  assert.deepEqual(run.warnings, [])
  assert.deepEqual(fake.calls, [`list ${FOLDER}`, `list ${FOLDER}`, 'download f2', 'download f1'])
  const rows = await allTransactions(app, 'csv:drive-folder', TOKEN)
  assert.deepEqual(
    rows.map((r) => [r.description, r.amount, r.source]),
    [
      ['Drive rent', '-800.00', 'csv'],
      ['Drive coffee', '-4.00', 'csv'],
    ],
  )

  // An access token that stops working: one 401, a refresh, the same calls again.
  fake.revokeAccessTokens()
  fake.calls.length = 0
  const again = await syncNow(app, '/api/v1/sync', TOKEN)
  assert.equal(again.status, 'success')
  assert.deepEqual(again.counts.csv, { inserted: 0, updated: 0, unchanged: 3, skipped: 0 })
  assert.deepEqual(fake.calls, [
    '401 /drive/v3/files',
    `list ${FOLDER}`,
    `list ${FOLDER}`,
    'download f2',
    'download f1',
  ])
  assert.deepEqual(
    fake.grants.map((g) => g.grant_type),
    ['authorization_code', 'refresh_token'],
  )
  assert.equal(fake.grants[1]!.refresh_token, [...fake.refreshTokens][0])

  // No secret anywhere a user or a consumer can see.
  const sources = await app.request('GET', '/api/v1/sources', { token: TOKEN })
  assertNoSecret(sources.text, fake, 'GET /sources')
  assert.ok(sources.text.includes('[redacted]'))
  const config = await app.request('GET', '/api/v1/config', { token: TOKEN })
  if (config.status === 200) assertNoSecret(config.text, fake, 'GET /config')
  const events = await eventsAfter(app, 0, { token: TOKEN })
  assertNoSecret(JSON.stringify(events), fake, 'events')
  assertNoSecret(app.logs.join('\n'), fake, 'logs')
})

test('a pasted refresh token works; deleting it skips drive again', async (t) => {
  const fake = await startFakeDrive(t)
  fake.refreshTokens.add('pasted-refresh-token-123')
  fake.issued.push('pasted-refresh-token-123')
  const app = await driveApp(t, fake)

  const bad = await app.request('PUT', '/api/v1/sources/csv/credential', {
    token: TOKEN,
    body: { token: 'has spaces in it' },
  })
  assert.equal(bad.status, 400)
  const extra = await app.request('PUT', '/api/v1/sources/csv/credential', {
    token: TOKEN,
    body: { token: 'x', other: 1 },
  })
  assert.equal(extra.status, 400)

  const put = await app.request('PUT', '/api/v1/sources/csv/credential', {
    token: TOKEN,
    body: { token: 'pasted-refresh-token-123' },
  })
  assert.equal(put.status, 200, put.text)
  assert.equal(put.body.type, 'csv')
  assert.deepEqual(put.body.credential.entries, [
    { id: 'drive', label: 'Drive refresh token', from_config: false },
  ])
  assertNoSecret(put.text, fake, 'PUT credential')

  const run = await syncNow(app, '/api/v1/sync', TOKEN)
  assert.deepEqual(run.counts.csv, { inserted: 3, updated: 0, unchanged: 0, skipped: 0 })
  assert.deepEqual(fake.grants, [
    { grant_type: 'refresh_token', refresh_token: 'pasted-refresh-token-123' },
  ])

  const unknown = await app.request('DELETE', '/api/v1/sources/csv/credentials/nope', {
    token: TOKEN,
  })
  assert.equal(unknown.status, 404)
  const del = await app.request('DELETE', '/api/v1/sources/csv/credentials/drive', { token: TOKEN })
  assert.equal(del.status, 200, del.text)
  assert.deepEqual(del.body.credential, { kind: 'oauth', entries: [] })
  const after = await syncNow(app, '/api/v1/sync', TOKEN)
  assert.deepEqual(after.warnings, ['csv: folder "Drive Folder": drive is not connected; skipped'])
  assertNoSecret(app.logs.join('\n'), fake, 'logs')
})

test('a revoked refresh token is a sync error of the drive folder, without the token', async (t) => {
  const fake = await startFakeDrive(t)
  const app = await driveApp(t, fake)
  await app.request('PUT', '/api/v1/sources/csv/credential', {
    token: TOKEN,
    body: { token: 'revoked-refresh-token-456' },
  })
  fake.issued.push('revoked-refresh-token-456')
  const run = await syncNow(app, '/api/v1/sync', TOKEN)
  // The local folder still imports; the drive folder is reported.
  assert.equal(run.status, 'success')
  assert.deepEqual(run.warnings, [
    'csv: folder "Drive Folder": drive: access token refresh failed: token endpoint answered HTTP 400 invalid_grant; skipped',
  ])
  const entry = (await app.request('GET', '/api/v1/sources', { token: TOKEN })).body.sources[0]
  assert.deepEqual(entry.errors, [
    'folder "Drive Folder": drive: access token refresh failed: token endpoint answered HTTP 400 invalid_grant; skipped',
  ])
  assertNoSecret(JSON.stringify(run) + app.logs.join('\n'), fake, 'run and logs')
})

test('the OAuth state expires after 10 minutes; the callback is an open route', async (t) => {
  const fake = await startFakeDrive(t)
  const clock = new StepClock()
  const app = await driveApp(t, fake, clock)
  const start = await app.request('GET', '/api/v1/sources/csv/oauth/start', { token: TOKEN })
  assert.equal(start.status, 200)
  // Admin tier: no token, no consent URL.
  assert.equal((await app.request('GET', '/api/v1/sources/csv/oauth/start')).status, 401)
  clock.advance(10 * 60 + 1)
  const { location } = await consent(start.body.url)
  assert.deepEqual(Object.fromEntries(location.searchParams), {
    source: 'csv',
    oauth: 'error',
    reason: 'invalid or expired state',
  })
  assert.deepEqual(fake.grants, [])
  const noState = await fetch(`${app.url}/api/v1/sources/csv/oauth/callback?code=x`, {
    redirect: 'manual',
  })
  assert.equal(noState.status, 302)
  assert.equal(
    new URL(noState.headers.get('location')!).searchParams.get('reason'),
    'missing state',
  )
})

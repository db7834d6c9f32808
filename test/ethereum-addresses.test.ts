// The on-chain source's configuration and credentials (SPEC 1.2 rules 8, 9, 11,
// "Runtime management"; 4.4; 5.4): a missing key, a bad key or a bad address is a
// sync error and never a start-up failure; no address means skipped; the key is
// never echoed; watched addresses are added and removed at runtime and survive a
// restart, while those from config are listed as such and cannot be removed.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp } from './helpers/app.js'
import { expectStatus } from './helpers/http.js'
import {
  explorerEnv as fakeEnv,
  hashOf,
  startFakeExplorer,
  type FakeExplorer,
} from './fakes/explorer.js'
import { allTransactions, eventsAfter, syncNow, type Json } from './sync-helpers.js'

const TOKEN = 'dashboard-token-for-ethereum-tests'
const A = '0x' + 'a1'.repeat(20)
const B = '0x' + 'b2'.repeat(20)
const STRANGER = '0x' + 'c3'.repeat(20)

/** The whole history: the fake chain's blocks are years before the system clock. */
const explorerEnv = (fake: FakeExplorer, addresses: string[], extra: Record<string, string> = {}) =>
  fakeEnv(fake, addresses, { SERVICE_SYNC_LOOKBACK_DAYS: '0', ...extra })

function received(n: number, to: string, value: string) {
  return {
    hash: hashOf(n),
    block: 100 + n,
    from: STRANGER,
    to,
    value,
    gasUsed: '21000',
    gasPrice: '1',
  }
}

async function ethereumEntry(app: Awaited<ReturnType<typeof startTestApp>>): Promise<Json> {
  const { sources } = await expectStatus(app, 'GET', '/api/v1/sources', 200, undefined, {
    token: TOKEN,
  })
  return sources.find((s: Json) => s.type === 'ethereum')
}

test('a wrong key is a sync error, and no key, sent or configured, is echoed anywhere', async (t) => {
  const fake = await startFakeExplorer(t)
  fake.transactions.push(received(1, A, '1'))
  const wrongKey = 'wrong-explorer-key-ECHOED-9b8c7d'
  const app = await startTestApp(t, {
    env: {
      ...explorerEnv(fake, [A], { SERVICE_ETHEREUM_API_KEY: wrongKey }),
      SERVICE_DASHBOARD_TOKEN: TOKEN,
    },
  })
  const run = await syncNow(app, '/api/v1/sync', TOKEN)
  assert.equal(run.status, 'error')
  // The fake repeats the key it was sent in its error text: it must not come through.
  assert.equal(
    run.error,
    `ethereum: ${A}: txlist: explorer said: Invalid API Key (#err2)|[redacted]`,
  )
  assert.ok(
    fake.requests.some((r) => r.params.apikey === wrongKey),
    'the key was sent',
  )

  const bodies = [
    JSON.stringify(run),
    (await app.request('GET', '/api/v1/sources', { token: TOKEN })).text,
    (await app.request('GET', '/api/v1/sync', { token: TOKEN })).text,
    (await app.request('GET', '/api/v1/sync/history', { token: TOKEN })).text,
    (await app.request('GET', '/api/v1/config', { token: TOKEN })).text,
    (await app.request('GET', '/api/v1/accounts', { token: TOKEN })).text,
    JSON.stringify(await eventsAfter(app, 0, { token: TOKEN })),
    app.logs.join('\n'),
  ]
  for (const [i, body] of bodies.entries()) {
    assert.ok(body.length > 0)
    assert.ok(!body.includes(wrongKey), `body ${i} echoes the key`)
  }
  const entry = await ethereumEntry(app)
  assert.deepEqual(entry.config, [
    { key: 'ethereum.api_key', value: '[redacted]' },
    { key: 'ethereum.chain_id', value: 1 },
    { key: 'ethereum.api_url', value: fake.url },
    { key: 'ethereum.rate_limit', value: 1000 },
  ])
  assert.deepEqual(entry.errors, [
    `${A}: txlist: explorer said: Invalid API Key (#err2)|[redacted]`,
  ])
})

test('the right key stays out of every answer, log line and event too', async (t) => {
  const fake = await startFakeExplorer(t, { dialect: 'blockscout' })
  fake.transactions.push(received(1, A, '1'))
  fake.failingAddresses.add(B)
  const app = await startTestApp(t, {
    env: { ...explorerEnv(fake, [A, B]), SERVICE_DASHBOARD_TOKEN: TOKEN },
  })
  const run = await syncNow(app, '/api/v1/sync', TOKEN)
  assert.equal(run.status, 'success', JSON.stringify(run))
  const bodies = [
    JSON.stringify(run),
    (await app.request('GET', '/api/v1/sources', { token: TOKEN })).text,
    (await app.request('GET', '/api/v1/config', { token: TOKEN })).text,
    JSON.stringify(await eventsAfter(app, 0, { token: TOKEN })),
    app.logs.join('\n'),
  ]
  for (const body of bodies) assert.ok(!body.includes(fake.apiKey))
  assert.ok(
    app.logs.some((line) => line.includes(B)),
    'the failing address was logged',
  )
})

test('no key, bad addresses and no address: sync outcomes, never a start-up failure', async (t) => {
  const fake = await startFakeExplorer(t)
  fake.transactions.push(received(1, A, '1'))

  // Addresses but no key: the service starts; the sync says what is missing.
  const noKey = await startTestApp(t, {
    env: { SERVICE_ETHEREUM_ADDRESS: A, SERVICE_ETHEREUM_API_URL: fake.url },
  })
  let entry = (await noKey.request('GET', '/api/v1/sources')).body.sources.find(
    (s: Json) => s.type === 'ethereum',
  )
  assert.equal(entry.active, true)
  assert.equal(entry.connected, false)
  let run = await syncNow(noKey)
  assert.equal(run.status, 'error')
  assert.equal(run.error, 'ethereum: ethereum.api_key is not set')
  assert.equal(fake.requests.length, 0)

  // A bad address beside a good one is skipped; alone, it is the sync's error.
  const mixed = await startTestApp(t, { env: explorerEnv(fake, ['0x1234', A]) })
  run = await syncNow(mixed)
  assert.equal(run.status, 'success', JSON.stringify(run))
  assert.deepEqual(run.counts.ethereum, { inserted: 1, updated: 0, unchanged: 0, skipped: 0 })
  assert.deepEqual(run.warnings, [
    'ethereum: address 0x1234: not a valid address (0x followed by 40 hexadecimal characters); skipped',
  ])
  entry = (await mixed.request('GET', '/api/v1/sources')).body.sources.find(
    (s: Json) => s.type === 'ethereum',
  )
  assert.deepEqual(entry.credential, {
    kind: 'multi',
    entries: [
      { id: '0x1234', label: '0x1234 (not a valid address)', from_config: true },
      { id: A, label: A, from_config: true },
    ],
  })
  const bad = await startTestApp(t, { env: explorerEnv(fake, ['0xnot-an-address']) })
  run = await syncNow(bad)
  assert.equal(run.status, 'error')
  assert.equal(
    run.error,
    'ethereum: 0xnot-an-address: not a valid address (0x followed by 40 hexadecimal characters)',
  )

  // A key and no address: skipped without error.
  const none = await startTestApp(t, { env: explorerEnv(fake, []) })
  run = await syncNow(none)
  assert.equal(run.status, 'success')
  assert.deepEqual(run.warnings, ['ethereum: skipped: no address to watch'])
  assert.deepEqual(run.counts.ethereum, { inserted: 0, updated: 0, unchanged: 0, skipped: 0 })

  // Neither key nor address: not started at all (SPEC 1.1).
  const off = await startTestApp(t)
  entry = (await off.request('GET', '/api/v1/sources')).body.sources.find(
    (s: Json) => s.type === 'ethereum',
  )
  assert.equal(entry.active, false)
  assert.equal((await off.request('POST', '/api/v1/sources/ethereum/sync')).status, 409)
})

test('runtime addresses: add, dedupe, list, refuse to remove config ones, survive a restart', async (t) => {
  const fake = await startFakeExplorer(t)
  fake.transactions.push(received(1, A, '1'), received(2, B, '2'))
  const env = { ...explorerEnv(fake, [A]), SERVICE_DASHBOARD_TOKEN: TOKEN }
  const app = await startTestApp(t, { env })
  const put = (token: string, auth = TOKEN) =>
    app.request('PUT', '/api/v1/sources/ethereum/credential', { token: auth, body: { token } })

  // Admin tier only.
  assert.equal(
    (await app.request('PUT', '/api/v1/sources/ethereum/credential', { body: { token: B } }))
      .status,
    401,
  )

  // Structural validation (SPEC 1.2 rule 9): 400, and nothing stored.
  for (const bad of ['0x123', 'b2'.repeat(20), `0x${'g'.repeat(40)}`, `${B}00`, '']) {
    const res = await put(bad)
    assert.equal(res.status, 400, `${bad}: ${res.text}`)
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/)
  }
  const extra = await app.request('PUT', '/api/v1/sources/ethereum/credential', {
    token: TOKEN,
    body: { token: B, label: 'x' },
  })
  assert.equal(extra.status, 400)

  // Checksum casing is accepted and lowercased; adding twice, or a config one, changes nothing.
  const mixedCase = '0x' + 'B2'.repeat(20)
  let res = await put(mixedCase)
  assert.equal(res.status, 200, res.text)
  const entries = [
    { id: A, label: A, from_config: true },
    { id: B, label: B, from_config: false },
  ]
  // The whole source entry (CONTRACT 6), as PUT answers it.
  assert.deepEqual(res.body, {
    type: 'ethereum',
    title: 'Ethereum',
    active: true,
    connected: true,
    credential: { kind: 'multi', entries },
    config: [
      { key: 'ethereum.api_key', value: '[redacted]' },
      { key: 'ethereum.chain_id', value: 1 },
      { key: 'ethereum.api_url', value: fake.url },
      { key: 'ethereum.rate_limit', value: 1000 },
    ],
    last_run: null,
    errors: [],
  })
  assert.deepEqual((await put(B)).body.credential.entries, entries)
  assert.deepEqual(
    (await put(A.toUpperCase().replace('0X', '0x'))).body.credential.entries,
    entries,
  )

  // Config addresses cannot be removed here; unknown ones are 404.
  res = await app.request('DELETE', `/api/v1/sources/ethereum/credentials/${A}`, { token: TOKEN })
  assert.equal(res.status, 409, res.text)
  res = await app.request('DELETE', `/api/v1/sources/ethereum/credentials/${STRANGER}`, {
    token: TOKEN,
  })
  assert.equal(res.status, 404, res.text)

  // The runtime address is synced like a configured one.
  const run = await syncNow(app, '/api/v1/sources/ethereum/sync', TOKEN)
  assert.equal(run.status, 'success', JSON.stringify(run))
  assert.deepEqual(run.counts.ethereum, { inserted: 2, updated: 0, unchanged: 0, skipped: 0 })
  assert.deepEqual(
    (await allTransactions(app, `ethereum:${B}`, TOKEN)).map((r: Json) => r.amount),
    ['0.000000000000000002'],
  )

  // A restart keeps it.
  await app.stop()
  const again = await startTestApp(t, { env, reuse: { dir: app.dir, schema: app.schema } })
  assert.deepEqual((await ethereumEntry(again)).credential.entries, entries)

  // Removing it stops the watching (its rows stay in the ledger), also after a restart.
  res = await again.request('DELETE', `/api/v1/sources/ethereum/credentials/${B}`, {
    token: TOKEN,
  })
  assert.equal(res.status, 200, res.text)
  assert.deepEqual(res.body.credential.entries, [entries[0]])
  fake.requests.length = 0
  const after = await syncNow(again, '/api/v1/sync', TOKEN)
  assert.equal(after.status, 'success')
  // Not vacuous: the configured address is still read, only B is not.
  assert.ok(fake.requests.some((r) => r.params.address === A))
  assert.ok(fake.requests.every((r) => r.params.address !== B))
  await again.stop()
  const third = await startTestApp(t, { env, reuse: { dir: app.dir, schema: app.schema } })
  assert.deepEqual((await ethereumEntry(third)).credential.entries, [entries[0]])
})

// The aggregator source end to end against a fake SimpleFIN bridge (SPEC 1.1,
// 4.4, 9; CONTRACT 4): the setup token claimed once across restarts, the access
// URL kept secret, both protocol shapes, 90-day windows and the walk back through
// all history, the feed's errors on the run and the source, 403 as "not
// connected", the request budget of scheduled syncs, and the alias route.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { promisify } from 'node:util'
import { startFakeSimplefin, type FakeAccount, type FakeSimplefin } from './fakes/simplefin.js'
import {
  createSchema,
  dropSchema,
  dsnWithSchema,
  POSTGRES_DSN,
  startTestApp,
  type TestAppHandle,
  type TestAppOptions,
} from './helpers/app.js'
import { expectStatus } from './helpers/http.js'
import { StepClock, T0 } from './helpers/ledger.js'
import { eventsAfter, headSequence, syncNow, type Json } from './sync-helpers.js'
import { cofferArgs } from './helpers/program.js'
import { assertLogFoldsToLedger } from './helpers/log-fold.js'

const ADMIN = 'dashboard-token-aggregator-tests'
const DAY = 86_400
/** T0 in unix seconds: the "now" of every test here. */
const NOW = Date.parse(T0) / 1000
const SYNC_ONE = '/api/v1/sources/aggregator/sync'

/** Unix seconds `days` before NOW, and the same instant as the API prints it. */
function daysAgo(days: number): { unix: number; iso: string } {
  const unix = NOW - days * DAY
  return { unix, iso: new Date(unix * 1000).toISOString().slice(0, 19) + 'Z' }
}

/** The window [NOW - from days, NOW - to days) as the bridge should receive it. */
function window(from: number, to: number) {
  return { start: NOW - from * DAY, end: NOW - to * DAY, pending: '1', authorized: true }
}

/**
 * Two accounts at two institutions. Both have a row with feed id "t1" (feed ids
 * are unique only within an account). Rows lie 1, 5, 10, 100 and 200 days back,
 * so 90-day windows find rows in the first three and none in the fourth.
 */
function bridgeAccounts(version: 1 | 2): FakeAccount[] {
  return [
    {
      id: 'ACT-1',
      name: 'Checking',
      currency: 'USD',
      balance: '1234.50',
      ...(version === 1
        ? {
            org: {
              id: 'ORG-A',
              domain: 'bank-a.example',
              name: 'Bank A',
              'sfin-url': 'https://sfin.bank-a.example',
            },
          }
        : { conn_id: 'CON-1' }),
      transactions: [
        {
          id: 't1',
          posted: daysAgo(10).unix,
          amount: '-33293.430',
          description: "Uncle Frank's Bait Shop",
          payee: 'Uncle Frank',
          memo: 'BAIT #12',
        },
        { id: 't2', posted: daysAgo(100).unix, amount: '+1500.00', description: 'Payroll' },
        {
          id: 'p1',
          posted: 0,
          transacted_at: daysAgo(1).unix,
          amount: '-4.5',
          description: 'Coffee',
          pending: true,
        },
      ],
    },
    {
      id: 'ACT-2',
      name: 'Rewards Card',
      currency: 'USD',
      balance: '-812.30',
      ...(version === 1
        ? {
            // No org id: the domain names the institution.
            org: {
              domain: 'credit-union.example',
              name: 'Credit Union',
              'sfin-url': 'https://sfin.credit-union.example',
            },
          }
        : { conn_id: 'CON-2' }),
      transactions: [
        { id: 't1', posted: daysAgo(5).unix, amount: '0.10', description: 'Interest' },
        { id: 't9', posted: daysAgo(200).unix, amount: '-12.00', description: 'Old fee' },
      ],
    },
  ]
}

async function bridge(t: TestContext, version: 1 | 2): Promise<FakeSimplefin> {
  const fake = await startFakeSimplefin(t, version)
  fake.accounts = bridgeAccounts(version)
  fake.connections = [
    { conn_id: 'CON-1', name: 'Bank A', org_id: 'ORG-A', org_url: 'https://bank-a.example' },
    {
      conn_id: 'CON-2',
      name: 'Credit Union',
      org_id: 'ORG-CU',
      org_url: 'https://www.credit-union.example/home',
    },
  ]
  return fake
}

interface AggregatorApp {
  app: TestAppHandle
  clock: StepClock
  /** Every response body read through `app.request`, for the leak checks. */
  bodies: string[]
}

/** An app with a dashboard token and a fixed clock; requests carry the token unless told otherwise. */
async function startAggregatorApp(
  t: TestContext | null,
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<AggregatorApp> {
  const clock = new StepClock()
  const app = await startTestApp(t, {
    ...options,
    clock,
    env: { SERVICE_DASHBOARD_TOKEN: ADMIN, ...env },
  })
  const bodies: string[] = []
  const request = app.request.bind(app)
  app.request = async (method, path, opts = {}) => {
    const res = await request(method, path, { token: ADMIN, ...opts })
    bodies.push(res.text)
    return res
  }
  return { app, clock, bodies }
}

async function aggregatorEntry(app: TestAppHandle): Promise<Json> {
  const { sources } = await expectStatus(app, 'GET', '/api/v1/sources', 200)
  return sources.find((s: Json) => s.type === 'aggregator')
}

async function putCredential(
  app: TestAppHandle,
  token: string,
  path = SYNC_ONE.replace('/sync', '/credential'),
) {
  return app.request('PUT', path, { body: { token } })
}

/** Reads what a user would look at, then checks that no secret of the bridge appears anywhere. */
async function assertNoSecret(box: AggregatorApp, fake: FakeSimplefin): Promise<void> {
  const { app, bodies } = box
  for (const path of [
    '/api/v1/sources',
    '/api/v1/sync/history',
    '/api/v1/config',
    '/api/v1/events?limit=1000',
    '/api/v1/accounts',
    '/api/v1/organizations',
    '/api/v1/transactions?limit=1000',
  ]) {
    await expectStatus(app, 'GET', path, 200)
  }
  const secrets = fake.secrets()
  for (const [where, texts] of [
    ['a response body', bodies],
    ['the log', app.logs],
  ] as const) {
    for (const text of texts) {
      for (const secret of secrets)
        assert.ok(!text.includes(secret), `${where} leaks a secret: ${text}`)
    }
  }
}

const entryConfig = (accessUrl: boolean, setupToken: boolean) => [
  { key: 'aggregator.access_url', value: accessUrl ? '[redacted]' : null },
  { key: 'aggregator.setup_token', value: setupToken ? '[redacted]' : null },
]

test('v1: a configured setup token is claimed once, across restarts; rows, ids, institutions and balances follow CONTRACT 4', async (t) => {
  const fake = await bridge(t, 1)
  const env = { SERVICE_AGGREGATOR_SETUP_TOKEN: fake.setupToken() }
  const first = await startAggregatorApp(t, env)

  const before = await aggregatorEntry(first.app)
  assert.deepEqual(before, {
    type: 'aggregator',
    title: 'SimpleFIN',
    active: true,
    connected: true,
    credential: {
      kind: 'token',
      entries: [
        {
          id: 'setup_token',
          label: 'SimpleFIN setup token (claimed on the next sync)',
          from_config: true,
        },
      ],
    },
    config: entryConfig(false, true),
    last_run: null,
    errors: [],
  })

  const run = await syncNow(first.app, SYNC_ONE, ADMIN)
  assert.equal(run.status, 'success', JSON.stringify(run))
  assert.deepEqual(run.counts, {
    aggregator: { inserted: 3, updated: 0, unchanged: 0, skipped: 0 },
  })
  assert.deepEqual(run.warnings, [])
  assert.deepEqual(
    fake.claims.map((c) => c.status),
    [200],
  )
  // Default lookback (90 days): one window ending now, pending rows asked for.
  assert.deepEqual(fake.requests, [window(90, 0)])

  const orgs = await expectStatus(first.app, 'GET', '/api/v1/organizations', 200)
  assert.deepEqual(orgs.organizations, [
    { id: 'aggregator:ORG-A', name: 'Bank A', domain: 'bank-a.example', source: 'aggregator' },
    {
      id: 'aggregator:credit-union.example',
      name: 'Credit Union',
      domain: 'credit-union.example',
      source: 'aggregator',
    },
  ])
  assert.deepEqual(await expectStatus(first.app, 'GET', '/api/v1/accounts/aggregator:ACT-1', 200), {
    id: 'aggregator:ACT-1',
    name: 'Checking',
    currency: 'USD',
    balance: '1234.50',
    source: 'aggregator',
    org_id: 'aggregator:ORG-A',
  })
  assert.deepEqual(await expectStatus(first.app, 'GET', '/api/v1/accounts/aggregator:ACT-2', 200), {
    id: 'aggregator:ACT-2',
    name: 'Rewards Card',
    currency: 'USD',
    balance: '-812.30',
    source: 'aggregator',
    org_id: 'aggregator:credit-union.example',
  })
  const txns = await expectStatus(first.app, 'GET', '/api/v1/transactions', 200)
  const common = { source: 'aggregator', labels: {}, extensions: {}, synced_at: T0 }
  assert.deepEqual(txns.transactions, [
    {
      id: 'aggregator:ACT-1:p1',
      account_id: 'aggregator:ACT-1',
      amount: '-4.5',
      // Pending: dated by transacted_at (posted is 0 until it posts).
      date: daysAgo(1).iso,
      description: 'Coffee',
      payee: null,
      memo: null,
      pending: true,
      ...common,
    },
    {
      id: 'aggregator:ACT-2:t1',
      account_id: 'aggregator:ACT-2',
      amount: '0.10',
      date: daysAgo(5).iso,
      description: 'Interest',
      payee: null,
      memo: null,
      pending: false,
      ...common,
    },
    {
      id: 'aggregator:ACT-1:t1',
      account_id: 'aggregator:ACT-1',
      amount: '-33293.430',
      date: daysAgo(10).iso,
      description: "Uncle Frank's Bait Shop",
      payee: 'Uncle Frank',
      memo: 'BAIT #12',
      pending: false,
      ...common,
    },
  ])

  // Restart on the same database and data directory, same configuration: the
  // token is not claimed again; the stored access URL is used.
  await assertNoSecret(first, fake)
  await first.app.stop()
  const second = await startAggregatorApp(null, env, {
    reuse: { dir: first.app.dir, schema: first.app.schema },
  })
  try {
    const again = await syncNow(second.app, '/api/v1/sync', ADMIN)
    assert.equal(again.status, 'success', JSON.stringify(again))
    assert.deepEqual(again.counts.aggregator, { inserted: 0, updated: 0, unchanged: 3, skipped: 0 })
    assert.deepEqual(
      fake.claims.map((c) => c.status),
      [200],
    )
    assert.deepEqual(fake.requests, [window(90, 0), window(90, 0)])
    const entry = await aggregatorEntry(second.app)
    assert.deepEqual(entry.credential, {
      kind: 'token',
      entries: [
        {
          id: 'access_url',
          label: `SimpleFIN access URL (${new URL(fake.accessUrl).host})`,
          from_config: false,
        },
      ],
    })
    assert.equal(entry.connected, true)
    await assertNoSecret(second, fake)
  } finally {
    await second.app.stop()
  }
})

test('v2: an access URL put by hand; lookback 0 walks 90-day windows back until one comes back empty', async (t) => {
  const fake = await bridge(t, 2)
  const box = await startAggregatorApp(t, { SERVICE_SYNC_LOOKBACK_DAYS: '0' })
  const { app } = box

  // Nothing configured: listed, not started, and a sync of it is refused.
  assert.deepEqual(await aggregatorEntry(app), {
    type: 'aggregator',
    title: 'SimpleFIN',
    active: false,
    connected: false,
    credential: { kind: 'token', entries: [] },
    config: entryConfig(false, false),
    last_run: null,
    errors: [],
  })
  assert.equal((await app.request('POST', SYNC_ONE)).status, 409)

  const put = await putCredential(app, fake.accessUrl)
  assert.equal(put.status, 200, put.text)
  assert.equal(put.body.active, true)
  assert.equal(put.body.connected, true)
  assert.deepEqual(put.body.credential.entries, [
    {
      id: 'access_url',
      label: `SimpleFIN access URL (${new URL(fake.accessUrl).host})`,
      from_config: false,
    },
  ])

  const run = await syncNow(app, SYNC_ONE, ADMIN)
  assert.equal(run.status, 'success', JSON.stringify(run))
  assert.deepEqual(run.counts.aggregator, { inserted: 5, updated: 0, unchanged: 0, skipped: 0 })
  assert.deepEqual(run.warnings, [])
  assert.deepEqual(fake.claims, [])
  assert.deepEqual(fake.requests, [
    window(90, 0),
    window(180, 90),
    window(270, 180),
    window(360, 270), // empty: the walk stops here
  ])

  const orgs = await expectStatus(app, 'GET', '/api/v1/organizations', 200)
  assert.deepEqual(orgs.organizations, [
    { id: 'aggregator:ORG-A', name: 'Bank A', domain: 'bank-a.example', source: 'aggregator' },
    {
      id: 'aggregator:ORG-CU',
      name: 'Credit Union',
      domain: 'www.credit-union.example',
      source: 'aggregator',
    },
  ])
  const accounts = await expectStatus(app, 'GET', '/api/v1/accounts', 200)
  assert.deepEqual(
    accounts.accounts.map((a: Json) => [a.id, a.org_id, a.balance, a.source]),
    [
      ['aggregator:ACT-1', 'aggregator:ORG-A', '1234.50', 'aggregator'],
      ['aggregator:ACT-2', 'aggregator:ORG-CU', '-812.30', 'aggregator'],
    ],
  )
  const txns = await expectStatus(app, 'GET', '/api/v1/transactions', 200)
  assert.deepEqual(
    txns.transactions.map((x: Json) => [x.id, x.amount, x.date, x.pending]),
    [
      ['aggregator:ACT-1:p1', '-4.5', daysAgo(1).iso, true],
      ['aggregator:ACT-2:t1', '0.10', daysAgo(5).iso, false],
      ['aggregator:ACT-1:t1', '-33293.430', daysAgo(10).iso, false],
      // A leading "+" is dropped, as on every amount the ledger takes (CONTRACT 6).
      ['aggregator:ACT-1:t2', '1500.00', daysAgo(100).iso, false],
      ['aggregator:ACT-2:t9', '-12.00', daysAgo(200).iso, false],
    ],
  )
  await assertNoSecret(box, fake)
})

test('a lookback beyond 90 days is split into windows of at most 90 days, end exclusive', async (t) => {
  const fake = await bridge(t, 1)
  const box = await startAggregatorApp(t, {
    SERVICE_SYNC_LOOKBACK_DAYS: '200',
    SERVICE_AGGREGATOR_ACCESS_URL: fake.accessUrl,
  })
  const run = await syncNow(box.app, '/api/v1/sync', ADMIN)
  assert.equal(run.status, 'success', JSON.stringify(run))
  assert.deepEqual(fake.requests, [window(90, 0), window(180, 90), window(200, 180)])
  // The row exactly 200 days back is at the start of the last window, so it is in.
  assert.deepEqual(run.counts.aggregator, { inserted: 5, updated: 0, unchanged: 0, skipped: 0 })
  const entry = await aggregatorEntry(box.app)
  assert.equal(entry.credential.entries[0].from_config, true)
  assert.deepEqual(entry.config, entryConfig(true, false))
  await assertNoSecret(box, fake)
})

test("the feed's errors (v1 errors, v2 errlist) are recorded on the run and shown on the source", async (t) => {
  const fake = await bridge(t, 1)
  const box = await startAggregatorApp(t, { SERVICE_AGGREGATOR_ACCESS_URL: fake.accessUrl })
  fake.errors = ['Bank A: the connection needs attention']
  const v1 = await syncNow(box.app, SYNC_ONE, ADMIN)
  assert.equal(v1.status, 'success')
  assert.deepEqual(v1.warnings, [
    'aggregator: bridge error: Bank A: the connection needs attention',
  ])
  // Rows still import beside the errors.
  assert.equal(v1.counts.aggregator.inserted, 3)
  let entry = await aggregatorEntry(box.app)
  assert.deepEqual(entry.errors, ['bridge error: Bank A: the connection needs attention'])
  assert.equal(entry.last_run.id, v1.id)

  fake.version = 2
  fake.accounts = bridgeAccounts(2)
  fake.errlist = [
    { code: 'con.auth', msg: 'Credit Union needs you to log in again.', conn_id: 'CON-2' },
  ]
  const v2 = await syncNow(box.app, SYNC_ONE, ADMIN)
  assert.deepEqual(v2.warnings, [
    'aggregator: bridge error: Credit Union needs you to log in again. (con.auth)',
  ])
  entry = await aggregatorEntry(box.app)
  assert.deepEqual(entry.errors, [
    'bridge error: Credit Union needs you to log in again. (con.auth)',
  ])

  // A bridge failure is a sync error of the source, without any secret in it.
  fake.errlist = []
  fake.failWith = 500
  const failed = await syncNow(box.app, SYNC_ONE, ADMIN)
  assert.equal(failed.status, 'error')
  assert.equal(failed.error, 'aggregator: reading accounts: the bridge answered HTTP 500')
  entry = await aggregatorEntry(box.app)
  assert.deepEqual(entry.errors, ['reading accounts: the bridge answered HTTP 500'])
  await assertNoSecret(box, fake)
})

test('a feed error that repeats the claimed access URL is masked (issue 17: found by test/secrets-scan)', async (t) => {
  // The access URL comes from a setup token claim: it is in the secret store only,
  // not in the configuration, so the engine's mask of configured secrets cannot see it.
  const fake = await bridge(t, 1)
  const box = await startAggregatorApp(t, { SERVICE_AGGREGATOR_SETUP_TOKEN: fake.setupToken() })
  const password = encodeURIComponent(fake.password)
  fake.errors = [
    `could not reach ${fake.accessUrl}`,
    `auth ${fake.password} / ${password} / ${Buffer.from(fake.password).toString('base64')}`,
  ]
  const run = await syncNow(box.app, SYNC_ONE, ADMIN)
  assert.equal(run.status, 'success', JSON.stringify(run))
  assert.deepEqual(run.warnings, [
    'aggregator: bridge error: could not reach [redacted]',
    'aggregator: bridge error: auth [redacted] / [redacted] / [redacted]',
  ])
  await assertNoSecret(box, fake)
})

test('a 403 from the bridge marks the source not connected, with a clear message, until access works again', async (t) => {
  const fake = await bridge(t, 2)
  const box = await startAggregatorApp(t)
  const { app } = box
  assert.equal(
    (await putCredential(app, fake.accessUrl, '/api/v1/aggregator/credential')).status,
    200,
  )
  fake.refuse = true
  const run = await syncNow(app, SYNC_ONE, ADMIN)
  // Not connected is skipped, not an error (SPEC 1.1).
  assert.equal(run.status, 'success')
  assert.deepEqual(run.counts.aggregator, { inserted: 0, updated: 0, unchanged: 0, skipped: 0 })
  const message =
    'not connected: the bridge refused the access URL (HTTP 403): access was revoked or disabled; put a new setup token with PUT /api/v1/sources/aggregator/credential'
  assert.deepEqual(run.warnings, [`aggregator: skipped: ${message}`])
  let entry = await aggregatorEntry(app)
  assert.equal(entry.active, true)
  assert.equal(entry.connected, false)
  assert.deepEqual(entry.errors, [`skipped: ${message}`])

  // Access restored at the bridge: the next sync gets through and reconnects.
  fake.refuse = false
  const back = await syncNow(app, SYNC_ONE, ADMIN)
  assert.equal(back.counts.aggregator.inserted, 3)
  entry = await aggregatorEntry(app)
  assert.equal(entry.connected, true)
  assert.deepEqual(entry.errors, [])

  // Refused again, then a new setup token put by hand: claimed at once, connected.
  fake.refuse = true
  await syncNow(app, SYNC_ONE, ADMIN)
  assert.equal((await aggregatorEntry(app)).connected, false)
  fake.refuse = false
  const put = await putCredential(app, fake.setupToken())
  assert.equal(put.status, 200, put.text)
  assert.equal(put.body.connected, true)
  assert.deepEqual(
    fake.claims.map((c) => c.status),
    [200],
  )
  await assertNoSecret(box, fake)
})

test('a feed row with NUL, huge text or an unusable id: the rest imports on either engine, the bad ids are skipped', async (t) => {
  const fake = await bridge(t, 1)
  // PostgreSQL's text cannot hold NUL: one such row failed the whole sync there.
  fake.accounts[0]!.name = 'Check\u0000ing'
  fake.accounts[0]!.transactions.push(
    {
      id: 'n1',
      posted: daysAgo(3).unix,
      amount: '-1',
      description: 'nul\u0000here',
      payee: 'p'.repeat(100_000),
    },
    { id: 'n\u00002', posted: daysAgo(3).unix, amount: '-2', description: 'id with NUL' },
    { id: 'L'.repeat(600), posted: daysAgo(3).unix, amount: '-3', description: 'id past a path' },
  )
  const { app } = await startAggregatorApp(t, { SERVICE_AGGREGATOR_ACCESS_URL: fake.accessUrl })
  const run = await syncNow(app, SYNC_ONE, ADMIN)
  assert.equal(run.status, 'success')
  assert.deepEqual(run.counts.aggregator, { inserted: 4, updated: 0, unchanged: 0, skipped: 2 })
  assert.deepEqual(run.warnings, [
    `aggregator: 2 row(s) skipped (account "ACT-1": transaction id "n\\u00002" is longer than 240 characters or holds a control character; account "ACT-1": transaction id "${'L'.repeat(40)}…" is longer than 240 characters or holds a control character)`,
  ])
  const read = (kind: string, id: string) =>
    expectStatus(app, 'GET', `/api/v1/${kind}/${encodeURIComponent(id)}`, 200)
  const row = await read('transactions', 'aggregator:ACT-1:n1')
  assert.equal(row.description, 'nulhere')
  assert.equal(row.payee, 'p'.repeat(4096))
  assert.equal((await read('accounts', 'aggregator:ACT-1')).name, 'Checking')
  // Unchanged on the next sync: what was stored is what the feed reads as.
  const again = await syncNow(app, SYNC_ONE, ADMIN)
  assert.deepEqual(again.counts.aggregator, { inserted: 0, updated: 0, unchanged: 4, skipped: 2 })
})

test('re-sync is idempotent; labels and extensions survive it; synced rows and accounts are not editable', async (t) => {
  const fake = await bridge(t, 1)
  const box = await startAggregatorApp(t, { SERVICE_AGGREGATOR_ACCESS_URL: fake.accessUrl })
  const { app } = box
  await syncNow(app, SYNC_ONE, ADMIN)
  const id = 'aggregator:ACT-1:t1'
  const path = `/api/v1/transactions/${encodeURIComponent(id)}`
  assert.equal(
    (await app.request('PUT', `${path}/labels`, { body: { labels: { category: 'bait' } } })).status,
    200,
  )
  assert.equal(
    (
      await app.request('PUT', `${path}/extensions`, {
        body: { extensions: { 'tax.deductible': false } },
      })
    ).status,
    200,
  )

  const head = await headSequence(app, { token: ADMIN })
  const again = await syncNow(app, SYNC_ONE, ADMIN)
  assert.deepEqual(again.counts.aggregator, { inserted: 0, updated: 0, unchanged: 3, skipped: 0 })
  assert.deepEqual(
    (await eventsAfter(app, head, { token: ADMIN })).map((e: Json) => e.type),
    ['sync.completed'],
  )

  // A changed amount at the bridge updates the row; the user's metadata stays.
  fake.accounts[0]!.transactions[0]!.amount = '-33293.43'
  const head2 = await headSequence(app, { token: ADMIN })
  const changed = await syncNow(app, SYNC_ONE, ADMIN)
  assert.deepEqual(changed.counts.aggregator, { inserted: 0, updated: 1, unchanged: 2, skipped: 0 })
  const row = await expectStatus(app, 'GET', path, 200)
  assert.equal(row.amount, '-33293.43')
  assert.equal(row.source, 'aggregator')
  assert.deepEqual(row.labels, { category: 'bait' })
  assert.deepEqual(row.extensions, { 'tax.deductible': false })
  assert.deepEqual(
    (await eventsAfter(app, head2, { token: ADMIN })).map((e: Json) => [e.type, e.entity_id]),
    [
      ['transaction.updated', id],
      ['sync.completed', changed.id],
    ],
  )

  for (const [method, target, body] of [
    ['PUT', path, { amount: '1.00' }],
    ['DELETE', path, undefined],
    ['PUT', '/api/v1/accounts/aggregator:ACT-1', { name: 'Mine' }],
    ['DELETE', '/api/v1/accounts/aggregator:ACT-1', undefined],
  ] as const) {
    const res = await app.request(method, target, body === undefined ? {} : { body })
    assert.equal(res.status, 409, `${method} ${target}: ${res.text}`)
  }
  assert.equal((await expectStatus(app, 'GET', path, 200)).amount, '-33293.43')
  await assertNoSecret(box, fake)
  await assertLogFoldsToLedger(app, { token: ADMIN })
})

test('the credential routes: the alias is the same route (tier, schema, answer); bad tokens are 400 without the token', async (t) => {
  const fake = await bridge(t, 1)
  const box = await startAggregatorApp(t)
  const { app } = box
  const MAIN = '/api/v1/sources/aggregator/credential'
  const ALIAS = '/api/v1/aggregator/credential'
  const writer = await app.request('POST', '/api/v1/security/api-keys', {
    body: { name: 'writer', scope: 'read_write' },
  })
  assert.equal(writer.status, 201, writer.text)

  for (const path of [MAIN, ALIAS]) {
    // Admin tier: no token 401, an API key 403.
    assert.equal((await app.request('PUT', path, { token: '', body: { token: 'x' } })).status, 401)
    const key = await app.request('PUT', path, { token: writer.body.key, body: { token: 'x' } })
    assert.equal(key.status, 403, key.text)
    // Strict body.
    assert.equal((await app.request('PUT', path, { body: { token: 'x', extra: 1 } })).status, 400)
    assert.equal((await app.request('PUT', path, { body: { token: 5 } })).status, 400)
    assert.equal((await app.request('PUT', path, { body: {} })).status, 400)
    // Neither a setup token nor an access URL.
    const bad = await app.request('PUT', path, {
      body: { token: 'https://no-credentials.example/x' },
    })
    assert.equal(bad.status, 400)
    assert.deepEqual(bad.body.errors, [
      {
        field: 'token',
        message:
          'must be a SimpleFIN setup token or an access URL (https://user:password@host/path)',
      },
    ])
  }

  // Each route claims a setup token; a token claimed already is a 400 naming why, not the token.
  const token = fake.setupToken()
  const viaAlias = await app.request('PUT', ALIAS, { body: { token } })
  assert.equal(viaAlias.status, 200, viaAlias.text)
  const viaMain = await app.request('PUT', MAIN, { body: { token } })
  assert.equal(viaMain.status, 400)
  assert.equal(
    viaMain.body.detail,
    'token: the bridge refused the setup token (HTTP 403): it was claimed already or is not valid; create a new one',
  )
  assert.deepEqual(
    fake.claims.map((c) => c.status),
    [200, 403],
  )
  const viaMain2 = await app.request('PUT', MAIN, { body: { token: fake.setupToken() } })
  assert.equal(viaMain2.status, 200, viaMain2.text)
  assert.deepEqual(viaMain2.body, viaAlias.body)

  // The stored access URL can be removed; then the source is not started.
  const removed = await app.request('DELETE', '/api/v1/sources/aggregator/credentials/access_url')
  assert.equal(removed.status, 200, removed.text)
  assert.equal(removed.body.active, false)
  assert.deepEqual(removed.body.credential, { kind: 'token', entries: [] })
  assert.equal(
    (await app.request('DELETE', '/api/v1/sources/aggregator/credentials/access_url')).status,
    404,
  )
  await assertNoSecret(box, fake)
})

/** Plays the scheduler's tick (which would otherwise wait sync.interval) and waits for the run. */
async function scheduledSync(app: TestAppHandle): Promise<Json> {
  const started = await app.sync.engine.trigger({
    trigger: 'schedule',
    source: null,
  })
  return started.done
}

test('request budget: the schedule polls at most once per sync.interval and says when it caps a window; by hand always fetches', async (t) => {
  const fake = await bridge(t, 1)
  // 6h: a quarter of the day, so a scheduled sync may spend 6 of the 24 daily requests.
  const box = await startAggregatorApp(t, {
    SERVICE_SYNC_INTERVAL: '6h',
    SERVICE_SYNC_LOOKBACK_DAYS: '1000',
    SERVICE_AGGREGATOR_ACCESS_URL: fake.accessUrl,
  })
  const { app, clock } = box
  // A row beyond what 6 windows of 90 days reach.
  fake.accounts[1]!.transactions.push({
    id: 'old',
    posted: daysAgo(600).unix,
    amount: '-1.00',
    description: 'Very old fee',
  })

  const first = await scheduledSync(app)
  assert.equal(first.trigger, 'schedule')
  assert.equal(fake.requests.length, 6)
  assert.deepEqual(first.counts.aggregator, { inserted: 5, updated: 0, unchanged: 0, skipped: 0 })
  assert.deepEqual(first.warnings, [
    "aggregator: history window capped: this scheduled sync fetched the newest 540 of 1000 days (6 of 12 requests), back to 2022-11-08, to stay within the bridge's 24 requests a day; a sync by hand fetches all of it",
  ])
  assert.deepEqual((await aggregatorEntry(app)).errors, [
    first.warnings[0].slice('aggregator: '.length),
  ])

  // Again before 6h have passed: no request at all, and the source says why.
  clock.advance(3600)
  const throttled = await scheduledSync(app)
  assert.equal(fake.requests.length, 6)
  assert.equal(throttled.status, 'success')
  assert.deepEqual(throttled.warnings, [
    'aggregator: skipped: the schedule polls the bridge at most once every 6h (sync.interval; the bridge allows about 24 requests a day): last poll 2024-05-01T12:00:00Z, next after 2024-05-01T18:00:00Z; a sync by hand fetches now',
  ])

  // By hand: fetches at once, every window, no cap.
  const manual = await syncNow(app, SYNC_ONE, ADMIN)
  assert.equal(fake.requests.length, 6 + 12)
  assert.deepEqual(manual.warnings, [])
  assert.deepEqual(manual.counts.aggregator, { inserted: 1, updated: 0, unchanged: 5, skipped: 0 })

  // The manual poll counts too: 6h after it, the schedule polls again.
  clock.advance(6 * 3600 - 1)
  await scheduledSync(app)
  assert.equal(fake.requests.length, 18)
  clock.advance(1)
  await scheduledSync(app)
  assert.equal(fake.requests.length, 18 + 6)
  await assertNoSecret(box, fake)
})

test('with sync.interval = "0" nothing is throttled', async (t) => {
  const fake = await bridge(t, 2)
  const box = await startAggregatorApp(t, {
    SERVICE_SYNC_INTERVAL: '0',
    SERVICE_SYNC_LOOKBACK_DAYS: '1000',
    SERVICE_AGGREGATOR_ACCESS_URL: fake.accessUrl,
  })
  const first = await scheduledSync(box.app)
  const second = await scheduledSync(box.app)
  assert.equal(fake.requests.length, 24)
  assert.deepEqual(first.warnings, [])
  assert.deepEqual(second.warnings, [])
  assert.deepEqual(second.counts.aggregator, { inserted: 0, updated: 0, unchanged: 5, skipped: 0 })
})

test('a configured setup token the bridge refuses: not connected, said once, never claimed again', async (t) => {
  const fake = await bridge(t, 1)
  const token = fake.setupToken()
  // Someone else claimed it first.
  const claimUrl = Buffer.from(token, 'base64').toString('utf8')
  assert.equal((await fetch(claimUrl, { method: 'POST' })).status, 200)
  const box = await startAggregatorApp(t, { SERVICE_AGGREGATOR_SETUP_TOKEN: token })
  const { app } = box

  const refused = await syncNow(app, SYNC_ONE, ADMIN)
  assert.equal(refused.status, 'success')
  assert.deepEqual(refused.warnings, [
    'aggregator: skipped: not connected: the bridge refused the setup token (HTTP 403): it was claimed already or is not valid; create a new one',
  ])
  const entry = await aggregatorEntry(app)
  assert.equal(entry.connected, false)
  assert.deepEqual(entry.credential, { kind: 'token', entries: [] })

  const again = await syncNow(app, SYNC_ONE, ADMIN)
  assert.deepEqual(again.warnings, [
    'aggregator: skipped: not connected: no SimpleFIN access URL or setup token; put a setup token with PUT /api/v1/sources/aggregator/credential',
  ])
  assert.deepEqual(
    fake.claims.map((c) => c.status),
    [200, 403],
  )

  // A new token put by hand connects; the configured one stays claimed.
  assert.equal((await putCredential(app, fake.setupToken())).status, 200)
  const run = await syncNow(app, SYNC_ONE, ADMIN)
  assert.deepEqual(run.warnings, [])
  assert.equal(run.counts.aggregator.inserted, 3)
  assert.deepEqual(
    fake.claims.map((c) => c.status),
    [200, 403, 200],
  )
  await assertNoSecret(box, fake)
})

test('coffer sync fetches from the bridge and prints the source in its summary, without a secret', async (t) => {
  const fake = await bridge(t, 2)
  const dir = mkdtempSync(join(tmpdir(), 'coffer-aggregator-cli-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const env: Record<string, string> = {
    ...process.env,
    SERVICE_DATABASE_PATH: join(dir, 'coffer.db'),
    SERVICE_DATA_DIR: join(dir, 'data'),
    SERVICE_AGGREGATOR_SETUP_TOKEN: fake.setupToken(),
    // The CLI runs on the real clock; ten years back reach the fixture's rows.
    SERVICE_SYNC_LOOKBACK_DAYS: '3650',
    SERVICE_LOG_FORMAT: 'json',
  }
  if (POSTGRES_DSN) {
    const schema = await createSchema()
    t.after(() => dropSchema(schema))
    env.SERVICE_DATABASE_DRIVER = 'postgres'
    env.SERVICE_DATABASE_DSN = dsnWithSchema(schema)
  }
  // Asynchronous: the fake bridge answers from this process while the CLI runs.
  const run = () =>
    // From the temp directory, never the checkout (a coffer.toml there must not count).
    promisify(execFile)(process.execPath, cofferArgs(['sync']), {
      cwd: dir,
      env,
      encoding: 'utf8',
      timeout: 180_000,
    })
  const first = await run()
  assert.deepEqual(first.stdout.trim().split('\n').slice(1), [
    '  aggregator: 5 inserted, 0 updated, 0 unchanged, 0 skipped',
  ])
  // A sync asked for by hand always fetches, however recent the last poll.
  const second = await run()
  assert.deepEqual(second.stdout.trim().split('\n').slice(1), [
    '  aggregator: 0 inserted, 0 updated, 5 unchanged, 0 skipped',
  ])
  // 41 windows of 90 days cover 3650 days, each run.
  assert.equal(fake.requests.length, 2 * 41)
  assert.deepEqual(
    fake.claims.map((c) => c.status),
    [200],
  )
  for (const text of [first.stdout, first.stderr, second.stdout, second.stderr]) {
    for (const secret of fake.secrets())
      assert.ok(!text.includes(secret), `leaks a secret: ${text}`)
  }
})

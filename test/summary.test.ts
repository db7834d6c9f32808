// GET /api/v1/transactions/summary and the summarize_transactions MCP tool
// (issue 13, item 9) over a real database, SQLite or (COFFER_TEST_POSTGRES_DSN)
// PostgreSQL: exact sums of 18-decimal amounts in several currencies, every
// period kind (ISO weeks across a year boundary), grouping by account and by
// label, queries the database decides and queries the matcher decides giving
// the sums of the search results, the 400s, the MCP tool, the read tier.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { sql } from 'kysely'
import { ENGINE, startTestApp, type RequestOptions, type TestAppHandle } from './helpers/app.js'
import { createAccount, createTransaction } from './helpers/ledger.js'
import { expectProblem, expectStatus, type Json } from './helpers/http.js'
import { connectMcp, toolFails, toolOk } from './helpers/mcp.js'
import { summarizeWith, type SummaryPlan } from '../src/search/summary.js'

const TOKEN = 'summary-test-dashboard-token-0123456789'

interface Ledger {
  app: TestAppHandle
  accounts: { eth: string; usd: string; eur: string }
}

// Amounts whose float sum is wrong (18 decimals), one past any int64 and
// double (the BigInt path), and the forms "5.", ".5", "-0.0".
const ROWS: Array<{
  account: keyof Ledger['accounts']
  amount: string
  date: string
  description: string
  labels?: Record<string, string>
}> = [
  {
    account: 'eth',
    amount: '0.100000000000000001',
    date: '2024-12-29T10:00:00Z',
    description: 'Gas refund',
    labels: { category: 'fees' },
  },
  {
    account: 'eth',
    amount: '0.200000000000000002',
    date: '2024-12-30T10:00:00Z',
    description: 'Staking reward',
  },
  {
    account: 'eth',
    amount: '-0.300000000000000004',
    date: '2025-01-01T00:00:00Z',
    description: 'Swap fee',
    labels: { category: 'fees' },
  },
  {
    account: 'eth',
    amount: '98765432109876543210.123456789012345678',
    date: '2025-01-05T23:59:59Z',
    description: 'Whale deposit',
  },
  {
    account: 'eth',
    amount: '-1234567.000000000000000001',
    date: '2025-01-06T00:00:00Z',
    description: 'Café crème paid in ETH',
    labels: { category: 'food' },
  },
  {
    account: 'usd',
    amount: '5.',
    date: '2024-12-31T23:59:59Z',
    description: 'Coffee beans',
    labels: { category: 'food' },
  },
  { account: 'usd', amount: '.5', date: '2025-01-01T00:00:01Z', description: 'Interest' },
  {
    account: 'usd',
    amount: '-0.0',
    date: '2025-01-02T12:00:00Z',
    description: 'Zero adjustment',
    labels: { category: 'fees' },
  },
  {
    account: 'usd',
    amount: '-12.34',
    date: '2025-01-02T13:00:00Z',
    description: 'Crème brûlée',
    labels: { category: 'food' },
  },
  {
    account: 'usd',
    amount: '-1000.10',
    date: '2021-01-03T09:00:00Z',
    description: 'Rent',
    labels: { category: 'rent' },
  },
  {
    account: 'eur',
    amount: '-3.33',
    date: '2025-01-02T08:00:00Z',
    description: 'Café au lait',
    labels: { category: 'food' },
  },
  { account: 'eur', amount: '1000000.01', date: '2020-12-28T08:00:00Z', description: 'Bonus' },
]

async function setup(
  t: TestContext,
  env: Record<string, string> = { SERVICE_DASHBOARD_TOKEN: TOKEN },
): Promise<Ledger> {
  const started = await startTestApp(t, { env })
  const token = env.SERVICE_DASHBOARD_TOKEN
  const app: TestAppHandle = Object.assign(Object.create(started) as TestAppHandle, {
    request: (method: string, path: string, options: RequestOptions = {}) =>
      started.request(method, path, { ...(token ? { token } : {}), ...options }),
  })
  const accounts = {
    eth: (await createAccount(app, { name: 'Ether Wallet', currency: 'ETH' })).id as string,
    usd: (await createAccount(app, { name: 'Checking', currency: 'USD' })).id as string,
    eur: (await createAccount(app, { name: 'Euro Card', currency: 'EUR' })).id as string,
  }
  for (const row of ROWS) {
    const created = await createTransaction(app, {
      account_id: accounts[row.account],
      amount: row.amount,
      date: row.date,
      description: row.description,
    })
    if (row.labels)
      await expectStatus(
        app,
        'PUT',
        `/api/v1/transactions/${encodeURIComponent(created.id)}/labels`,
        200,
        {
          labels: row.labels,
        },
      )
  }
  return { app, accounts }
}

type Params = Record<string, string | undefined>

/** Until the service has rebuilt every queued day of the rollups (SQLite; PostgreSQL keeps none). */
async function rollupsRebuilt(ledger: Ledger): Promise<void> {
  if (ENGINE !== 'sqlite') return
  const db = ledger.app.ctx.db.kysely
  const queued = async () =>
    (await sql<{ n: number }>`select count(*) as n from summary_pending`.execute(db)).rows[0]!.n
  for (let tries = 0; (await queued()) > 0; tries++) {
    assert.ok(tries < 100, 'the queued days were rebuilt within 10 s')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

function summaryPath(params: Params): string {
  const given = Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)
  return `/api/v1/transactions/summary?${new URLSearchParams(given).toString()}`
}

async function summary(ledger: Ledger, params: Params): Promise<Json> {
  return expectStatus(ledger.app, 'GET', summaryPath(params), 200)
}

// The reference: every search result, summed with BigInt here.
function scaled(text: string): { units: bigint; scale: number } {
  const negative = text.startsWith('-')
  const [int = '', frac = ''] = text.replace(/^[-+]/, '').split('.')
  const units = BigInt((int || '0') + frac)
  return { units: negative ? -units : units, scale: frac.length }
}
function plus(a: string, b: string): string {
  const x = scaled(a)
  const y = scaled(b)
  const scale = Math.max(x.scale, y.scale)
  const units = x.units * 10n ** BigInt(scale - x.scale) + y.units * 10n ** BigInt(scale - y.scale)
  if (units === 0n) return '0'
  const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0')
  const int = digits.slice(0, digits.length - scale)
  const frac = digits.slice(digits.length - scale).replace(/0+$/, '')
  return `${units < 0n ? '-' : ''}${int}${frac ? `.${frac}` : ''}`
}

interface Group {
  period: string
  start: string
  key: string | null
  currency: string
  count: number
  sum: string
  inflow: string
  outflow: string
}

/** The month × currency groups the search results add up to, summed here. */
async function expectedFromSearch(
  ledger: Ledger,
  q: string,
  keyOf: (t: Json) => string | null,
  dates: { since?: string; until?: string } = {},
): Promise<Group[]> {
  const range = Object.entries(dates).map(([k, v]) => `&${k}=${v}`)
  const found = await expectStatus(
    ledger.app,
    'GET',
    `/api/v1/transactions/search?q=${encodeURIComponent(q)}&limit=1000${range.join('')}`,
    200,
  )
  assert.equal(found.total_is_lower_bound, false)
  const currencyOf = new Map([
    [ledger.accounts.eth, 'ETH'],
    [ledger.accounts.usd, 'USD'],
    [ledger.accounts.eur, 'EUR'],
  ])
  const groups = new Map<string, Group>()
  for (const t of found.transactions) {
    const month = (t.date as string).slice(0, 7)
    const key = keyOf(t)
    const currency = currencyOf.get(t.account_id)!
    const id = JSON.stringify([month, key, currency])
    const g = groups.get(id) ?? {
      period: month,
      start: `${month}-01`,
      key,
      currency,
      count: 0,
      sum: '0',
      inflow: '0',
      outflow: '0',
    }
    groups.set(id, g)
    g.count++
    g.sum = plus(g.sum, t.amount)
    if (t.amount.startsWith('-')) g.outflow = plus(g.outflow, t.amount)
    else g.inflow = plus(g.inflow, t.amount)
  }
  const order = (a: string | null, b: string | null) =>
    a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1
  return [...groups.values()].sort(
    (a, b) => order(a.start, b.start) || order(a.key, b.key) || order(a.currency, b.currency),
  )
}

test('exact sums per month and currency, and the other periods', async (t) => {
  const ledger = await setup(t)
  const body = await summary(ledger, {})
  assert.deepEqual(
    { query: body.query, period: body.period, group_by: body.group_by, by_label: body.by_label },
    { query: '', period: 'month', group_by: null, by_label: null },
  )
  assert.deepEqual(body.groups, [
    {
      period: '2020-12',
      start: '2020-12-01',
      key: null,
      currency: 'EUR',
      count: 1,
      sum: '1000000.01',
      inflow: '1000000.01',
      outflow: '0',
    },
    {
      period: '2021-01',
      start: '2021-01-01',
      key: null,
      currency: 'USD',
      count: 1,
      sum: '-1000.1',
      inflow: '0',
      outflow: '-1000.1',
    },
    {
      period: '2024-12',
      start: '2024-12-01',
      key: null,
      currency: 'ETH',
      count: 2,
      sum: '0.300000000000000003',
      inflow: '0.300000000000000003',
      outflow: '0',
    },
    {
      period: '2024-12',
      start: '2024-12-01',
      key: null,
      currency: 'USD',
      count: 1,
      sum: '5',
      inflow: '5',
      outflow: '0',
    },
    {
      period: '2025-01',
      start: '2025-01-01',
      key: null,
      currency: 'ETH',
      count: 3,
      sum: '98765432109875308642.823456789012345673',
      inflow: '98765432109876543210.123456789012345678',
      outflow: '-1234567.300000000000000005',
    },
    {
      period: '2025-01',
      start: '2025-01-01',
      key: null,
      currency: 'EUR',
      count: 1,
      sum: '-3.33',
      inflow: '0',
      outflow: '-3.33',
    },
    {
      period: '2025-01',
      start: '2025-01-01',
      key: null,
      currency: 'USD',
      count: 3,
      sum: '-11.84',
      inflow: '0.5',
      outflow: '-12.34',
    },
  ])
  // A double would not get this right.
  assert.notEqual(
    String(Number('0.100000000000000001') + Number('0.200000000000000002')),
    '0.300000000000000003',
  )

  const years = await summary(ledger, { period: 'year' })
  assert.deepEqual(
    years.groups.map((g: Group) => [g.period, g.start, g.currency, g.count, g.sum]),
    [
      ['2020', '2020-01-01', 'EUR', 1, '1000000.01'],
      ['2021', '2021-01-01', 'USD', 1, '-1000.1'],
      ['2024', '2024-01-01', 'ETH', 2, '0.300000000000000003'],
      ['2024', '2024-01-01', 'USD', 1, '5'],
      ['2025', '2025-01-01', 'ETH', 3, '98765432109875308642.823456789012345673'],
      ['2025', '2025-01-01', 'EUR', 1, '-3.33'],
      ['2025', '2025-01-01', 'USD', 3, '-11.84'],
    ],
  )

  // ISO weeks: Monday first; 2024-12-30 (a Monday) begins 2025-W01, which
  // holds 2025-01-05 (a Sunday); 2024-12-29 is in 2024-W52; 2021-01-03 (a
  // Sunday) and 2020-12-28 are in 2020-W53.
  const weeks = await summary(ledger, { period: 'week' })
  assert.deepEqual(
    weeks.groups.map((g: Group) => [g.period, g.start, g.currency, g.count, g.sum]),
    [
      ['2020-W53', '2020-12-28', 'EUR', 1, '1000000.01'],
      ['2020-W53', '2020-12-28', 'USD', 1, '-1000.1'],
      ['2024-W52', '2024-12-23', 'ETH', 1, '0.100000000000000001'],
      ['2025-W01', '2024-12-30', 'ETH', 3, '98765432109876543210.023456789012345676'],
      ['2025-W01', '2024-12-30', 'EUR', 1, '-3.33'],
      ['2025-W01', '2024-12-30', 'USD', 4, '-6.84'],
      ['2025-W02', '2025-01-06', 'ETH', 1, '-1234567.000000000000000001'],
    ],
  )

  const days = await summary(ledger, { period: 'day', since: '2025-01-01', until: '2025-01-02' })
  assert.deepEqual(
    days.groups.map((g: Group) => [
      g.period,
      g.start,
      g.currency,
      g.count,
      g.sum,
      g.inflow,
      g.outflow,
    ]),
    [
      ['2025-01-01', '2025-01-01', 'ETH', 1, '-0.300000000000000004', '0', '-0.300000000000000004'],
      ['2025-01-01', '2025-01-01', 'USD', 1, '0.5', '0.5', '0'],
      ['2025-01-02', '2025-01-02', 'EUR', 1, '-3.33', '0', '-3.33'],
      // "-0.0" counts, and adds nothing to either side.
      ['2025-01-02', '2025-01-02', 'USD', 2, '-12.34', '0', '-12.34'],
    ],
  )
})

test('grouped by account and by a label value (null for rows without it)', async (t) => {
  const ledger = await setup(t)
  const { eth, usd, eur } = ledger.accounts
  const byAccount = await summary(ledger, { period: 'year', group_by: 'account' })
  assert.equal(byAccount.group_by, 'account')
  const sorted = [eth, usd, eur].sort()
  const expected2025 = [
    [eth, 'ETH', 3, '98765432109875308642.823456789012345673'],
    [usd, 'USD', 3, '-11.84'],
    [eur, 'EUR', 1, '-3.33'],
  ].sort((a, b) => sorted.indexOf(a[0] as string) - sorted.indexOf(b[0] as string))
  assert.deepEqual(
    byAccount.groups
      .filter((g: Group) => g.period === '2025')
      .map((g: Group) => [g.key, g.currency, g.count, g.sum]),
    expected2025,
  )

  const byCategory = await summary(ledger, {
    period: 'year',
    group_by: 'label',
    by_label: ' Category ',
  })
  assert.equal(byCategory.by_label, 'category')
  assert.deepEqual(
    byCategory.groups.map((g: Group) => [g.period, g.key, g.currency, g.count, g.sum]),
    [
      ['2020', null, 'EUR', 1, '1000000.01'],
      ['2021', 'rent', 'USD', 1, '-1000.1'],
      ['2024', null, 'ETH', 1, '0.200000000000000002'],
      ['2024', 'fees', 'ETH', 1, '0.100000000000000001'],
      ['2024', 'food', 'USD', 1, '5'],
      ['2025', null, 'ETH', 1, '98765432109876543210.123456789012345678'],
      ['2025', null, 'USD', 1, '0.5'],
      ['2025', 'fees', 'ETH', 1, '-0.300000000000000004'],
      ['2025', 'fees', 'USD', 1, '0'],
      ['2025', 'food', 'ETH', 1, '-1234567.000000000000000001'],
      ['2025', 'food', 'EUR', 1, '-3.33'],
      ['2025', 'food', 'USD', 1, '-12.34'],
    ],
  )
  // The label filters narrow as they do for search.
  const food = await summary(ledger, { period: 'year', label_key: 'category', label_value: 'food' })
  assert.deepEqual(
    food.groups.map((g: Group) => [g.period, g.currency, g.count, g.sum]),
    [
      ['2024', 'USD', 1, '5'],
      ['2025', 'ETH', 1, '-1234567.000000000000000001'],
      ['2025', 'EUR', 1, '-3.33'],
      ['2025', 'USD', 1, '-12.34'],
    ],
  )
})

test('a query gives the sums of its search results, whether SQL or the matcher decides it', async (t) => {
  const ledger = await setup(t)
  const labelOf = (tx: Json) => (tx.labels?.category as string | undefined) ?? null
  const cases: Array<{ q: string; plan: SummaryPlan; count: number }> = [
    { q: 'label:category=food amount:<0', plan: 'sql', count: 3 },
    { q: 'amount:>0.1 OR -label:category', plan: 'sql', count: 6 },
    // ASCII free text: the text index and the account names decide it in SQL.
    { q: 'wallet', plan: 'sql', count: 5 },
    // Free text outside ASCII is for the matcher to decide.
    { q: 'crème', plan: 'matcher', count: 2 },
    { q: 'crème OR wallet', plan: 'matcher', count: 6 },
    // NOTs alone: on SQLite every row's sums from the rollups, less what they leave out.
    { q: '-label:category=food', plan: ENGINE === 'sqlite' ? 'complement' : 'sql', count: 8 },
    { q: '-wallet -amount:<0', plan: ENGINE === 'sqlite' ? 'complement' : 'sql', count: 4 },
  ]
  await rollupsRebuilt(ledger)
  for (const { q, plan, count } of cases) {
    for (const grouping of [{}, { group_by: 'label', by_label: 'category' }] as const) {
      const body = await summary(ledger, { q, ...grouping })
      assert.equal(body.query, q)
      const expected = await expectedFromSearch(
        ledger,
        q,
        'group_by' in grouping ? labelOf : () => null,
      )
      assert.deepEqual(body.groups, expected, `${q} ${JSON.stringify(grouping)}`)
      assert.equal(
        body.groups.reduce((n: number, g: Group) => n + g.count, 0),
        count,
        `${q}: count`,
      )
    }
    // Within a few days (read row by row on SQLite, search/stream.ts withinFewDays).
    const dates = { since: '2025-01-01', until: '2025-01-05' }
    const ranged = await summary(ledger, { q, group_by: 'label', by_label: 'category', ...dates })
    assert.deepEqual(ranged.groups, await expectedFromSearch(ledger, q, labelOf, dates), q)
    // How it ran, asked of the service itself.
    let ran: SummaryPlan | undefined
    await summarizeWith({ db: ledger.app.ctx.db.kysely, onPlan: (p) => (ran = p) }, { q })
    assert.equal(ran, plan, q)
  }
})

test('sums longer than an amount (the longest amounts added up) answer exactly on every plan', async (t) => {
  const ledger = await setup(t)
  // 64 characters each, the longest amounts: two outflows sum to 65 characters,
  // the inflows to 129, past what an amount may be (a fuzz finding: a 500).
  const longestOut = `-${'9'.repeat(63)}`
  const longestIn = '9'.repeat(64)
  const big = [longestOut, longestOut, longestIn, longestIn, `.${'1'.repeat(63)}`]
  for (const [i, amount] of big.entries()) {
    const created = await createTransaction(ledger.app, {
      account_id: ledger.accounts.usd,
      amount,
      // One day: a day of the rollups (SQLite) holds a long total too.
      date: `2019-07-01T1${i}:00:00Z`,
      description: i % 2 ? 'crème huge' : 'huge',
    })
    await expectStatus(
      ledger.app,
      'PUT',
      `/api/v1/transactions/${encodeURIComponent(created.id)}/labels`,
      200,
      { labels: { category: 'huge' } },
    )
  }
  const labelOf = (tx: Json) => (tx.labels?.category as string | undefined) ?? null
  const check = async (when: string) => {
    // No query (the rollups on SQLite once rebuilt), SQL, the matcher, NOTs alone.
    for (const q of ['', 'huge', 'crème', '-wallet', 'label:category=huge']) {
      for (const grouping of [{}, { group_by: 'label', by_label: 'category' }] as const) {
        const body = await summary(ledger, { q, ...grouping })
        const expected = await expectedFromSearch(
          ledger,
          q,
          'group_by' in grouping ? labelOf : () => null,
        )
        assert.deepEqual(body.groups, expected, `${when}: ${q} ${JSON.stringify(grouping)}`)
      }
    }
    const july = (await summary(ledger, { q: 'label:category=huge' })).groups as Group[]
    assert.deepEqual(
      july.map((g) => [g.period, g.count, g.inflow, g.outflow]),
      [['2019-07', 5, `1${'9'.repeat(63)}8.${'1'.repeat(63)}`, `-1${'9'.repeat(62)}8`]],
    )
    assert.ok(july[0]!.inflow.length > 64 && july[0]!.outflow.length > 64)
  }
  await check('at once')
  await rollupsRebuilt(ledger)
  await check('rebuilt')
  let ran: SummaryPlan | undefined
  await summarizeWith({ db: ledger.app.ctx.db.kysely, onPlan: (p) => (ran = p) }, {})
  assert.equal(ran, ENGINE === 'sqlite' ? 'rollups' : 'sql')
})

test('a summary without a query is current at once after writes; on SQLite from the rollups once rebuilt', async (t) => {
  const ledger = await setup(t)
  const db = ledger.app.ctx.db.kysely
  const byCategory = { group_by: 'label' as const, by_label: 'category' }
  const expected = () =>
    expectedFromSearch(ledger, '', (tx) => (tx.labels as Record<string, string>).category ?? null)
  const plan = async () => {
    let ran: SummaryPlan | undefined
    await summarizeWith({ db, onPlan: (p) => (ran = p) }, { period: 'month', ...byCategory })
    return ran
  }
  // The service rebuilds queued days in the background (search/rollups.ts).
  const rebuilt = () => rollupsRebuilt(ledger)
  await rebuilt()
  assert.equal(await plan(), ENGINE === 'sqlite' ? 'rollups' : 'sql')
  assert.deepEqual((await summary(ledger, byCategory)).groups, await expected())

  // Writes of every kind through the API: the next summary has them, queued or rebuilt.
  const listed = await expectStatus(ledger.app, 'GET', '/api/v1/transactions?limit=100', 200)
  const [first, second, third] = listed.transactions as Json[]
  const path = (tx: Json) => `/api/v1/transactions/${encodeURIComponent(tx.id)}`
  await expectStatus(ledger.app, 'PUT', path(first), 200, {
    amount: '-0.000000000000000007',
    date: '2023-02-28T23:59:59Z',
    account_id: ledger.accounts.eur,
  })
  await expectStatus(ledger.app, 'PUT', `${path(second)}/labels`, 200, {
    labels: { category: 'moved' },
  })
  await expectStatus(ledger.app, 'DELETE', path(third), 204)
  await createTransaction(ledger.app, {
    account_id: ledger.accounts.usd,
    amount: '12.5',
    date: '2023-02-01T00:00:00Z',
  })
  // Right away: on SQLite their days are likely still queued, and summed from the rows.
  assert.deepEqual((await summary(ledger, byCategory)).groups, await expected(), 'at once')
  await rebuilt()
  assert.deepEqual((await summary(ledger, byCategory)).groups, await expected(), 'rebuilt')
})

test('no match: no groups, on either plan; on SQLite the read pool runs it', async (t) => {
  const ledger = await setup(t)
  for (const q of ['nothing-at-all', 'zzzç', 'amount:>1000000000000000000000']) {
    const body = await summary(ledger, { q, group_by: 'account' })
    assert.deepEqual(body.groups, [], q)
  }
  // SQLite reads are synchronous: summaries run in worker threads, as searches do.
  if (ENGINE === 'sqlite') assert.ok(ledger.app.searches.workers > 0)
})

test('bad input answers 400 naming the field or the query offset', async (t) => {
  const ledger = await setup(t)
  const noKey = await expectProblem(ledger.app, 'GET', summaryPath({ group_by: 'label' }), 400)
  assert.deepEqual(
    noKey.errors.map((e: { field: string }) => e.field),
    ['by_label'],
  )
  const query = await expectProblem(ledger.app, 'GET', summaryPath({ q: 'amount:<' }), 400)
  assert.match(query.detail, /offset \d+|at \d+|position/i)
  for (const params of [
    { period: 'fortnight' },
    { group_by: 'payee' },
    { since: 'yesterday' },
    { label_value: 'food' },
  ]) {
    const problem = await expectProblem(ledger.app, 'GET', summaryPath(params), 400)
    assert.ok(problem.errors?.length > 0 || problem.detail, JSON.stringify(params))
  }
})

test('the MCP tool answers the same JSON as REST, errors alike', async (t) => {
  const ledger = await setup(t)
  const client = await connectMcp(t, ledger.app, TOKEN)
  for (const params of [
    {},
    { period: 'week', group_by: 'account' },
    { period: 'year', group_by: 'label', by_label: 'category', q: 'crème OR amount:<0' },
  ] as Params[]) {
    assert.deepEqual(
      await toolOk(client, 'summarize_transactions', params),
      await summary(ledger, params),
    )
  }
  const problem = await toolFails(client, 'summarize_transactions', { group_by: 'label' })
  assert.equal(problem.status, 400)
  assert.deepEqual(
    problem.errors?.map((e) => e.field),
    ['by_label'],
  )
})

test('read tier: a read API key reads the summary; without a token anyone may', async (t) => {
  const ledger = await setup(t)
  const key = await expectStatus(ledger.app, 'POST', '/api/v1/security/api-keys', 201, {
    name: 'reports',
    scope: 'read',
  })
  const withKey = await ledger.app.request('GET', summaryPath({ period: 'year' }), {
    token: key.key,
  })
  assert.equal(withKey.status, 200, withKey.text)
  assert.equal(withKey.body.groups.length, 7)
  const anonymous = await ledger.app.request('GET', summaryPath({}), { token: '' })
  assert.equal(anonymous.status, 401)

  const open = await setup(t, {})
  const body = await summary(open, { period: 'year' })
  assert.equal(body.groups.length, 7)
})

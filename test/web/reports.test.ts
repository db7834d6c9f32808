// The Reports page (issue 13, item 9) in Chromium against a real `coffer serve`:
// a ledger of several months in two currencies, with labels and amounts of many
// decimals, seeded through the API; the numbers the page shows (the table
// under each chart) must equal sums the test makes itself, with BigInt, from
// the transactions the API lists.
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import { groupDigits } from '../../web/src/components/format.js'
import { closeBrowser, openDashboard, serve } from '../helpers/browser.js'
import { seededRandom } from '../helpers/seeded.js'

after(closeBrowser)

const SCALE = 12

/** A decimal (the API's "-12.5", or the page's "−1,234.5") as units of 10^-SCALE. */
function units(text: string): bigint {
  const plain = text.replace(/,/g, '').replace('−', '-').trim()
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(plain)
  assert.ok(match, `not a decimal: ${JSON.stringify(text)}`)
  const [, sign, whole = '', fraction = ''] = match
  assert.ok(fraction.length <= SCALE, text)
  const value = BigInt((whole || '0') + fraction.padEnd(SCALE, '0'))
  return sign === '-' ? -value : value
}

const CATEGORIES = ['food', 'rent', 'salary', 'fun', 'travel', 'books', 'health', 'gifts', 'tax']
const MONTHS = ['2024-01', '2024-02', '2024-03', '2024-04', '2024-05', '2024-06']

interface Tx {
  id: string
  account_id: string
  amount: string
  date: string
  labels: Record<string, string>
}

/** Seeds three accounts (two in USD, one in EUR) and ~80 transactions; returns them as the API lists them. */
async function seed(server: Awaited<ReturnType<typeof serve>>) {
  const post = async (path: string, body: unknown, method = 'POST') => {
    const res = await server.request(method, `/api/v1${path}`, { body })
    assert.ok(res.status === 200 || res.status === 201, `${path}: ${res.status} ${res.text}`)
    return res.body
  }
  const checking = await post('/accounts', {
    name: 'Checking',
    currency: 'USD',
    balance: '12345.678901234',
  })
  const card = await post('/accounts', { name: 'Card', currency: 'USD', balance: '-250.5' })
  const travel = await post('/accounts', { name: 'Travel', currency: 'EUR', balance: '800.123' })
  const random = seededRandom(13)
  const amount = (max: number, sign: 1 | -1) => {
    const whole = Math.floor(random() * max)
    const fraction = String(Math.floor(random() * 1e9)).padStart(9, '0')
    return `${sign < 0 ? '-' : ''}${whole}.${fraction}`
  }
  const add = async (
    account: string,
    value: string,
    date: string,
    labels: Record<string, string>,
  ) => {
    const tx = await post('/transactions', {
      account_id: account,
      amount: value,
      date,
      description: `t ${date}`,
    })
    if (Object.keys(labels).length > 0)
      await post(`/transactions/${tx.id}/labels`, { labels }, 'PUT')
  }
  for (const [m, month] of MONTHS.entries()) {
    await add(checking.id, amount(5000, 1), `${month}-01`, { category: 'salary' })
    await add(checking.id, amount(1500, -1), `${month}-03`, { category: 'rent' })
    for (let i = 0; i < 6; i++) {
      const category = CATEGORIES[(m * 3 + i) % CATEGORIES.length]!
      if (category === 'salary') continue
      const day = String(5 + i * 4).padStart(2, '0')
      const labels: Record<string, string> = { category }
      if (i === 2) labels.project = 'house'
      await add(i % 2 ? card.id : checking.id, amount(300, -1), `${month}-${day}`, labels)
    }
    // Without a category, and a refund (income in a spending category).
    await add(card.id, amount(80, -1), `${month}-27`, {})
    if (m % 2 === 0) await add(card.id, amount(40, 1), `${month}-28`, { category: 'food' })
    await add(travel.id, amount(400, -1), `${month}-15`, { category: m % 2 ? 'travel' : 'food' })
    if (m === 2) await add(travel.id, amount(900, 1), `${month}-20`, { category: 'gifts' })
  }
  // After the range the page shows: left out of the sums, counted in the balances.
  await add(checking.id, '-999.000000001', '2024-08-09', { category: 'tax' })
  await add(checking.id, '0.5', '2024-06-30', { category: 'gifts' })

  const listed = await server.request('GET', '/api/v1/transactions?limit=1000')
  assert.equal(listed.status, 200)
  assert.equal(listed.body.transactions.length, listed.body.total)
  const accounts = (await server.request('GET', '/api/v1/accounts')).body.accounts as {
    id: string
    name: string
    currency: string
    balance: string
  }[]
  return { transactions: listed.body.transactions as Tx[], accounts, checking, card, travel }
}

/** A table's header cells and body rows, as text. */
async function readTable(table: Locator): Promise<{ head: string[]; rows: string[][] }> {
  await table.waitFor()
  return table.evaluate((el) => ({
    head: [...el.querySelectorAll('thead th')].map((c) => (c.textContent ?? '').trim()),
    rows: [...el.querySelectorAll('tbody tr')].map((r) =>
      [...r.children].map((c) => (c.textContent ?? '').trim()),
    ),
  }))
}

/** The day of a transaction (its date may be an RFC 3339 timestamp). */
const day = (tx: Tx) => tx.date.slice(0, 10)

function sum(values: Iterable<bigint>): bigint {
  let total = 0n
  for (const v of values) total += v
  return total
}

/** Asserts that a table's column holds the expected amount in each period's row. */
function assertColumn(
  table: { head: string[]; rows: string[][] },
  column: string,
  expected: (period: string) => bigint,
) {
  const index = table.head.indexOf(column)
  assert.ok(index > 0, `no column ${column} in ${table.head.join(' | ')}`)
  for (const row of table.rows) {
    assert.equal(units(row[index]!), expected(row[0]!), `${column} in ${row[0]}`)
  }
}

/**
 * Does `act`, then waits for the summary it asks for (a request whose address
 * holds `part`) to be answered and drawn: until then the page may still show the
 * previous sums under the same caption (aria-busy marks them).
 */
async function summarizedAfter(page: Page, part: string, act: () => Promise<void>) {
  const answered = page.waitForResponse(
    (r) => r.url().includes('/api/v1/transactions/summary?') && r.url().includes(part),
  )
  await act()
  await answered
  await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' })
}

async function waitForTable(page: Page, caption: RegExp, firstCell?: string) {
  const table = page.getByRole('table', { name: caption })
  await table.waitFor()
  if (firstCell) await table.getByRole('rowheader', { name: firstCell, exact: true }).waitFor()
  await page.waitForLoadState('networkidle')
  return table
}

test('reports: income and spending, spending by label, balance over time, all exact', async (t) => {
  const server = await serve(t)
  const { transactions, accounts, checking } = await seed(server)
  const currencyOf = new Map(accounts.map((a) => [a.id, a.currency]))
  const inRange = (tx: Tx) => day(tx) >= '2024-01-01' && day(tx) <= '2024-06-30'
  const of = (currency: string, month: string, keep: (tx: Tx) => boolean = () => true) =>
    transactions.filter(
      (tx) =>
        currencyOf.get(tx.account_id) === currency &&
        day(tx).startsWith(month) &&
        inRange(tx) &&
        keep(tx),
    )

  const dash = await openDashboard(t, server)
  const { page } = dash
  await dash.goto('/reports?since=2024-01-01&until=2024-06-30')
  await page.getByRole('heading', { name: 'Reports' }).waitFor()

  // 1. Income and spending per month, in the currency with the most transactions (USD).
  let flows = await readTable(
    await waitForTable(page, /Income, spending and net per month \(USD\)/),
  )
  assert.deepEqual(
    flows.rows.map((r) => r[0]),
    MONTHS,
  )
  assert.deepEqual(flows.head, ['Period', 'Income', 'Spending', 'Net'])
  const amounts = (txs: Tx[]) => txs.map((tx) => units(tx.amount))
  const checkFlows = (currency: string, keep?: (tx: Tx) => boolean) => {
    assertColumn(flows, 'Income', (m) => sum(amounts(of(currency, m, keep)).filter((v) => v > 0n)))
    assertColumn(flows, 'Spending', (m) =>
      sum(amounts(of(currency, m, keep)).filter((v) => v < 0n)),
    )
    assertColumn(flows, 'Net', (m) => sum(amounts(of(currency, m, keep))))
  }
  checkFlows('USD')
  await page.getByRole('heading', { name: 'Income and spending per month (USD)' }).waitFor()

  // 2. Spending by category: the seven largest values, the others summed as one.
  const labelTable = await waitForTable(page, /Spending by category per month \(USD\)/, '2024-01')
  const byLabel = await readTable(labelTable)
  assert.equal(byLabel.head[0], 'Period')
  assert.equal(byLabel.head.at(-1), 'Total')
  const shown = byLabel.head.slice(1, -1)
  assert.equal(shown.length, 8, shown.join(' | '))
  assert.match(shown.at(-1)!, /^Other \(\d values\)$/)
  const named = shown.slice(0, -1).map((name) => (name === '(no category)' ? undefined : name))
  const spending = (m: string, keep: (tx: Tx) => boolean) =>
    -sum(amounts(of('USD', m, keep)).filter((v) => v < 0n))
  for (const name of shown.slice(0, -1)) {
    const value = name === '(no category)' ? undefined : name
    assertColumn(byLabel, name, (m) => spending(m, (tx) => tx.labels.category === value))
  }
  assertColumn(byLabel, shown.at(-1)!, (m) =>
    spending(m, (tx) => !named.includes(tx.labels.category)),
  )
  assertColumn(byLabel, 'Total', (m) => spending(m, () => true))
  // The largest first: rent is the biggest spending.
  assert.equal(shown[0], 'rent')
  await dash.screenshot('reports')

  // 3. The balance of Checking at the end of each month: its balance less every later transaction.
  await page.getByLabel('Account', { exact: true }).selectOption({ label: 'Checking (USD)' })
  await page.waitForURL(/account=/)
  const balanceTable = await waitForTable(page, /Balance of Checking at the end of each month/)
  await page.waitForLoadState('networkidle')
  const balances = await readTable(balanceTable)
  assert.deepEqual(
    balances.rows.map((r) => r[0]),
    MONTHS,
  )
  const endOf = (month: string) => `${month}-31`
  assertColumn(balances, 'Balance', (m) => {
    const later = transactions.filter((tx) => tx.account_id === checking.id && day(tx) > endOf(m))
    return units(checking.balance) - sum(amounts(later))
  })
  await page.getByText(/Derived, not recorded/).waitFor()

  // The chart is reached by keyboard: one tab stop, arrows between periods, exact amounts.
  const point = page.getByRole('img', { name: /^2024-03: Income/ })
  await point.focus()
  await page.keyboard.press('ArrowRight')
  const focused = String(
    await page.evaluate(
      'document.activeElement && document.activeElement.getAttribute("aria-label")',
    ),
  )
  assert.ok(focused.startsWith('2024-04: Income'), focused)
  const net = /Net (\S+) USD/.exec(focused)
  assert.ok(net, focused)
  assert.equal(units(net[1]!), sum(amounts(of('USD', '2024-04'))))
  // The tooltip (aria-hidden: the point's label says it) shows the same exact amounts.
  await page
    .locator('.chart-tip')
    .getByText(groupDigits(net[1]!.replace('−', '-').replace(/,/g, '')))
    .first()
    .waitFor()
  await dash.screenshot('reports-tooltip')

  // The other currency: never added to the first.
  await page.getByLabel('Currency', { exact: true }).selectOption('EUR')
  await page.waitForURL(/currency=EUR/)
  flows = await readTable(await waitForTable(page, /Income, spending and net per month \(EUR\)/))
  checkFlows('EUR')

  // A search applies to the sums (here: food only) and is kept in the address bar.
  await page.getByLabel('Currency', { exact: true }).selectOption('USD')
  const search = page.getByRole('searchbox', { name: 'Filter the reports' })
  await search.fill('category:food')
  await summarizedAfter(page, 'q=category%3Afood', () => search.press('Enter'))
  await page.waitForURL(/q=category%3Afood/)
  await page.waitForLoadState('networkidle')
  flows = await readTable(await waitForTable(page, /Income, spending and net per month \(USD\)/))
  checkFlows('USD', (tx) => tx.labels.category === 'food')

  // A search that does not parse is shown inline, not as a blank page.
  await search.fill('category:food (')
  await search.press('Enter')
  const alert = page.getByRole('alert').filter({ hasText: /offset \d+|parenthes/ })
  await alert.waitFor()
  assert.equal(new URL(page.url()).searchParams.get('q'), 'category:food (')
  // The sums of the last search that parsed are not left on show as if they were this one's.
  await page.getByText('Fix the search above to see these sums.').first().waitFor()
  assert.equal(await page.getByRole('table', { name: /Income, spending and net/ }).count(), 0)
  await dash.screenshot('reports-search-error')

  await dash.phone('/reports?since=2024-01-01&until=2024-06-30', 'reports')
})

test('reports: weeks and years, an empty ledger, and dark mode', async (t) => {
  const server = await serve(t)
  const dash = await openDashboard(t, server, { colorScheme: 'dark' })
  const { page } = dash
  await dash.goto('/reports')
  await page.getByText('No transactions match.').waitFor()
  await page.getByText('There are no accounts yet.').waitFor()
  await dash.screenshot('reports-empty')

  const { transactions, accounts } = await seed(server)
  const currencyOf = new Map(accounts.map((a) => [a.id, a.currency]))
  await dash.goto('/reports?period=year')
  const years = await readTable(
    await waitForTable(page, /Income, spending and net per year \(USD\)/),
  )
  assert.deepEqual(
    years.rows.map((r) => r[0]),
    ['2024'],
  )
  const usd = transactions.filter((tx) => currencyOf.get(tx.account_id) === 'USD')
  assertColumn(years, 'Net', () => sum(usd.map((tx) => units(tx.amount))))

  await summarizedAfter(page, 'period=week', async () => {
    await page.getByLabel('Period', { exact: true }).selectOption('week')
  })
  await page.waitForURL(/period=week/)
  const weeks = await readTable(
    await waitForTable(page, /Income, spending and net per week \(USD\)/),
  )
  // ISO weeks, the empty ones included: 2024-01-01 is a Monday in W01.
  assert.equal(weeks.rows[0]![0], '2024-W01')
  assert.equal(weeks.rows.at(-1)![0], '2024-W32')
  assert.equal(weeks.rows.length, 32)
  assert.equal(
    sum(weeks.rows.map((r) => units(r[weeks.head.indexOf('Net')]!))),
    sum(usd.map((tx) => units(tx.amount))),
  )
  await dash.screenshot('reports-weeks-dark')
  await dash.phone('/reports?period=week', 'reports-weeks-dark')
})

test('reports: axis labels of huge sums read as clean numbers; a one-row table says "1 row"', async (t) => {
  const server = await serve(t)
  const account = await server.request('POST', '/api/v1/accounts', {
    body: { name: 'Vault', currency: 'USD' },
  })
  assert.equal(account.status, 201, account.text)
  for (const [date, amount] of [
    ['2024-01-10', '-999999999999999999999999999999.123456789012345678'],
    ['2024-02-10', '450000000000000000000000000000'],
  ] as const) {
    const created = await server.request('POST', '/api/v1/transactions', {
      body: { account_id: account.body.id, date, amount, description: 'huge' },
    })
    assert.equal(created.status, 201, created.text)
  }
  const dash = await openDashboard(t, server)
  const { page } = dash
  await dash.goto('/reports')
  await waitForTable(page, /Income, spending and net per month \(USD\)/)
  const main = page.getByRole('main')
  // The axes: steps of 5e29 written as such, never the float's 4.9999999999999994e+29.
  await main.getByText('5e29', { exact: true }).first().waitFor({ timeout: 5000 })
  await main.getByText('−1e30', { exact: true }).first().waitFor()
  assert.equal(await main.getByText(/\de[+-]\d|\.\d*9{6}/).count(), 0)
  await dash.screenshot('reports-huge')

  await dash.goto('/reports?period=year')
  await waitForTable(page, /Income, spending and net per year \(USD\)/)
  assert.ok((await main.getByText('Table (1 row)', { exact: true }).count()) >= 1)
  assert.equal(await main.getByText('Table (1 rows)', { exact: true }).count(), 0)
})

// Long text and long amounts in every list (issue 13, the layout faults): an
// unbroken 4,000-character description, 90-character label values, key and rule
// names of hundreds of characters, a marketplace description without a space,
// and amounts of 48 digits. No page grows wider than the screen, on a desktop
// or a phone; long text wraps or is cut with its whole text reachable; an
// amount is always shown whole, sign, digits and currency.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test, type TestContext } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import {
  closeBrowser,
  inPage,
  openDashboard,
  PHONE,
  serve,
  type Serve,
} from '../helpers/browser.js'

after(closeBrowser)

const TOKEN = 'web-long-content-dashboard-token-0123456789'
const LONG_WORD = 'x'.repeat(4000)
const LONG_VALUE = `v${'0123456789'.repeat(9)}`
const HUGE_AMOUNT = '-999999999999999999999999999999.123456789012345678'
const HUGE_BALANCE = '123456789012345678901234567890.123456789012345678'

async function post(server: Serve, path: string, body: unknown): Promise<string> {
  const res = await server.request('POST', `/api/v1${path}`, { body, token: TOKEN })
  assert.equal(res.status, 201, res.text)
  return (res.body.id ?? res.body.name) as string
}

/** The page is no wider than its window (nothing to scroll sideways). */
async function fitsWidth(page: Page, where: string): Promise<void> {
  const [scroll, inner] = await inPage<[number, number]>(
    page,
    '[document.documentElement.scrollWidth, window.innerWidth]',
  )
  assert.ok(scroll <= inner, `${where}: the page is ${scroll} px wide in a ${inner} px window`)
}

/**
 * Every line of the element's text is on screen and on top: the first and
 * last character of each line box is the element itself (not clipped by a
 * card's overflow, not beyond the window's edge).
 */
// A function built from text: this project is compiled without the DOM's types.
// eslint-disable-next-line @typescript-eslint/no-implied-eval
const SHOWN_WHOLE = new Function(
  'element',
  `const range = document.createRange()
  range.selectNodeContents(element)
  const problems = []
  for (const box of range.getClientRects()) {
    if (box.width === 0) continue
    const y = box.top + box.height / 2
    for (const x of [box.left + 1, box.right - 1]) {
      if (x < 0 || x > window.innerWidth) {
        problems.push('beyond the window at x=' + Math.round(x))
        continue
      }
      const hit = document.elementFromPoint(x, y)
      if (!hit || !(hit === element || element.contains(hit))) {
        problems.push('hidden at x=' + Math.round(x) + ' under ' + (hit ? hit.tagName + '.' + hit.className : 'nothing'))
      }
    }
  }
  return problems`,
) as (element: unknown) => string[]

async function shownWhole(locator: Locator, what: string): Promise<void> {
  await locator.scrollIntoViewIfNeeded()
  const problems = await locator.evaluate(SHOWN_WHOLE)
  assert.deepEqual(problems, [], `${what} is not shown whole`)
}

async function setup(t: TestContext) {
  const server = await serve(t, { SERVICE_DASHBOARD_TOKEN: TOKEN })
  const account = await post(server, '/accounts', { name: 'Everyday', currency: 'USD' })
  const rich = await post(server, '/accounts', {
    name: 'Vault',
    currency: 'ETH',
    balance: HUGE_BALANCE,
  })
  const labelled = await post(server, '/transactions', {
    account_id: account,
    date: '2026-03-02',
    amount: '-12.50',
    description: LONG_WORD,
  })
  const labels = await server.request('PUT', `/api/v1/transactions/${labelled}/labels`, {
    body: { labels: { note: LONG_VALUE, other: LONG_VALUE } },
    token: TOKEN,
  })
  assert.equal(labels.status, 200, labels.text)
  await post(server, '/transactions', {
    account_id: rich,
    date: '2026-03-01',
    amount: HUGE_AMOUNT,
    description: 'the big one',
  })
  return { server, account, rich }
}

for (const [viewport, size] of [
  ['desktop', undefined],
  ['phone', PHONE],
] as const) {
  test(`transactions and accounts on a ${viewport}: long text fits, amounts are whole`, async (t) => {
    const { server, rich } = await setup(t)
    const dash = await openDashboard(t, server, {
      token: TOKEN,
      ...(size ? { viewport: size } : {}),
    })
    const { page } = dash
    // An amount's title is its exact text.
    const amount = () => page.getByTitle(HUGE_AMOUNT, { exact: true })

    await dash.goto('/transactions')
    await page.getByRole('link', { name: 'the big one' }).waitFor()
    await fitsWidth(page, '/transactions')
    // The long description is cut, and its whole text is its link's title.
    const long = page.getByRole('link', { name: LONG_WORD })
    assert.ok((await long.getAttribute('title')) === LONG_WORD, 'the title holds the whole text')
    // A label chip is cut too, its whole text in its title.
    assert.equal(
      await page.getByTitle(`note:${LONG_VALUE}`, { exact: true }).count(),
      1,
      'the chip keeps its whole text in its title',
    )
    await shownWhole(amount(), 'the amount')
    await shownWhole(page.getByTitle('-12.50', { exact: true }), 'the small amount')
    await dash.screenshot(`long-transactions-${viewport}`)

    await dash.goto(`/accounts/${encodeURIComponent(rich)}`)
    await page.getByRole('link', { name: 'the big one' }).waitFor()
    await fitsWidth(page, 'an account page')
    await shownWhole(amount(), 'the amount on the account page')
    await shownWhole(page.getByTitle(HUGE_BALANCE, { exact: true }).first(), 'the balance')
    await dash.screenshot(`long-account-${viewport}`)

    await dash.goto('/accounts')
    await page.getByRole('link', { name: 'Vault' }).waitFor()
    await fitsWidth(page, '/accounts')
    const balances = page.getByTitle(HUGE_BALANCE, { exact: true })
    assert.equal(await balances.count(), 2, 'the balance and its total')
    await shownWhole(balances.nth(0), 'the balance')
    await shownWhole(balances.nth(1), 'the total')
    for (const name of ['Edit Vault', 'Delete Vault']) {
      await shownWhole(page.getByRole('button', { name }), `the ${name} button`)
    }
    await dash.screenshot(`long-accounts-${viewport}`)
  })
}

test('API keys, rules and the marketplace: long unbroken names fit the screen', async (t) => {
  const index = {
    schema_version: 1,
    plugins: [
      {
        name: 'wordy',
        version: '1.0.0',
        description: 'Z'.repeat(3000),
        author: 'A'.repeat(300),
        capabilities: ['transactions:read'],
        files: [
          { path: 'plugin.toml', url: 'http://127.0.0.1:9/x', sha256: '0'.repeat(64), size: 1 },
        ],
      },
    ],
  }
  const registry = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(index))
  })
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => registry.close(() => resolve())))
  const { port } = registry.address() as AddressInfo
  const dir = mkdtempSync(join(tmpdir(), 'coffer-web-long-plugins-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))

  const server = await serve(t, {
    SERVICE_DASHBOARD_TOKEN: TOKEN,
    SERVICE_PLUGINS_DIR: dir,
    SERVICE_PLUGINS_REGISTRY_URL: `http://127.0.0.1:${port}/index.json`,
  })
  const longName = 'k'.repeat(200)
  await post(server, '/security/api-keys', { name: longName, scope: 'read' })
  const ruleName = 'r'.repeat(200)
  await post(server, '/rules', {
    name: ruleName,
    query: `description:${'q'.repeat(200)}`,
    labels: { [`key${'k'.repeat(40)}`]: 'w'.repeat(200) },
  })

  for (const size of [undefined, PHONE]) {
    const where = size ? 'phone' : 'desktop'
    const dash = await openDashboard(t, server, {
      token: TOKEN,
      ...(size ? { viewport: size } : {}),
    })
    const { page } = dash

    await dash.goto('/keys')
    await page.getByText(longName).first().waitFor()
    await fitsWidth(page, `/keys on a ${where}`)
    await shownWhole(page.getByRole('button', { name: `Revoke ${longName}` }), 'Revoke')
    await dash.screenshot(`long-keys-${where}`)
    // The "API key created" dialog of a long name stays inside the window.
    await page.getByLabel('Name').fill('m'.repeat(200))
    await page.getByRole('button', { name: 'Mint key' }).click()
    const dialog = page.getByRole('dialog', { name: 'API key created' })
    await dialog.waitFor()
    await shownWhole(dialog.getByRole('button', { name: 'I have copied it' }), 'the dialog button')
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    const widths = new Function('d', 'return [d.scrollWidth, d.clientWidth]') as (
      d: unknown,
    ) => [number, number]
    const [dialogScroll, dialogWidth] = await dialog.evaluate(widths)
    assert.ok(dialogScroll <= dialogWidth, `the dialog's content is ${dialogScroll} px wide`)
    await dash.screenshot(`long-keys-created-${where}`)
    await dialog.getByRole('button', { name: 'I have copied it' }).click()

    await dash.goto('/rules')
    await page.getByRole('link', { name: ruleName }).waitFor()
    await fitsWidth(page, `/rules on a ${where}`)
    await dash.screenshot(`long-rules-${where}`)

    await dash.goto('/plugins')
    await page.getByText('Z'.repeat(3000)).waitFor()
    await fitsWidth(page, `/plugins on a ${where}`)
    await shownWhole(page.getByRole('button', { name: /^Install/ }), 'Install')
    await dash.screenshot(`long-plugins-${where}`)
  }
})

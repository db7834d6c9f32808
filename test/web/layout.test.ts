// The dashboard's frame (issue 13, items 8 and 10): the keyboard alone reaches every
// page (skip link, `g` shortcuts, `/` for the search box), the phone menu, the dark
// colour scheme, the settings page (the effective configuration, secrets redacted)
// and the page for an unknown address.
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { closeBrowser, inPage, openDashboard, PHONE, serve } from '../helpers/browser.js'

after(closeBrowser)

test('the keyboard alone: skip link, g-shortcuts, / focuses the search box', async (t) => {
  const server = await serve(t)
  const dash = await openDashboard(t, server)
  const { page } = dash
  await dash.goto('/transactions')
  await page.getByRole('heading', { name: 'Transactions' }).waitFor()

  await page.keyboard.press('Tab')
  assert.equal(await inPage(page, 'document.activeElement?.textContent'), 'Skip to content')
  await page.keyboard.press('Enter')
  assert.equal(await inPage(page, 'document.activeElement?.id'), 'main')

  await page.keyboard.press('/')
  const box = page.getByRole('searchbox', { name: 'Search transactions' })
  assert.equal(await inPage(page, 'document.activeElement?.getAttribute("type")'), 'search')
  assert.equal(await box.inputValue(), '')
  await page.keyboard.press('Escape')
  await inPage(page, 'document.activeElement?.blur()')

  for (const [key, path, heading] of [
    ['a', '/accounts', 'Accounts'],
    ['u', '/rules', 'Rules'],
    ['t', '/transactions', 'Transactions'],
  ] as const) {
    await page.keyboard.press('g')
    await page.keyboard.press(key)
    await page.waitForURL((url) => url.pathname === path)
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
    const current = page.getByRole('navigation', { name: 'Main' }).getByRole('link', {
      name: new RegExp(`^${heading}`),
    })
    assert.equal(await current.getAttribute('aria-current'), 'page')
  }

  // A `g` pressed soon after another is not ended by the earlier one's 1.5 s
  // timer: `g` then a letter of no page, and 1 s later `g` then `u`, 1.8 s after
  // the first `g`.
  await page.keyboard.press('g')
  await page.keyboard.press('z')
  await page.waitForTimeout(1000)
  await page.keyboard.press('g')
  await page.waitForTimeout(800)
  await page.keyboard.press('u')
  await page.waitForURL((url) => url.pathname === '/rules', { timeout: 5_000 })
})

test('on a phone the navigation folds into a menu', async (t) => {
  const server = await serve(t)
  const dash = await openDashboard(t, server, { viewport: PHONE })
  const { page } = dash
  await dash.goto('/transactions')
  const nav = page.getByRole('navigation', { name: 'Main' })
  assert.equal(await nav.isVisible(), false)
  const menu = page.getByRole('button', { name: 'Menu' })
  assert.equal(await menu.getAttribute('aria-expanded'), 'false')
  await menu.click()
  assert.equal(await menu.getAttribute('aria-expanded'), 'true')
  await nav.waitFor({ state: 'visible' })
  await dash.screenshot('layout-menu-open-phone')
  // Escape closes it, and focus is back on its button.
  await page.keyboard.press('Escape')
  await nav.waitFor({ state: 'hidden' })
  assert.equal(await menu.getAttribute('aria-expanded'), 'false')
  assert.equal(await inPage(page, 'document.activeElement?.textContent'), 'Menu')
  await menu.click()
  await nav.waitFor({ state: 'visible' })
  await nav.getByRole('link', { name: /^Events/ }).click()
  await page.waitForURL((url) => url.pathname === '/events')
  await nav.waitFor({ state: 'hidden' })
  assert.equal(await menu.getAttribute('aria-expanded'), 'false')
})

test('dark mode follows prefers-color-scheme', async (t) => {
  const server = await serve(t)
  const light = await openDashboard(t, server)
  await light.goto('/transactions')
  const dark = await openDashboard(t, server, { colorScheme: 'dark' })
  await dark.goto('/transactions')
  await dark.page.getByRole('heading', { name: 'Transactions' }).waitFor()
  const background = (d: typeof light) =>
    inPage<string>(d.page, 'getComputedStyle(document.body).backgroundColor')
  assert.equal(await background(light), 'rgb(246, 247, 249)')
  assert.equal(await background(dark), 'rgb(15, 20, 25)')
  await dark.screenshot('layout-dark-transactions')
})

test('settings show the effective configuration with secrets redacted; an unknown page says so', async (t) => {
  const secret = 'explorer-key-that-must-never-show-7f3a'
  const server = await serve(t, {
    SERVICE_ETHEREUM_API_KEY: secret,
    SERVICE_WEBHOOKS_MAX_ATTEMPTS: '7',
  })
  const dash = await openDashboard(t, server)
  const { page } = dash
  await dash.goto('/settings')
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()
  await page.getByText('ethereum.api_key').waitFor()
  const text = (await page.locator('main').textContent()) ?? ''
  assert.ok(!text.includes(secret), 'the explorer key is shown')
  assert.match(text, /ethereum\.api_key\s*\[redacted\]/)
  assert.match(text, /webhooks\.max_attempts\s*7/)
  await dash.screenshot('settings')
  await dash.phone('/settings', 'settings')

  for (const [path, heading, says] of [
    ['/no/such/page', 'Not found', /There is no page here/],
  ] as const) {
    await dash.goto(path)
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
    assert.match((await page.locator('main').textContent()) ?? '', says)
  }
})

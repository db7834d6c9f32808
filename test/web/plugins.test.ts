// The plugins pages (CONTRACT 9) in Chromium, on real plugin folders in the
// service's plugins.dir: a disabled plugin enabled from the list, a plugin that
// may fetch enabled through the grants dialog, its denied network attempt in
// the Network disclosure, a plugin page drawn from its blocks with a form whose
// action answers the next page, a page with an unknown block shown as the
// plugin's error, removal, a read key without the controls, and plugins off.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test, type TestContext } from 'node:test'
import type { TestApp } from '../helpers/app.js'
import { closeBrowser, inPage, openDashboard, serve } from '../helpers/browser.js'
import { writePlugin, type PluginFiles } from '../helpers/plugins.js'

after(closeBrowser)

const TOKEN = 'web-plugins-test-dashboard-token-0123456789'

const STATS = `let clicks = 0
export function onPageRender({ params }) {
  return { title: 'Stats', blocks: [
    { type: 'stat', label: 'Clicks', value: String(clicks) },
    { type: 'table', columns: ['a', 'b'], rows: [['1', '2']] },
    { type: 'form', id: 'add', fields: [{ name: 'n', label: 'How many', kind: 'number', value: 1 }], submit_label: 'Add' },
  ] }
}
export function onPageAction({ action, params }) {
  clicks += Number(params.n ?? 1)
  return onPageRender({ params: {} })
}`

const BROKEN = `export function onPageRender() {
  return { title: 'Broken', blocks: [{ type: 'marquee', text: '<b>never shown</b>' }] }
}`

const FETCHER = `export async function onPageRender() {
  let outcome = 'fetched'
  try {
    await coffer.fetch({ url: 'https://blocked.example/feed?token=s3cr3t' })
  } catch (error) {
    outcome = 'refused: ' + error.message
  }
  return { title: 'Fetcher', blocks: [{ type: 'text', text: outcome }] }
}`

/** A temporary plugins.dir with these plugin folders, removed after the test. */
function pluginsDir(t: TestContext, plugins: Record<string, PluginFiles>): string {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-web-plugins-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  // writePlugin only reads where the plugins live from the app it is given.
  const app = { ctx: { config: { plugins: { dir } } } } as unknown as Pick<TestApp, 'ctx'>
  for (const [name, files] of Object.entries(plugins)) writePlugin(app, name, files)
  return dir
}

/** `coffer serve` on `dir` with plugin `name` enabled, and the dashboard signed in at `path`. */
async function withPluginEnabled(t: TestContext, dir: string, name: string, path: string) {
  const server = await serve(t, { SERVICE_DASHBOARD_TOKEN: TOKEN, SERVICE_PLUGINS_DIR: dir })
  const enabled = await server.request('POST', `/api/v1/plugins/${name}/enable`, { token: TOKEN })
  assert.equal(enabled.status, 200, enabled.text)
  const dash = await openDashboard(t, server, { token: TOKEN })
  await dash.goto(path)
  return { server, dash }
}

test('plugins: enable from the list, grants, network log, a page with a form, a broken page, remove', async (t) => {
  const dir = pluginsDir(t, {
    stats: {
      hooks: ['onPageRender', 'onPageAction'],
      capabilities: ['ui:page'],
      code: STATS,
      extra: '[ui]\ntitle = "Click stats"\n',
    },
    broken: { hooks: ['onPageRender'], capabilities: ['ui:page'], code: BROKEN },
    fetcher: {
      hooks: ['onPageRender'],
      capabilities: ['ui:page', 'net:fetch'],
      code: FETCHER,
      extra: '[net]\nallow = ["api.example.com"]\n',
    },
  })
  const { server, dash } = await withPluginEnabled(t, dir, 'broken', '/plugins')
  const { page } = dash
  await page.getByRole('heading', { name: 'Plugins', level: 1 }).waitFor()
  const card = (name: string) => page.getByRole('article', { name })

  // A disabled plugin, enabled straight away (it may not fetch, so nothing to grant).
  const stats = card('stats')
  await stats.getByText('disabled', { exact: true }).waitFor()
  await stats.getByText('onPageAction').waitFor()
  await stats.getByText('ui:page').waitFor()
  await stats.getByText('It has not run yet.').waitFor()
  await stats.getByRole('button', { name: 'Enable' }).click()
  await stats.getByText('loaded', { exact: true }).waitFor()
  await stats.getByRole('button', { name: 'Disable' }).waitFor()
  const nav = page.getByRole('navigation', { name: 'Main' })
  await nav.getByRole('link', { name: 'Click stats' }).waitFor()

  // A plugin that may fetch: the dialog asks which hosts to grant.
  const fetcher = card('fetcher')
  await fetcher.getByRole('button', { name: 'Enable' }).click()
  const dialog = page.getByRole('dialog', { name: 'Enable fetcher?' })
  await dialog.getByLabel('Hosts to grant (optional, one per line)').fill('NAS.home.arpa\n\n')
  await dialog.getByRole('button', { name: 'Enable plugin' }).click()
  await dialog.waitFor({ state: 'hidden' })
  await fetcher.getByText('loaded', { exact: true }).waitFor()
  await fetcher.getByText('nas.home.arpa').waitFor()
  const granted = await server.request('GET', '/api/v1/plugins/fetcher', { token: TOKEN })
  assert.deepEqual(granted.body.net_grants, ['nas.home.arpa'])

  await page.getByRole('heading', { name: 'Marketplace' }).waitFor()
  await page.getByText('No marketplace is configured.').waitFor()
  const dark = await openDashboard(t, server, { token: TOKEN, colorScheme: 'dark' })
  await dark.goto('/plugins')
  await dark.page.getByRole('article', { name: 'stats' }).waitFor()
  await dark.screenshot('plugins-dark')

  // The page of a plugin, from the navigation: a stat, a table and a form.
  await nav.getByRole('link', { name: 'Click stats' }).click()
  await page.waitForURL((url) => url.pathname === '/ext/stats')
  await page.getByRole('heading', { name: 'Stats', level: 1 }).waitFor()
  const main = page.locator('main')
  await main.filter({ hasText: /Clicks\s*0/ }).waitFor()
  await page.getByRole('columnheader', { name: 'a' }).waitFor()
  await page.getByRole('cell', { name: '2' }).waitFor()
  const howMany = page.getByLabel('How many')
  assert.equal(await howMany.inputValue(), '1')
  await howMany.fill('3')
  await page.getByRole('button', { name: 'Add' }).click()
  await main.filter({ hasText: /Clicks\s*3/ }).waitFor()
  assert.equal(await page.getByLabel('How many').inputValue(), '1', 'the next page starts afresh')
  await dash.screenshot('plugin-page')
  await dash.phone('/ext/stats', 'plugin-page', (p) =>
    p
      .locator('main')
      .filter({ hasText: /Clicks\s*3/ })
      .waitFor(),
  )

  // A page with a block the dashboard does not know: the plugin's error, nothing drawn.
  await dash.goto('/ext/broken')
  await page.getByText('The plugin broken failed').waitFor()
  await page.getByText(/unknown block type "marquee"/).waitFor()
  assert.equal(await page.getByText('never shown').count(), 0)
  await dash.screenshot('plugin-page-broken')

  // Its page tried a host outside [net] allow: refused, and logged under Network.
  await dash.goto('/ext/fetcher')
  await page.getByText(/^refused: /).waitFor()
  await dash.goto('/plugins')
  await card('fetcher').getByText('Network', { exact: true }).click()
  const attempts = card('fetcher').getByRole('list', { name: 'Network attempts' })
  await attempts.getByText('denied', { exact: true }).waitFor()
  await attempts.getByText('GET https://blocked.example/feed').waitFor()
  assert.ok(!((await page.content()) ?? '').includes('s3cr3t'), 'the query string is shown')
  await card('broken')
    .getByText(/unknown block type "marquee"/)
    .waitFor()
  await dash.screenshot('plugins')
  await dash.phone('/plugins', 'plugins', async (p) => {
    const phoneCard = p.getByRole('article', { name: 'fetcher' })
    await phoneCard.getByText('Network', { exact: true }).click()
    await phoneCard.getByText('denied', { exact: true }).waitFor()
    await inPage(p, 'window.scrollTo(0, 0)')
  })

  // Remove, after a confirmation.
  await card('broken').getByRole('button', { name: 'Remove' }).click()
  const confirm = page.getByRole('dialog', { name: 'Remove broken?' })
  await confirm.getByRole('button', { name: 'Remove plugin' }).click()
  await card('broken').waitFor({ state: 'detached' })
  const gone = await server.request('GET', '/api/v1/plugins/broken', { token: TOKEN })
  assert.equal(gone.status, 404)

  // A read key sees the list, not the controls, and is told why.
  const key = await server.request('POST', '/api/v1/security/api-keys', {
    token: TOKEN,
    body: { name: 'reader', scope: 'read' },
  })
  const reader = await openDashboard(t, server, { token: key.body.key })
  await reader.goto('/plugins')
  await reader.page.getByRole('article', { name: 'stats' }).waitFor()
  await reader.page.getByText(/is admin only: Admin features need the dashboard token/).waitFor()
  assert.equal(await reader.page.getByRole('button', { name: 'Disable' }).count(), 0)
  assert.equal(await reader.page.getByRole('heading', { name: 'Marketplace' }).count(), 0)
})

test('plugins: turned off in the configuration, the page says so', async (t) => {
  const server = await serve(t, { SERVICE_PLUGINS_ENABLED: 'false' })
  const dash = await openDashboard(t, server)
  await dash.goto('/plugins')
  await dash.page.getByText('Plugins are turned off in the configuration.').waitFor()
})

const ECHO = `export function onPageRender({ params }) {
  return { title: 'Echo', blocks: [
    { type: 'text', text: 'got ' + JSON.stringify(params) },
    { type: 'form', id: 'send', fields: [
      { name: 'n', label: 'Amount', kind: 'number' },
      { name: 'note', label: 'Note', kind: 'text' },
    ], submit_label: 'Send' },
  ] }
}
export function onPageAction({ params }) {
  return onPageRender({ params })
}`

test('a plugin form sends a number as typed, and refuses one a double cannot hold', async (t) => {
  const dir = pluginsDir(t, {
    echo: { hooks: ['onPageRender', 'onPageAction'], capabilities: ['ui:page'], code: ECHO },
  })
  const { dash } = await withPluginEnabled(t, dir, 'echo', '/ext/echo')
  const { page } = dash
  await page.getByText('got {}').waitFor()

  const send = async (amount: string) => {
    await page.getByLabel('Amount').fill(amount)
    await page.getByLabel('Note').fill('0.10')
    await page.getByRole('button', { name: 'Send' }).click()
  }
  // Exact values arrive as such (0.10 is the number 0.1; the text field keeps its text).
  await send('123456789.125')
  await page.getByText('got {"n":123456789.125,"note":"0.10"}').waitFor()
  await send('0.10')
  await page.getByText('got {"n":0.1,"note":"0.10"}').waitFor()

  // One no double holds is refused in the form, not rounded on the way.
  await send('12345678901234567890')
  const alert = page.getByRole('alert')
  await alert.waitFor()
  assert.match(
    (await alert.textContent()) ?? '',
    /Amount: 12345678901234567890 has more digits than a number holds exactly/,
  )
  await page.waitForTimeout(500)
  assert.equal(await page.getByText(/12345678901234567000/).count(), 0)
  await page.getByText('got {"n":0.1,"note":"0.10"}').waitFor()
  await dash.screenshot('plugin-form-inexact')
})

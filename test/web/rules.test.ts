// The rules pages (issue 13, item 5) in Chromium: a rule typed with a query
// error shown at its offset, its live preview equal to what the API previews,
// created, run (its labels and extensions land on the matching transactions,
// read back through the API), run again with the rest, unapplied, disabled and
// deleted; and a read key that can look but not change.
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import { extensionsOf, labelsOf } from '../../web/src/pages/rules/rule-form.js'
import { closeBrowser, openDashboard, serve, type Serve } from '../helpers/browser.js'

after(closeBrowser)

const TOKEN = 'web-test-dashboard-token-0123456789'

test('the rule form: label rows and extension JSON, exact or refused', () => {
  assert.deepEqual(
    labelsOf([
      { key: 'Category', value: 'coffee' },
      { key: '', value: '' },
    ]),
    { ok: true, value: { category: 'coffee' } },
  )
  assert.equal(labelsOf([{ key: ' ', value: 'x' }]).ok, false)
  assert.equal(
    labelsOf([
      { key: 'a', value: '1' },
      { key: 'A', value: '2' },
    ]).ok,
    false,
  )
  assert.deepEqual(extensionsOf(''), { ok: true, value: {} })
  assert.deepEqual(extensionsOf('{"tax.rate": 10, "tax.deductible": true, "n": "10"}'), {
    ok: true,
    value: { 'tax.rate': 10, 'tax.deductible': true, n: '10' },
  })
  assert.equal(extensionsOf('[1]').ok, false)
  assert.equal(extensionsOf('{"a": }').ok, false)
  // A number a double cannot hold exactly is refused, not silently rounded;
  // the same digits inside a string are fine.
  const inexact = extensionsOf('{"big": 12345678901234567890}')
  assert.equal(inexact.ok, false)
  assert.match(inexact.ok ? '' : inexact.error, /12345678901234567890.*string/)
  assert.equal(extensionsOf('{"big": "12345678901234567890", "x": 0.1}').ok, true)
})

async function seed(server: Serve, token?: string): Promise<void> {
  const account = await server.request('POST', '/api/v1/accounts', {
    token,
    body: { name: 'Everyday', currency: 'USD' },
  })
  assert.equal(account.status, 201, account.text)
  for (let i = 1; i <= 30; i++) {
    const coffee = i <= 24
    const created = await server.request('POST', '/api/v1/transactions', {
      token,
      body: {
        account_id: account.body.id,
        amount: coffee ? `-3.${String(i).padStart(2, '0')}` : `-${40 + i}.00`,
        date: `2024-06-${String(i).padStart(2, '0')}`,
        description: coffee ? `Coffee at Joe's ${i}` : `Groceries ${i}`,
      },
    })
    assert.equal(created.status, 201, created.text)
    // One coffee already carries the label the rule sets: it matches but would not change.
    if (i === 1) {
      const labelled = await server.request(
        'PUT',
        `/api/v1/transactions/${encodeURIComponent(created.body.id)}/labels`,
        { token, body: { labels: { category: 'coffee' } } },
      )
      assert.equal(labelled.status, 200, labelled.text)
    }
  }
}

interface Tx {
  description: string
  labels: Record<string, string>
  extensions: Record<string, unknown>
}

async function allTransactions(server: Serve): Promise<Tx[]> {
  const list = await server.request('GET', '/api/v1/transactions?limit=1000')
  assert.equal(list.status, 200, list.text)
  return list.body.transactions as Tx[]
}

/** The preview's two numbers as the page shows them. */
async function shownPreview(preview: Locator): Promise<{ matched: number; would: number }> {
  const text = ((await preview.getByRole('status').textContent()) ?? '').replace(/\s+/g, ' ')
  const match = /matches ([\d,]+) transactions?; ([\d,]+) would change/.exec(text)
  assert.ok(match, text)
  return {
    matched: Number(match[1]!.replace(/,/g, '')),
    would: Number(match[2]!.replace(/,/g, '')),
  }
}

/** Waits until the preview shows `would` changes (it follows typing after a pause). */
async function previewSettles(page: Page, would: number): Promise<Locator> {
  const preview = page.getByRole('region', { name: 'Preview' })
  await preview
    .getByRole('status')
    .filter({ hasText: new RegExp(`; ${would} would change`) })
    .waitFor()
  await page.waitForLoadState('networkidle')
  return preview
}

test('rules: previewed live, created, run, run all, unapplied, disabled and deleted', async (t) => {
  const server = await serve(t)
  await seed(server)
  const dash = await openDashboard(t, server)
  const { page } = dash

  await dash.goto('/rules')
  await page.getByRole('heading', { name: 'Rules', level: 1 }).waitFor()
  await page.getByText('No rules yet.').waitFor()
  await dash.screenshot('rules-empty')

  await page.getByRole('link', { name: 'New rule' }).click()
  await page.getByRole('heading', { name: 'New rule', level: 1 }).waitFor()
  await page.getByLabel('Name').fill('Coffee shops')

  // A query that does not parse: the error under the box, at its offset.
  const query = page.getByRole('searchbox', { name: 'Rule query' })
  await query.fill('description:coffee (')
  const queryError = page.locator('.query-input').getByRole('alert')
  await queryError.waitFor()
  assert.match((await queryError.textContent()) ?? '', /at offset 20/)
  await dash.screenshot('rule-query-error')

  // Fixed: the preview counts what the query matches and what the label would change.
  await query.fill('description:coffee')
  await queryError.waitFor({ state: 'detached' })
  await page.getByLabel('Label 1 key').fill('category')
  await page.getByLabel('Label 1 value').fill('coffee')
  let preview = await previewSettles(page, 23)
  const labelOnly = await server.request('POST', '/api/v1/rules/preview', {
    body: { query: 'description:coffee', labels: { category: 'coffee' } },
  })
  assert.equal(labelOnly.status, 200, labelOnly.text)
  assert.deepEqual(await shownPreview(preview), {
    matched: labelOnly.body.matched,
    would: labelOnly.body.would_update,
  })
  assert.deepEqual([labelOnly.body.matched, labelOnly.body.would_update], [24, 23])
  // The first 20 that would change, in a table (a header row and 20 rows).
  assert.equal(await preview.getByRole('row').count(), 21)
  assert.equal(await preview.getByRole('link', { name: /^Groceries/ }).count(), 0)

  // An extension too: now every match would change.
  await page
    .getByLabel(/^Extensions/)
    .fill('{"tax.deductible": true, "tax.rate": 10, "tax.code": "10"}')
  preview = await previewSettles(page, 24)
  const withExtensions = await server.request('POST', '/api/v1/rules/preview', {
    body: {
      query: 'description:coffee',
      labels: { category: 'coffee' },
      extensions: { 'tax.deductible': true, 'tax.rate': 10, 'tax.code': '10' },
    },
  })
  assert.deepEqual(await shownPreview(preview), {
    matched: withExtensions.body.matched,
    would: withExtensions.body.would_update,
  })
  await dash.screenshot('rule-new-preview')
  await dash.phone('/rules/new', 'rule-new', async (phone) => {
    await phone.getByRole('searchbox', { name: 'Rule query' }).fill('description:coffee')
    await phone.getByLabel('Label 1 key').fill('category')
    await phone.getByLabel('Label 1 value').fill('coffee')
    const preview = phone.getByRole('region', { name: 'Preview' })
    await preview.getByRole('status').filter({ hasText: '; 23 would change' }).waitFor()
    await preview.getByRole('link', { name: "Coffee at Joe's 5", exact: true }).waitFor()
  })

  // Bad JSON is said in words, and nothing is sent for it.
  await page.getByLabel(/^Extensions/).fill('{"tax.deductible": tru')
  await page
    .getByRole('alert')
    .getByText(/Extensions are not valid JSON/)
    .waitFor()
  assert.ok(await page.getByRole('button', { name: 'Create rule' }).isDisabled())
  await page
    .getByLabel(/^Extensions/)
    .fill('{"tax.deductible": true, "tax.rate": 10, "tax.code": "10"}')

  await page.getByRole('button', { name: 'Create rule' }).click()
  await page.getByRole('heading', { name: 'Coffee shops', level: 1 }).waitFor()
  const ruleId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!)
  const stored = await server.request('GET', `/api/v1/rules/${encodeURIComponent(ruleId)}`)
  assert.equal(stored.status, 200, stored.text)
  assert.deepEqual(
    {
      query: stored.body.query,
      labels: stored.body.labels,
      extensions: stored.body.extensions,
      enabled: stored.body.enabled,
    },
    {
      query: 'description:coffee',
      labels: { category: 'coffee' },
      extensions: { 'tax.deductible': true, 'tax.rate': 10, 'tax.code': '10' },
      enabled: true,
    },
  )
  // Creating a rule changes nothing by itself.
  assert.equal(
    (await allTransactions(server)).filter((tx) => tx.labels.category === 'coffee').length,
    1,
  )

  // Run: the numbers, and the keys on exactly the matching transactions.
  await page.getByRole('button', { name: 'Run now' }).click()
  await page
    .getByRole('status')
    .filter({ hasText: 'Run: matched 24 transactions, updated 24.' })
    .waitFor()
  for (const tx of await allTransactions(server)) {
    if (tx.description.startsWith('Coffee')) {
      assert.equal(tx.labels.category, 'coffee', tx.description)
      assert.deepEqual(
        [tx.extensions['tax.deductible'], tx.extensions['tax.rate'], tx.extensions['tax.code']],
        [true, 10, '10'],
        tx.description,
      )
    } else {
      assert.deepEqual(tx.labels, {}, tx.description)
      assert.deepEqual(tx.extensions, {}, tx.description)
    }
  }
  // The preview follows: nothing left to change.
  await previewSettles(page, 0)
  await dash.screenshot('rule')
  await dash.phone(`/rules/${encodeURIComponent(ruleId)}`, 'rule')

  // The list: name, query, what it sets, enabled; run all changes nothing more.
  await page.getByRole('link', { name: 'Rules', exact: true }).first().click()
  await page.getByRole('heading', { name: 'Rules', level: 1 }).waitFor()
  const row = page.getByRole('row').filter({ hasText: 'Coffee shops' })
  await row.getByText('description:coffee').waitFor()
  await row.getByText('category:coffee').waitFor()
  await row.getByText('tax.rate = 10').waitFor()
  await row.getByText('tax.code = "10"').waitFor()
  await row.getByText('enabled').waitFor()
  await page.getByRole('button', { name: 'Run all enabled rules' }).click()
  await page
    .getByRole('status')
    .filter({ hasText: 'Matched 24 transactions, updated 0.' })
    .waitFor()
  await dash.screenshot('rules')
  await dash.phone('/rules', 'rules')

  // Unapply: the rule's keys come off where they still hold its values.
  await row.getByRole('link', { name: 'Coffee shops' }).click()
  await page.getByRole('button', { name: 'Unapply' }).click()
  await page
    .getByRole('status')
    .filter({ hasText: 'Unapply: matched 24 transactions, removed from 24.' })
    .waitFor()
  for (const tx of await allTransactions(server)) {
    assert.deepEqual(tx.labels, {}, tx.description)
    assert.deepEqual(tx.extensions, {}, tx.description)
  }
  await previewSettles(page, 24)

  // Disable it: Run and Unapply wait for the change to be saved.
  await page.getByLabel(/^Enabled/).uncheck()
  assert.ok(await page.getByRole('button', { name: 'Run now' }).isDisabled())
  await page.getByText('Save your changes first').waitFor()
  await page.getByRole('button', { name: 'Save rule' }).click()
  await page.getByRole('heading', { name: 'Coffee shops', level: 1 }).waitFor()
  await page.getByText('Saved.').waitFor()
  const disabled = await server.request('GET', `/api/v1/rules/${encodeURIComponent(ruleId)}`)
  assert.equal(disabled.body.enabled, false)

  // Delete, after a confirmation.
  await page.getByRole('button', { name: 'Delete rule' }).click()
  const confirm = page.getByRole('dialog', { name: 'Delete rule?' })
  await confirm.getByText(/already set stay/).waitFor()
  await dash.screenshot('rule-delete')
  await confirm.getByRole('button', { name: 'Delete rule' }).click()
  await page.getByRole('heading', { name: 'Rules', level: 1 }).waitFor()
  await page.getByText('No rules yet.').waitFor()
  assert.equal((await server.request('GET', '/api/v1/rules')).body.total, 0)
})

test('rules with a read key: the rule is shown, nothing can be changed or run', async (t) => {
  const server = await serve(t, { SERVICE_DASHBOARD_TOKEN: TOKEN })
  await seed(server, TOKEN)
  const rule = await server.request('POST', '/api/v1/rules', {
    token: TOKEN,
    body: { name: 'Coffee shops', query: 'coffee', labels: { category: 'coffee' } },
  })
  assert.equal(rule.status, 201, rule.text)
  const key = await server.request('POST', '/api/v1/security/api-keys', {
    token: TOKEN,
    body: { name: 'viewer', scope: 'read' },
  })
  // In dark mode, so that the screenshot shows it.
  const dash = await openDashboard(t, server, { token: key.body.key, colorScheme: 'dark' })
  const { page } = dash
  await dash.goto('/rules')
  await page.getByRole('link', { name: 'Coffee shops' }).waitFor()
  await page
    .getByRole('note')
    .getByText(/read-only/i)
    .waitFor()
  assert.equal(await page.getByRole('link', { name: 'New rule' }).count(), 0)
  assert.equal(await page.getByRole('button', { name: 'Run all enabled rules' }).count(), 0)

  await page.getByRole('link', { name: 'Coffee shops' }).click()
  await page.getByRole('heading', { name: 'Coffee shops', level: 1 }).waitFor()
  assert.equal(await page.getByLabel('Name').inputValue(), 'Coffee shops')
  assert.ok(await page.getByLabel('Name').isDisabled())
  assert.equal(await page.getByRole('button', { name: 'Save rule' }).count(), 0)
  assert.equal(await page.getByRole('button', { name: 'Run now' }).count(), 0)
  assert.equal(await page.getByRole('button', { name: 'Add label' }).count(), 0)
  assert.equal(await page.getByRole('region', { name: 'Preview' }).count(), 0)
  await dash.screenshot('rule-read-only')
})

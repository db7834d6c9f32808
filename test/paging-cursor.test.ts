// Keyset paging (issue 16): every list a person scrolls (GET /transactions,
// /accounts/{id}/transactions, /transactions/search, and their MCP tools) answers
// next_cursor and takes ?cursor=. By cursor a list pages exactly as by offset; a
// ledger written to between pages never makes a cursor skip or repeat a row; a
// cursor that is malformed, altered or of another list is a 400 naming `cursor`.
// All of it in both orders (issue 13: order=desc, the default, and order=asc,
// which is exactly the reverse), and a cursor of one order is a 400 in the other.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import type { IngestTransaction } from '../src/ledger/ingest.js'
import { startTestApp, type RequestOptions, type TestAppHandle } from './helpers/app.js'
import { expectProblem, expectStatus, type Json } from './helpers/http.js'
import { createAccount, createTransaction, ingest } from './helpers/ledger.js'
import { connectMcp, toolFails, toolOk } from './helpers/mcp.js'

const TOKEN = 'paging-cursor-test-dashboard-token-0123'
const ROWS = 64
const DAYS = 8 // eight rows a day: ties on date everywhere

function row(n: number, over: Partial<IngestTransaction> = {}): IngestTransaction {
  return {
    id: `csv:t${String(n).padStart(3, '0')}`,
    account_id: n % 2 === 0 ? 'csv:checking' : 'csv:savings',
    amount: `-${n}.00`,
    date: `2024-01-${String(1 + (n % DAYS)).padStart(2, '0')}`,
    description: n % 3 === 0 ? 'Coffee shop' : 'Rent and more',
    payee: null,
    memo: null,
    pending: false,
    ...over,
  }
}

function batch(transactions: IngestTransaction[]) {
  return {
    source: 'csv',
    organizations: [{ id: 'csv:bank', name: 'Bank' }],
    accounts: ['checking', 'savings'].map((name) => ({
      id: `csv:${name}`,
      org_id: 'csv:bank',
      name,
      currency: 'USD',
      balance: '0',
    })),
    transactions,
  }
}

async function setup(t: TestContext): Promise<TestAppHandle> {
  const started = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const app: TestAppHandle = Object.assign(Object.create(started) as TestAppHandle, {
    request: (method: string, path: string, options: RequestOptions = {}) =>
      started.request(method, path, { token: TOKEN, ...options }),
  })
  await ingest(app, batch(Array.from({ length: ROWS }, (_, n) => row(n))))
  for (let n = 0; n < ROWS; n += 4) {
    await expectStatus(
      app,
      'PUT',
      `/api/v1/transactions/csv:t${String(n).padStart(3, '0')}/labels`,
      200,
      {
        labels: { category: n % 8 === 0 ? 'food' : 'home' },
      },
    )
  }
  return app
}

/** Every list the cursor serves, with filters that combine with it. */
const LISTS = [
  '/api/v1/transactions',
  '/api/v1/transactions?label_key=category',
  '/api/v1/transactions?label_key=category&label_value=food',
  '/api/v1/transactions?since=2024-01-03&until=2024-01-06',
  '/api/v1/accounts/csv:checking/transactions',
  '/api/v1/accounts/csv:savings/transactions?since=2024-01-02T00:00:00Z&until=2024-01-07',
  '/api/v1/accounts/csv:checking/transactions?label_key=category&label_value=home',
  '/api/v1/transactions/search',
  '/api/v1/transactions/search?q=coffee',
  '/api/v1/transactions/search?q=-coffee',
  '/api/v1/transactions/search?q=coffee%20OR%20amount:<-40',
  '/api/v1/transactions/search?q=NOT%20label:category=food&since=2024-01-02',
  '/api/v1/transactions/search?q=rent&label_key=category',
  // `~` is never decided in SQL: the matcher pages this one.
  '/api/v1/transactions/search?q=label:category~oo',
  '/api/v1/transactions/search?q=label:category~om%20OR%20amount:<-60&until=2024-01-07',
]

const ORDERS = ['desc', 'asc'] as const

function withParams(path: string, params: string): string {
  return path + (path.includes('?') ? '&' : '?') + params
}

const ids = (page: Json): string[] => page.transactions.map((tx: Json) => tx.id as string)

/** Walks a list by cursor; `between` runs after each page (to write to the ledger). */
async function walk(
  app: TestAppHandle,
  path: string,
  limit: number,
  between: (page: Json, n: number) => Promise<void> = async () => {},
): Promise<{ ids: string[]; pages: Json[] }> {
  const seen: string[] = []
  const pages: Json[] = []
  let cursor: string | null = null
  for (let n = 0; n < 500; n++) {
    const query: string =
      `limit=${limit}` + (cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`)
    const page = await expectStatus(app, 'GET', withParams(path, query), 200)
    pages.push(page)
    seen.push(...ids(page))
    if (page.next_cursor === null) return { ids: seen, pages }
    await between(page, n)
    cursor = page.next_cursor
  }
  throw new Error(`${path}: the cursor walk did not end`)
}

test('every list pages by cursor exactly as by offset, in both orders', async (t) => {
  const app = await setup(t)
  for (const [list, order] of LISTS.flatMap((l) => ORDERS.map((o) => [l, o] as const))) {
    // The default order is desc; asc is asked for.
    const path = order === 'asc' ? withParams(list, 'order=asc') : list
    const whole = await expectStatus(app, 'GET', withParams(path, 'limit=1000'), 200)
    const all = ids(whole)
    assert.ok(all.length > 0, path)
    assert.equal(whole.next_cursor, null, `${path}: one page holds everything`)
    const byOffset: string[] = []
    for (let offset = 0; offset < all.length; offset += 5) {
      const page = await expectStatus(app, 'GET', withParams(path, `limit=5&offset=${offset}`), 200)
      byOffset.push(...ids(page))
      // An offset page answers a cursor too, to continue by keyset from there.
      assert.equal(page.next_cursor === null, offset + 5 >= all.length, `${path} @${offset}`)
      if (page.next_cursor !== null) {
        const next = await expectStatus(
          app,
          'GET',
          withParams(path, `limit=5&cursor=${encodeURIComponent(page.next_cursor)}`),
          200,
        )
        assert.deepEqual(ids(next), all.slice(offset + 5, offset + 10), `${path} @${offset}+`)
      }
    }
    assert.deepEqual(byOffset, all, path)
    const { ids: byCursor, pages } = await walk(app, path, 5)
    assert.deepEqual(byCursor, all, path)
    assert.equal(pages.length, Math.ceil(all.length / 5), path)
    for (const page of pages) {
      assert.equal(page.total, all.length, path)
      if (!path.includes('/search')) {
        assert.equal(page.limit, 5)
        assert.equal(page.offset, 0, 'a page by cursor echoes offset 0')
      }
    }
    // A cursor with offset=0 is the same page.
    assert.ok(all.length > 5, path)
    const second = await expectStatus(
      app,
      'GET',
      withParams(path, `limit=5&offset=0&cursor=${encodeURIComponent(pages[0].next_cursor)}`),
      200,
    )
    assert.deepEqual(ids(second), all.slice(5, 10), path)
    if (order === 'asc') {
      // Oldest first is exactly newest first reversed (and desc is the default).
      const desc = await expectStatus(app, 'GET', withParams(list, 'limit=1000'), 200)
      const explicit = await expectStatus(
        app,
        'GET',
        withParams(list, 'limit=1000&order=desc'),
        200,
      )
      assert.deepEqual(ids(explicit), ids(desc), list)
      assert.deepEqual(all, [...ids(desc)].reverse(), `${list}: asc is desc reversed`)
      assert.equal(whole.total, desc.total, list)
      if (list.includes('/search')) assert.equal(whole.total_is_lower_bound, false, list)
    }
  }
  // The order is newest first, ties on date by id descending; asc the reverse.
  const all = ids(await expectStatus(app, 'GET', '/api/v1/transactions?limit=1000', 200))
  assert.equal(all.length, ROWS)
  assert.deepEqual(all.slice(0, 3), ['csv:t063', 'csv:t055', 'csv:t047'])
  const oldest = ids(await expectStatus(app, 'GET', '/api/v1/transactions?limit=3&order=asc', 200))
  assert.deepEqual(oldest, ['csv:t000', 'csv:t008', 'csv:t016'])
  // Not an order: a 400 naming the parameter.
  const problem = await expectProblem(app, 'GET', '/api/v1/transactions?order=up', 400)
  assert.match(JSON.stringify(problem), /order/)
})

test('cursors page through a ledger being written to without skipping or repeating a row', async (t) => {
  const app = await setup(t)
  const account = await createAccount(app, { name: 'Cash', currency: 'USD' })
  let made = 0
  // Rows newer than all, older than all, and on the date of the page's last row
  // with ids on either side of it; synced (chosen ids) and manual (random ids).
  const write = async (page: Json) => {
    const last = page.transactions[page.transactions.length - 1]
    const day = (last.date as string).slice(0, 10)
    const n = made++
    // Beside a synced last row, a synced row just after its id (just newer).
    const synced = (last.id as string).startsWith('csv:')
    const beside = synced ? (last.account_id as string) : 'csv:checking'
    const after = synced ? `${last.id}-after${n}` : `csv:t999-after${n}`
    await ingest(
      app,
      batch([
        row(1000 + n, { id: `csv:z-new${n}`, date: '2024-06-01', description: 'Coffee new' }),
        row(2000 + n, { id: `csv:a-old${n}`, date: '2023-01-01', description: 'Coffee old' }),
        row(3000 + n, { id: after, date: day, account_id: beside }),
        row(4000 + n, { id: `csv:a-tie${n}`, date: day, account_id: beside }),
        row(5000 + n, { id: `csv:t999-tie${n}`, date: day, account_id: beside }),
      ]),
    )
    await createTransaction(app, {
      account_id: account.id,
      amount: '-1.00',
      date: day,
      description: 'Coffee manual',
    })
    await createTransaction(app, {
      account_id: account.id,
      amount: '-2.00',
      date: '2024-01-04T12:00:00Z',
      description: 'Coffee between',
    })
  }
  for (const path of [
    '/api/v1/transactions',
    '/api/v1/accounts/csv:checking/transactions',
    '/api/v1/transactions?label_key=category',
    '/api/v1/transactions/search?q=coffee',
    '/api/v1/transactions/search?q=-label:category=food',
    '/api/v1/transactions?order=asc',
    '/api/v1/accounts/csv:checking/transactions?order=asc',
    '/api/v1/transactions?label_key=category&order=asc',
    '/api/v1/transactions/search?q=coffee&order=asc',
    '/api/v1/transactions/search?q=-label:category=food&order=asc',
    '/api/v1/transactions/search?q=label:category~oo&order=asc',
  ]) {
    const { ids: before } = await walk(app, path, 1000)
    // Oldest first, most of the rows written land ahead of the cursor (they are
    // newer): written on every page, the list would grow faster than the walk.
    const { ids: walked } = await walk(app, path, 6, (page, n) =>
      n < 12 ? write(page) : Promise.resolve(),
    )
    assert.equal(new Set(walked).size, walked.length, `${path}: a row came twice`)
    const seen = new Set(walked)
    const skipped = before.filter((id) => !seen.has(id))
    assert.deepEqual(skipped, [], `${path}: rows skipped`)
    // And in order: what the walk saw is the list as it stands now, less rows
    // written behind the cursor.
    const { ids: now } = await walk(app, path, 1000)
    assert.deepEqual(
      now.filter((id) => seen.has(id)),
      walked,
      `${path}: the walk is out of order`,
    )
  }
  assert.ok(made > 20)
})

test('a malformed, altered or foreign cursor is a 400 naming cursor', async (t) => {
  const app = await setup(t)
  const first = await expectStatus(app, 'GET', '/api/v1/transactions?limit=3', 200)
  const cursor: string = first.next_cursor
  assert.match(cursor, /^[A-Za-z0-9_-]+$/)
  const searchCursor: string = (
    await expectStatus(app, 'GET', '/api/v1/transactions/search?q=coffee&limit=3', 200)
  ).next_cursor
  const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  const reencode = (payload: object) =>
    Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')
  const refused = async (path: string, why: string) => {
    const problem = await expectProblem(app, 'GET', path, 400)
    assert.deepEqual(
      problem.errors.map((e: Json) => e.field),
      ['cursor'],
      `${why}: ${JSON.stringify(problem)}`,
    )
    assert.match(problem.detail, /cursor/, why)
  }
  const q = (value: string) => encodeURIComponent(value)
  for (const [bad, why] of [
    ['garbage!', 'not base64url'],
    ['abc', 'not JSON'],
    [reencode({ v: 2, d: decoded.d, i: decoded.i, h: decoded.h }), 'other version'],
    [reencode({ ...decoded, i: 'csv:t000' }), 'altered id'],
    [reencode({ ...decoded, d: '2099-01-01T00:00:00Z' }), 'altered date'],
    [reencode({ ...decoded, h: 'AAAAAAAAAAAAAAAA' }), 'altered digest'],
    [reencode({ d: decoded.d }), 'missing fields'],
    [reencode([1, 2]), 'an array'],
    [cursor + 'A', 'trailing text'],
    ['x'.repeat(9000), 'too long'],
  ] as const) {
    await refused(`/api/v1/transactions?cursor=${q(bad)}`, why)
  }
  // Another list, other filters, another query: each refuses the cursor.
  await refused(`/api/v1/accounts/csv:checking/transactions?cursor=${q(cursor)}`, 'account list')
  await refused(`/api/v1/transactions?label_key=category&cursor=${q(cursor)}`, 'other filter')
  await refused(`/api/v1/transactions?since=2024-01-02&cursor=${q(cursor)}`, 'other range')
  await refused(`/api/v1/transactions/search?cursor=${q(cursor)}`, 'search')
  await refused(`/api/v1/transactions?cursor=${q(searchCursor)}`, 'search cursor on a list')
  await refused(`/api/v1/transactions/search?q=rent&cursor=${q(searchCursor)}`, 'other query')
  // A cursor of one order given with the other: it would page backwards from its row.
  const ascCursor: string = (
    await expectStatus(app, 'GET', '/api/v1/transactions?order=asc&limit=3', 200)
  ).next_cursor
  const ascSearchCursor: string = (
    await expectStatus(app, 'GET', '/api/v1/transactions/search?q=coffee&order=asc&limit=3', 200)
  ).next_cursor
  await refused(`/api/v1/transactions?order=asc&cursor=${q(cursor)}`, 'desc cursor, asc')
  await refused(`/api/v1/transactions?cursor=${q(ascCursor)}`, 'asc cursor, default order')
  await refused(`/api/v1/transactions?order=desc&cursor=${q(ascCursor)}`, 'asc cursor, desc')
  await refused(
    `/api/v1/transactions/search?q=coffee&order=asc&cursor=${q(searchCursor)}`,
    'desc search cursor, asc',
  )
  await refused(
    `/api/v1/transactions/search?q=coffee&cursor=${q(ascSearchCursor)}`,
    'asc search cursor, desc',
  )
  await refused(
    `/api/v1/accounts/csv:checking/transactions?order=asc&cursor=${q(ascCursor)}`,
    'asc cursor of another list',
  )
  const flipped = await expectProblem(
    app,
    'GET',
    `/api/v1/transactions?order=asc&cursor=${q(cursor)}`,
    400,
  )
  assert.match(flipped.detail, /order=desc/, 'the refusal says which order the cursor is of')
  // With a non-zero offset.
  await refused(`/api/v1/transactions?offset=3&cursor=${q(cursor)}`, 'with offset')
  await refused(`/api/v1/transactions/search?q=coffee&offset=1&cursor=${q(searchCursor)}`, 'offset')
  // An empty cursor fails the schema.
  await expectProblem(app, 'GET', '/api/v1/transactions?cursor=', 400)
  // The same cursor still works where it belongs, with another limit too.
  const again = await expectStatus(
    app,
    'GET',
    `/api/v1/transactions?limit=2&cursor=${q(cursor)}`,
    200,
  )
  const all = ids(await expectStatus(app, 'GET', '/api/v1/transactions?limit=5', 200))
  assert.deepEqual(ids(again), all.slice(3, 5))
  const ascAgain = await expectStatus(
    app,
    'GET',
    `/api/v1/transactions?order=asc&limit=2&cursor=${q(ascCursor)}`,
    200,
  )
  const ascAll = ids(await expectStatus(app, 'GET', '/api/v1/transactions?order=asc&limit=5', 200))
  assert.deepEqual(ids(ascAgain), ascAll.slice(3, 5))
})

test('limit=0 answers the total and no cursor; the last page answers null', async (t) => {
  const app = await setup(t)
  const none = await expectStatus(app, 'GET', '/api/v1/transactions?limit=0', 200)
  assert.deepEqual(none, { transactions: [], total: ROWS, limit: 0, offset: 0, next_cursor: null })
  const exact = await expectStatus(app, 'GET', `/api/v1/transactions?limit=${ROWS}`, 200)
  assert.equal(exact.transactions.length, ROWS)
  assert.equal(exact.next_cursor, null, 'a full last page has no next page')
  const short = await expectStatus(app, 'GET', `/api/v1/transactions?limit=${ROWS - 1}`, 200)
  const last = await expectStatus(
    app,
    'GET',
    `/api/v1/transactions?limit=${ROWS}&cursor=${encodeURIComponent(short.next_cursor)}`,
    200,
  )
  assert.deepEqual(ids(last), ['csv:t000'])
  assert.equal(last.next_cursor, null)
})

test('the MCP list tools take the cursor and answer next_cursor as REST does', async (t) => {
  const app = await setup(t)
  const client = await connectMcp(t, app, TOKEN)
  const rest = await expectStatus(
    app,
    'GET',
    '/api/v1/transactions?label_key=category&limit=4',
    200,
  )
  const tool = await toolOk(client, 'list_transactions', { label_key: 'category', limit: 4 })
  assert.deepEqual(tool, rest)
  const next = await toolOk(client, 'list_transactions', {
    label_key: 'category',
    limit: 4,
    cursor: tool.next_cursor,
  })
  const restNext = await expectStatus(
    app,
    'GET',
    `/api/v1/transactions?label_key=category&limit=4&cursor=${encodeURIComponent(tool.next_cursor)}`,
    200,
  )
  assert.deepEqual(next, restNext)
  assert.equal(next.offset, 0)

  const found = await toolOk(client, 'search_transactions', { q: 'coffee', limit: 3 })
  assert.equal(typeof found.next_cursor, 'string')
  const walked: string[] = ids(found)
  let cursor: string | null = found.next_cursor
  while (cursor !== null) {
    const page = await toolOk(client, 'search_transactions', { q: 'coffee', limit: 3, cursor })
    walked.push(...ids(page))
    cursor = page.next_cursor
  }
  const all = ids(
    await expectStatus(app, 'GET', '/api/v1/transactions/search?q=coffee&limit=1000', 200),
  )
  assert.deepEqual(walked, all)

  const wrong = await toolFails(client, 'search_transactions', {
    q: 'rent',
    cursor: found.next_cursor,
  })
  assert.equal(wrong.status, 400)
  assert.deepEqual(
    wrong.errors?.map((e) => e.field),
    ['cursor'],
  )
  // Oldest first through the tools: the same pages as REST, cursors of their own order.
  const oldest = await toolOk(client, 'list_transactions', { order: 'asc', limit: 4 })
  assert.deepEqual(
    oldest,
    await expectStatus(app, 'GET', '/api/v1/transactions?order=asc&limit=4', 200),
  )
  const oldestNext = await toolOk(client, 'list_transactions', {
    order: 'asc',
    limit: 4,
    cursor: oldest.next_cursor,
  })
  assert.deepEqual(
    oldestNext,
    await expectStatus(
      app,
      'GET',
      `/api/v1/transactions?order=asc&limit=4&cursor=${encodeURIComponent(oldest.next_cursor)}`,
      200,
    ),
  )
  const ascWalked: string[] = []
  let ascCursor: string | null = null
  do {
    const page: Json = await toolOk(client, 'search_transactions', {
      q: 'coffee',
      order: 'asc',
      limit: 3,
      ...(ascCursor === null ? {} : { cursor: ascCursor }),
    })
    ascWalked.push(...ids(page))
    ascCursor = page.next_cursor
  } while (ascCursor !== null)
  assert.deepEqual(ascWalked, [...all].reverse())
  const otherOrder = await toolFails(client, 'list_transactions', {
    cursor: oldest.next_cursor,
  })
  assert.equal(otherOrder.status, 400)
  assert.deepEqual(
    otherOrder.errors?.map((e) => e.field),
    ['cursor'],
  )
  const notAnOrder = await toolFails(client, 'list_transactions', { order: 'newest' })
  assert.equal(notAnOrder.status, 400)

  const both = await toolFails(client, 'list_transactions', {
    label_key: 'category',
    cursor: rest.next_cursor,
    offset: 2,
  })
  assert.equal(both.status, 400)
})

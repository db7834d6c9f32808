// The CSV source, local backend, over HTTP with real files (SPEC 1.3).
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import {
  allTransactions,
  eventsAfter,
  headSequence,
  startCsvApp,
  syncNow,
  type Json,
} from './sync-helpers.js'

const fixture = (name: string) => readFileSync(new URL(`./fixtures/csv/${name}`, import.meta.url))

const byDescription = (rows: Json[]): Record<string, Json> =>
  Object.fromEntries(rows.map((r) => [r.description, r]))

test('every amount form: $, thousands separators and + stripped, parentheses negative, text kept', async (t) => {
  const { app } = await startCsvApp(t, [
    { name: 'Amounts', files: { 'a.csv': fixture('amounts.csv') } },
  ])
  const run = await syncNow(app)
  assert.deepEqual(run.counts.csv, { inserted: 12, updated: 0, unchanged: 0, skipped: 0 })
  const rows = byDescription(await allTransactions(app, 'csv:amounts'))
  const amounts = Object.fromEntries(Object.entries(rows).map(([d, r]) => [d, r.amount]))
  assert.deepEqual(amounts, {
    plain: '12.50',
    negative: '-7.25',
    'plus sign': '3.00',
    dollar: '45.10',
    'negative dollar': '-1.99',
    thousands: '1234567.89',
    'dollar thousands': '2500.00',
    parentheses: '-15.00',
    'parentheses dollar': '-1000.01',
    padded: '8.5',
    'many decimals': '0.123456789012345678901234567890',
    'trailing zeros': '100.000',
  })
  const row = rows.plain
  assert.equal(row.source, 'csv')
  assert.match(row.id, /^csv:[0-9a-f]{32}$/)
  assert.equal(row.account_id, 'csv:amounts')
  assert.equal(row.date, '2024-01-01T00:00:00Z')
  assert.equal(row.pending, false)
})

test('every default date form, month-first for slash and dash dates', async (t) => {
  const { app } = await startCsvApp(t, [
    { name: 'Dates', files: { 'd.csv': fixture('dates.csv') } },
  ])
  const run = await syncNow(app)
  assert.deepEqual(run.counts.csv, { inserted: 14, updated: 0, unchanged: 0, skipped: 0 })
  const rows = await allTransactions(app, 'csv:dates')
  const dates = Object.fromEntries(rows.map((r) => [r.description, r.date]))
  assert.deepEqual(dates, {
    iso: '2024-02-03T00:00:00Z',
    'slash month-first': '2024-02-04T00:00:00Z',
    'slash short': '2024-02-05T00:00:00Z',
    'dash month-first': '2024-02-06T00:00:00Z',
    'two-digit year': '2024-02-07T00:00:00Z',
    'dotted day-first': '2024-02-08T00:00:00Z',
    'year-first slash': '2024-02-09T00:00:00Z',
    compact: '2024-02-10T00:00:00Z',
    'month name': '2024-02-11T00:00:00Z',
    'long month name': '2024-02-12T00:00:00Z',
    'day month year': '2024-02-13T00:00:00Z',
    'dashed month name': '2024-02-14T00:00:00Z',
    rfc3339: '2024-02-15T10:30:00Z',
    'date time': '2024-02-16T08:00:00Z',
  })
})

test('a day-first date_format', async (t) => {
  const { app } = await startCsvApp(t, [
    {
      name: 'EU',
      mapping: { date_format: '02/01/2006' },
      files: { 'e.csv': fixture('day-first.csv') },
    },
  ])
  const run = await syncNow(app)
  assert.deepEqual(run.counts.csv, { inserted: 3, updated: 0, unchanged: 0, skipped: 0 })
  const dates = Object.fromEntries(
    (await allTransactions(app, 'csv:eu')).map((r) => [r.description, r.date]),
  )
  assert.deepEqual(dates, {
    'third of April': '2024-04-03T00:00:00Z',
    "new year's eve": '2024-12-31T00:00:00Z',
    'thirteenth of January': '2024-01-13T00:00:00Z',
  })
})

test('a file in another encoding: named by mapping.encoding it imports as written; read as UTF-8 it is flagged', async (t) => {
  // Windows-1252, as many banks write it: é and – are one byte each.
  const cp1252 = Buffer.from(
    [...'Date,Description,Amount\n2024-03-01,Café – Paris,-4.20\n'].map((c) =>
      c === '–' ? 0x96 : c.charCodeAt(0),
    ),
  )
  const { app } = await startCsvApp(t, [
    { name: 'Euro', mapping: { encoding: 'windows-1252' }, files: { 'e.csv': cp1252 } },
    { name: 'Guessed', files: { 'g.csv': cp1252 } },
  ])
  const run = await syncNow(app)
  assert.deepEqual(run.counts.csv, { inserted: 2, updated: 0, unchanged: 0, skipped: 0 })
  assert.deepEqual(
    (await allTransactions(app, 'csv:euro')).map((r) => r.description),
    ['Café – Paris'],
  )
  assert.deepEqual(
    (await allTransactions(app, 'csv:guessed')).map((r) => r.description),
    ['Caf\uFFFD \uFFFD Paris'],
  )
  assert.deepEqual(run.warnings, [
    'csv: folder "Guessed": file "g.csv" is not UTF-8: bytes it could not read became U+FFFD (set mapping.encoding, for example "windows-1252")',
  ])
})

test("has_header = false with index mapping and a ';' delimiter", async (t) => {
  const { app } = await startCsvApp(t, [
    {
      name: 'Semi',
      mapping: {
        has_header: false,
        delimiter: ';',
        date_column: 1,
        amount_column: 2,
        description_column: 4,
        date_format: '2006.01.02',
      },
      files: { 's.csv': fixture('semicolon-no-header.csv') },
    },
  ])
  const run = await syncNow(app)
  assert.deepEqual(run.counts.csv, { inserted: 2, updated: 0, unchanged: 0, skipped: 0 })
  const rows = await allTransactions(app, 'csv:semi')
  assert.deepEqual(
    rows.map((r) => [r.date, r.amount, r.description]),
    [
      ['2024-07-02T00:00:00Z', '10', 'Semi;colon'],
      ['2024-07-01T00:00:00Z', '-4.50', 'Groceries'],
    ],
  )
})

test('header aliases and debit/credit columns: amount is credit minus debit, exactly', async (t) => {
  const { app } = await startCsvApp(t, [
    { name: 'Split', files: { 'x.csv': fixture('debit-credit.csv') } },
  ])
  const run = await syncNow(app)
  // "Both blank" has no amount: counted and skipped.
  assert.deepEqual(run.counts.csv, { inserted: 3, updated: 0, unchanged: 0, skipped: 1 })
  const rows = await allTransactions(app, 'csv:split')
  assert.deepEqual(
    rows.map((r) => [r.date.slice(0, 10), r.payee, r.memo, r.description, r.amount]),
    [
      ['2024-05-03', 'Store', 'Refund and purchase', null, '-7.50'],
      ['2024-05-02', 'Employer', 'Pay', null, '3000.50'],
      ['2024-05-01', 'Landlord', 'May rent', null, '-1200.00'],
    ],
  )
})

test('quotes, embedded newlines, a BOM and CRLF line ends', async (t) => {
  const { app } = await startCsvApp(t, [
    { name: 'Quotes', files: { 'q.csv': fixture('quoting.csv') } },
  ])
  const run = await syncNow(app)
  assert.deepEqual(run.counts.csv, { inserted: 2, updated: 0, unchanged: 0, skipped: 0 })
  const rows = byDescription(await allTransactions(app, 'csv:quotes'))
  assert.deepEqual(
    [
      rows['Quoted, with comma'].payee,
      rows['Quoted, with comma'].memo,
      rows['Quoted, with comma'].amount,
    ],
    ['Shop', 'line one\r\nline two', '-1.00'],
  )
  assert.equal(rows['She said "hi"'].amount, '2.00')
  assert.equal(rows['She said "hi"'].payee, null)
})

test('bad rows are counted and skipped; bad files are logged and skipped; the rest imports', async (t) => {
  const { app } = await startCsvApp(t, [
    {
      name: 'Mixed',
      files: {
        '1-bad-rows.csv': fixture('bad-rows.csv'),
        '2-binary.csv': fixture('binary.csv'),
        '3-unclosed.csv': fixture('unclosed-quote.csv'),
        '4-no-columns.csv': 'foo,bar\n1,2\n',
        '5-good.csv': 'Date,Amount,Description\n2024-04-09,1.00,after the bad files\n',
        'ignored.txt': 'Date,Amount\n2024-01-01,1\n',
      },
    },
  ])
  const run = await syncNow(app)
  assert.equal(run.status, 'success')
  assert.deepEqual(run.counts.csv, { inserted: 3, updated: 0, unchanged: 0, skipped: 3 })
  assert.deepEqual(run.warnings, [
    'csv: folder "Mixed": file "1-bad-rows.csv": 3 row(s) skipped (line 3: unparseable date "yesterday"; line 4: unparseable amount "five"; line 5: unparseable date "2024-02-30")',
    'csv: folder "Mixed": file "2-binary.csv" skipped: not a text file',
    'csv: folder "Mixed": file "3-unclosed.csv" skipped: Quote Not Closed: the parsing is finished with an opening quote at line 3',
    'csv: folder "Mixed": file "4-no-columns.csv" skipped: no date column (set mapping.date_column)',
  ])
  const descriptions = (await allTransactions(app, 'csv:mixed')).map((r) => r.description).sort()
  assert.deepEqual(descriptions, ['after the bad files', 'good one', 'good two'])
  const logged = app.logs
    .map((line) => JSON.parse(line))
    .filter((l) => l.msg === 'csv: bad file skipped')
  assert.deepEqual(
    logged.map((l) => l.file),
    ['2-binary.csv', '3-unclosed.csv', '4-no-columns.csv'],
  )
})

test('a skipped row says why: blank, too long, or not an amount; the pair of cells it came from', async (t) => {
  const long = '9'.repeat(64)
  const { app } = await startCsvApp(t, [
    {
      name: 'Why',
      files: {
        '1-single.csv': `Date,Amount\n2024-01-01,\n2024-01-02,-${long.slice(1)}1\n2024-01-03,12 EUR\n2024-01-04,1\n`,
        '2-pair.csv': `Date,Debit,Credit\n2024-01-01,,\n2024-01-02,${long},-1\n2024-01-03,ten,\n2024-01-04,1,\n`,
        '3-date.csv': 'Date,Amount\n,1\n2024-01-05,2\n',
      },
    },
  ])
  const run = await syncNow(app)
  assert.deepEqual(run.counts.csv, { inserted: 3, updated: 0, unchanged: 0, skipped: 7 })
  const cut = `"${'9'.repeat(40)}…"`
  assert.deepEqual(run.warnings, [
    `csv: folder "Why": file "1-single.csv": 3 row(s) skipped (line 2: no amount: the cell is blank; line 3: amount longer than 64 characters "-${'9'.repeat(39)}…"; line 4: unparseable amount "12 EUR")`,
    `csv: folder "Why": file "2-pair.csv": 3 row(s) skipped (line 2: no amount: debit and credit are blank; line 3: amount longer than 64 characters: credit "-1", debit ${cut}; line 4: unparseable amount: credit "", debit "ten")`,
    'csv: folder "Why": file "3-date.csv": 1 row(s) skipped (line 2: no date: the cell is blank)',
  ])
})

test('identical rows in a file collapse to one', async (t) => {
  const { app } = await startCsvApp(t, [
    { name: 'Dups', files: { 'd.csv': fixture('duplicates.csv') } },
  ])
  const run = await syncNow(app)
  assert.deepEqual(run.counts.csv, { inserted: 2, updated: 0, unchanged: 2, skipped: 0 })
  assert.equal((await allTransactions(app, 'csv:dups')).length, 2)
})

test('folder entry: account csv:<slug>, institution csv:<slug of org>, currency', async (t) => {
  const { app } = await startCsvApp(t, [
    {
      name: 'Crédit Agricole — Joint',
      account: 'Joint account',
      org: 'Crédit Agricole',
      currency: 'eur',
      files: { 'a.csv': 'Date,Amount\n2024-01-01,1\n' },
    },
    { name: 'Plain', files: { 'a.csv': 'Date,Amount\n2024-01-01,1\n' } },
  ])
  await syncNow(app)
  const account = await app.request('GET', '/api/v1/accounts/csv:credit-agricole-joint')
  assert.equal(account.status, 200, account.text)
  assert.deepEqual(
    { ...account.body, created_at: undefined, updated_at: undefined, synced_at: undefined },
    {
      ...account.body,
      id: 'csv:credit-agricole-joint',
      name: 'Joint account',
      currency: 'EUR',
      balance: '0',
      source: 'csv',
      org_id: 'csv:credit-agricole',
      created_at: undefined,
      updated_at: undefined,
      synced_at: undefined,
    },
  )
  const orgs = await app.request('GET', '/api/v1/organizations')
  const csvOrgs = orgs.body.organizations
    .filter((o: { id: string }) => o.id.startsWith('csv:'))
    .map((o: { id: string; name: string; source: string }) => [o.id, o.name, o.source])
  assert.deepEqual(csvOrgs, [
    ['csv:credit-agricole', 'Crédit Agricole', 'csv'],
    ['csv:plain', 'Plain', 'csv'],
  ])
  const plain = await app.request('GET', '/api/v1/accounts/csv:plain')
  assert.equal(plain.body.currency, 'USD')
})

test('re-sync: no new events when nothing changed; a changed row is transaction.updated; labels and extensions survive', async (t) => {
  const { app, root } = await startCsvApp(t, [
    {
      name: 'Resync',
      files: { 'a.csv': 'Date,Description,Amount\n2024-01-01,Coffee,-3.5\n2024-01-02,Rent,-900\n' },
    },
  ])
  const first = await syncNow(app)
  assert.deepEqual(first.counts.csv, { inserted: 2, updated: 0, unchanged: 0, skipped: 0 })
  const rows = byDescription(await allTransactions(app, 'csv:resync'))
  const coffee = rows.Coffee
  const labels = await app.request('PUT', `/api/v1/transactions/${coffee.id}/labels`, {
    body: { labels: { category: 'food' } },
  })
  assert.equal(labels.status, 200, labels.text)
  const ext = await app.request('PUT', `/api/v1/transactions/${coffee.id}/extensions`, {
    body: { extensions: { 'tax.deductible': false } },
  })
  assert.equal(ext.status, 200, ext.text)

  // Unchanged: only the sync.completed event, and synced_at moves.
  const head = await headSequence(app)
  const again = await syncNow(app)
  assert.deepEqual(again.counts.csv, { inserted: 0, updated: 0, unchanged: 2, skipped: 0 })
  assert.deepEqual(
    (await eventsAfter(app, head)).map((e) => e.type),
    ['sync.completed'],
  )

  // The same row written differently by a new export: same id, stored text changes.
  const path = join(root, 'Resync', 'a.csv')
  writeFileSync(path, 'Date,Description,Amount\n2024-01-01,Coffee,-3.50\n2024-01-02,Rent,-900\n')
  const head2 = await headSequence(app)
  const changed = await syncNow(app)
  assert.deepEqual(changed.counts.csv, { inserted: 0, updated: 1, unchanged: 1, skipped: 0 })
  const events = await eventsAfter(app, head2)
  assert.deepEqual(
    events.map((e) => e.type),
    ['transaction.updated', 'sync.completed'],
  )
  assert.equal(events[0].entity_id, coffee.id)
  assert.equal(events[0].data.amount, '-3.50')
  assert.deepEqual(events[0].data.labels, { category: 'food' })
  assert.deepEqual(events[0].data.extensions, { 'tax.deductible': false })

  const after = await app.request('GET', `/api/v1/transactions/${coffee.id}`)
  assert.equal(after.body.amount, '-3.50')
  assert.equal(after.body.source, 'csv')
  assert.deepEqual(after.body.labels, { category: 'food' })
  assert.deepEqual(after.body.extensions, { 'tax.deductible': false })
  const history = await app.request('GET', `/api/v1/transactions/${coffee.id}/history`)
  assert.deepEqual(
    history.body.versions.map((v: { kind: string }) => v.kind),
    ['imported', 'labeled', 'extended', 'synced'],
  )
  assert.deepEqual(history.body.versions[3].diff, { amount: { from: '-3.5', to: '-3.50' } })
})

test('CSV rows and accounts are not editable: 409', async (t) => {
  const { app } = await startCsvApp(t, [
    { name: 'Locked', files: { 'a.csv': 'Date,Amount\n2024-01-01,1\n' } },
  ])
  await syncNow(app)
  const [row] = await allTransactions(app, 'csv:locked')
  const put = await app.request('PUT', `/api/v1/transactions/${row.id}`, { body: { amount: '2' } })
  assert.equal(put.status, 409, put.text)
  const del = await app.request('DELETE', `/api/v1/transactions/${row.id}`)
  assert.equal(del.status, 409, del.text)
  const acct = await app.request('PUT', '/api/v1/accounts/csv:locked', { body: { name: 'x' } })
  assert.equal(acct.status, 409, acct.text)
  assert.equal((await app.request('GET', `/api/v1/transactions/${row.id}`)).body.amount, '1')
})

test('a 1 MB file imports whole, and re-syncs unchanged', async (t) => {
  const lines = ['Date,Description,Payee,Amount']
  let size = 0
  for (let i = 0; size < 1024 * 1024; i++) {
    const line = `2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')},Purchase number ${i},Merchant ${i % 97},-${i % 500}.${String(i % 100).padStart(2, '0')}`
    lines.push(line)
    size += line.length + 1
  }
  const rows = lines.length - 1
  const { app } = await startCsvApp(t, [{ name: 'Large', files: { 'big.csv': lines.join('\n') } }])
  const run = await syncNow(app)
  assert.deepEqual(run.counts.csv, { inserted: rows, updated: 0, unchanged: 0, skipped: 0 })
  const list = await app.request('GET', '/api/v1/accounts/csv:large/transactions?limit=1')
  assert.equal(list.body.total, rows)
  const again = await syncNow(app)
  assert.deepEqual(again.counts.csv, { inserted: 0, updated: 0, unchanged: rows, skipped: 0 })
})

test('folder problems: a missing directory and a bad mapping are warnings; others still import', async (t) => {
  const { app } = await startCsvApp(t, [
    { name: 'Good', files: { 'a.csv': 'Date,Amount\n2024-01-01,1\n' } },
    {
      name: 'Named',
      mapping: { has_header: false, date_column: 'Date', amount_column: 1 },
      files: {},
    },
    { name: 'No year', mapping: { date_format: '01/02' }, files: {} },
  ])
  const run = await syncNow(app)
  assert.equal(run.status, 'success')
  assert.deepEqual(run.warnings, [
    'csv: folder "Named": mapping.date_column: has_header = false needs a 0-based column index, not a name; skipped',
    'csv: folder "No year": mapping.date_format "01/02" has no year (2006 or 06); skipped',
  ])
  assert.equal(run.counts.csv.inserted, 1)
})

test('an import is searchable at once: its search documents are written with it, none queued', async (t) => {
  // More rows than one unit of work (SYNC_UNIT_ROWS), each with its own words.
  const rows = 12_000
  const lines = ['Date,Description,Payee,Amount']
  for (let i = 0; i < rows; i++) lines.push(`2024-03-01,Invoice zq${i}x,Vendor ${i % 7},-${i}.00`)
  const { app } = await startCsvApp(t, [
    { name: 'Big', files: { 'big.csv': `${lines.join('\n')}\n` } },
  ])
  const run = await syncNow(app)
  assert.equal(run.counts.csv.inserted, rows)
  // Nothing is left for the search indexer (SQLite; PostgreSQL's indexes are its own).
  const { buildsSearchDocuments } = await import('../src/db/dialect.js')
  if (buildsSearchDocuments(app.ctx.db.kysely)) {
    const { sql } = await import('kysely')
    const queued = await sql<{ n: number }>`select count(*) as n from search_pending`.execute(
      app.ctx.db.kysely,
    )
    assert.equal(queued.rows[0]!.n, 0)
    const documents = await sql<{ n: number }>`select count(*) as n from search_text`.execute(
      app.ctx.db.kysely,
    )
    assert.equal(documents.rows[0]!.n, rows)
  }
  const search = async (q: string) =>
    (await app.request('GET', `/api/v1/transactions/search?q=${encodeURIComponent(q)}`)).body
  const one = await search('zq11999x')
  assert.deepEqual(
    one.transactions.map((r: Json) => r.description),
    ['Invoice zq11999x'],
  )
  const some = await search('"zq123" vendor')
  assert.deepEqual(
    some.transactions.map((r: Json) => r.description).sort(),
    ['Invoice zq123x', ...Array.from({ length: 10 }, (_, i) => `Invoice zq123${i}x`)].sort(),
  )
})

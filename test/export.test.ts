// Export (docs/export.md): `coffer export` (a spawned process) and GET
// /api/v1/export (read tier) stream the same text from one service; the ledger
// journal is read by hledger and the beancount file by bean-check (Debian
// packages hledger and beancount: .ci/run installs them; this test fails, never
// skips, without them).
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { get, type IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { test, type TestContext } from 'node:test'
import { parse } from 'csv-parse/sync'
import { compareDecimal, DecimalSum, formatScaled, sumDecimal } from '../src/decimal.js'
import { formatWriter, type ExportFormat } from '../src/export/formats.js'
import { accountComponent, ledgerAccountNames, shortHash } from '../src/export/names.js'
import { canonicalJson, type TransactionJson } from '../src/ledger/json.js'
import { writeExtensionsInUnit } from '../src/ledger/extensions.js'
import { writeLabelsInUnit } from '../src/ledger/labels.js'
import { findTransaction } from '../src/ledger/snapshots.js'
import { dsnWithSchema, ENGINE, startTestApp, type TestAppHandle } from './helpers/app.js'
import { expectProblem, expectStatus } from './helpers/http.js'
import { ingest, manualTransactionJson } from './helpers/ledger.js'
import { runCli } from './helpers/cli.js'
import SqliteDatabase from '../src/db/sqlite-binding.js'

const TOKEN = 'export-test-dashboard-token-0123456789'
const FORMATS = ['csv', 'jsonl', 'ledger', 'beancount'] as const

/** A tool the test needs; missing, the test fails with what to install. */
function requireTool(name: string): void {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' })
  assert.equal(
    found.status,
    0,
    `${name} is not installed: run \`apt-get install -y hledger beancount\` (.ci/run does)`,
  )
}

interface Seeded {
  t: TestContext
  app: TestAppHandle
  readKey: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  accounts: any[]
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  transactions: any[]
}

const AWKWARD = 'quote " backslash \\ comma, semi; colon: tab\tnew\nline émoji 🙂 ] } #'
/** Label values are one line (no control characters). */
const AWKWARD_LINE = AWKWARD.replace(/[\t\n]/g, ' ')

/**
 * Accounts in several currencies (18-decimal ETH, a currency with digits, one
 * letter, one starting with a digit), two accounts of the same name, and
 * transactions with labels and extensions holding awkward text.
 */
async function seed(t: TestContext): Promise<Seeded> {
  const app = await startTestApp(t, { env: { SERVICE_DASHBOARD_TOKEN: TOKEN } })
  const post = (path: string, body: object) =>
    expectStatus(app, 'POST', path, 201, body, { token: TOKEN })
  const put = (path: string, body: object) =>
    expectStatus(app, 'PUT', path, 200, body, { token: TOKEN })
  const specs = [
    { name: 'Checking', currency: 'USD' },
    { name: 'Wallet', currency: 'ETH' },
    { name: 'Wallet', currency: 'USDC2' },
    { name: 'Cash: été / "savings"', currency: 'X' },
    { name: '1inch bag', currency: '1INCH' },
  ]
  const accounts = []
  for (const spec of specs) accounts.push(await post('/api/v1/accounts', spec))
  const amounts = [
    '-12.34',
    '0.000000000000000001',
    '1234567890.123456789012345678',
    '-0.5',
    '5.',
    '.25',
    '0',
    '-99999.999999999999999999',
    '42',
    '-0.000000000000000007',
  ]
  const transactions = []
  for (let i = 0; i < 30; i++) {
    const account = accounts[i % accounts.length]
    const day = String(1 + (i % 28)).padStart(2, '0')
    const tx = await post('/api/v1/transactions', {
      account_id: account.id,
      amount: amounts[i % amounts.length],
      date: `2024-0${1 + (i % 3)}-${day}`,
      description: i % 4 === 0 ? AWKWARD : `purchase ${i}`,
      payee: i % 5 === 0 ? 'Shop "A"; B' : null,
      memo: i % 6 === 0 ? 'memo\r\nsecond line' : null,
    })
    if (i % 3 === 0) {
      await put(`/api/v1/transactions/${tx.id}/labels`, {
        labels: { category: i % 2 ? 'food' : 'rent', 'Odd.Key/x': AWKWARD_LINE, odd_key_x: 'twin' },
      })
    }
    if (i % 4 === 1) {
      await put(`/api/v1/transactions/${tx.id}/extensions`, {
        extensions: { 'tax.rate': 10, note: AWKWARD, nested: { a: [1, 'two', null], b: true } },
      })
    }
    transactions.push(
      await expectStatus(app, 'GET', `/api/v1/transactions/${tx.id}`, 200, undefined, {
        token: TOKEN,
      }),
    )
  }
  const key = await post('/api/v1/security/api-keys', { name: 'reader', scope: 'read' })
  return { t, app, readKey: key.key, accounts, transactions }
}

/** GET /api/v1/export with a read key: the response, its status asserted. */
async function httpExport(s: Seeded, query: string, status = 200) {
  // Raw HTTP: the test requester would parse application/x-ndjson as one JSON
  // value. A fresh connection each time (no agent): a spawned CLI takes longer
  // than the server's keep-alive, and a pooled connection could meet its close
  // (fetch ignores a `connection: close` header).
  const res = await new Promise<IncomingMessage>((resolve, reject) =>
    get(
      `${s.app.url}/api/v1/export?${query}`,
      { agent: false, headers: { authorization: `Bearer ${s.readKey}` } },
      resolve,
    ).on('error', reject),
  )
  const chunks: Buffer[] = []
  for await (const chunk of res) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  assert.equal(res.statusCode, status, text)
  const headers = new Headers()
  for (const [name, value] of Object.entries(res.headers))
    if (typeof value === 'string') headers.set(name, value)
  return { headers, text }
}

/** `coffer export <args>` against the app's database, as a user runs it. */
async function cliExport(
  s: Seeded,
  args: string[],
  before: string[] = [],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  // Spawned, not spawnSync: the service under test runs in this process, and
  // a blocked event loop would hold whatever it was doing (the SQLite write
  // lock of a unit of work included) until the command gave up waiting.
  const run = await runCli(
    s.t,
    [...before, 'export', ...args],
    {
      SERVICE_DATA_DIR: join(s.app.dir, 'data'),
      SERVICE_DATABASE_PATH: join(s.app.dir, 'coffer.db'),
      SERVICE_SYNC_INTERVAL: '0',
      SERVICE_LOG_LEVEL: 'warn',
      ...(s.app.schema
        ? { SERVICE_DATABASE_DRIVER: 'postgres', SERVICE_DATABASE_DSN: dsnWithSchema(s.app.schema) }
        : {}),
    },
    s.app.dir,
  )
  return { status: run.code, stdout: run.stdout, stderr: run.stderr }
}

/** Oldest first, by date then id: the export's order. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function oldestFirst(rows: any[]): any[] {
  return [...rows].sort((a, b) =>
    a.date === b.date ? (a.id < b.id ? -1 : 1) : a.date < b.date ? -1 : 1,
  )
}

test('every format streams the same text over HTTP and the CLI, with its media type and file name', async (t) => {
  const s = await seed(t)
  for (const format of FORMATS) {
    const res = await httpExport(s, `format=${format}`)
    const type = res.headers.get('content-type') ?? ''
    assert.equal(
      type,
      {
        csv: 'text/csv; charset=utf-8',
        jsonl: 'application/x-ndjson',
        ledger: 'text/plain; charset=utf-8',
        beancount: 'text/plain; charset=utf-8',
      }[format],
    )
    const ext = { csv: 'csv', jsonl: 'jsonl', ledger: 'journal', beancount: 'beancount' }[format]
    assert.match(
      res.headers.get('content-disposition') ?? '',
      new RegExp(`^attachment; filename="coffer-export-\\d{4}-\\d{2}-\\d{2}\\.${ext}"$`),
    )
    const cli = await cliExport(s, ['--format', format])
    assert.equal(cli.status, 0, cli.stderr)
    assert.equal(cli.stdout, res.text, `${format}: the CLI and HTTP exports differ`)
    // --output writes the same text to a file, and nothing to stdout.
    const file = join(s.app.dir, `out.${ext}`)
    const toFile = await cliExport(s, ['--format', format, '--output', file])
    assert.equal(toFile.status, 0, toFile.stderr)
    assert.equal(toFile.stdout, '')
    assert.equal(readFileSync(file, 'utf8'), res.text)
  }
  // The command word after an option of the program's, as `backup` takes it too.
  const config = join(s.app.dir, 'empty.toml')
  writeFileSync(config, '')
  const jsonl = await cliExport(s, ['--format', 'jsonl'], ['--config', config])
  assert.equal(jsonl.status, 0, jsonl.stderr)
  assert.equal(jsonl.stdout, (await httpExport(s, 'format=jsonl')).text)
})

test(
  'coffer export reads beside a writer that holds the SQLite write lock',
  { skip: ENGINE === 'postgres' ? 'the write lock is SQLite’s' : false },
  async (t) => {
    const s = await seed(t)
    const expected = (await httpExport(s, 'format=jsonl')).text
    // Another process in the middle of a long unit of work (a rules run, a
    // sync's batch): opening the database must not wait for its lock.
    const writer = new SqliteDatabase(join(s.app.dir, 'coffer.db'))
    t.after(() => writer.close())
    writer.exec('begin immediate')
    const cli = await cliExport(s, ['--format', 'jsonl'])
    writer.exec('rollback')
    assert.equal(cli.status, 0, cli.stderr)
    assert.equal(cli.stdout, expected)
  },
)

test('jsonl is the API transaction shape and csv holds the same rows, RFC 4180 quoted', async (t) => {
  const s = await seed(t)
  const expected = oldestFirst(s.transactions)
  const jsonl = (await httpExport(s, 'format=jsonl')).text
  assert.ok(jsonl.endsWith('\n'))
  assert.deepEqual(
    jsonl
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line)),
    expected,
  )

  const csv = (await httpExport(s, 'format=csv')).text
  assert.ok(csv.startsWith('id,date,account_id,amount,currency,'))
  assert.ok(csv.endsWith('\r\n'))
  const rows = parse<Record<string, string>>(csv, { columns: true })
  const currency = new Map(s.accounts.map((a) => [a.id, a.currency]))
  assert.deepEqual(
    rows,
    expected.map((tx) => ({
      id: tx.id,
      date: tx.date,
      account_id: tx.account_id,
      amount: tx.amount,
      currency: currency.get(tx.account_id),
      description: tx.description ?? '',
      payee: tx.payee ?? '',
      memo: tx.memo ?? '',
      pending: String(tx.pending),
      source: tx.source,
      synced_at: tx.synced_at ?? '',
      labels: rows.find((r) => r.id === tx.id)!.labels,
      extensions: rows.find((r) => r.id === tx.id)!.extensions,
    })),
  )
  for (const [i, row] of rows.entries()) {
    assert.deepEqual(JSON.parse(row.labels!), expected[i].labels)
    assert.deepEqual(JSON.parse(row.extensions!), expected[i].extensions)
  }
})

test('hledger balances every account to Coffer’s exact sum; bean-check accepts the beancount file', async (t) => {
  requireTool('hledger')
  requireTool('bean-check')
  const s = await seed(t)
  const names = ledgerAccountNames(s.accounts.map((a) => ({ ...a, org_name: 'Manual' })))
  // The two "Wallet" accounts stay two ledger accounts.
  assert.equal(new Set(names.values()).size, s.accounts.length)

  const journal = join(s.app.dir, 'export.journal')
  writeFileSync(journal, (await httpExport(s, 'format=ledger')).text)
  const hledger = spawnSync(
    'hledger',
    ['-f', journal, 'balance', '--flat', '--empty', '--no-total', '-O', 'csv'],
    { encoding: 'utf8' },
  )
  assert.equal(hledger.status, 0, hledger.stderr)
  const balances = new Map(
    parse<{ account: string; balance: string }>(hledger.stdout, { columns: true }).map((r) => [
      r.account,
      r.balance,
    ]),
  )
  for (const account of s.accounts) {
    const own = s.transactions.filter((tx) => tx.account_id === account.id)
    const exact = sumDecimal(own.map((tx) => tx.amount))
    const shown = balances.get(names.get(account.id)!)
    assert.ok(shown !== undefined, `hledger has no account ${names.get(account.id)}`)
    // One commodity per account: "<number> <commodity>" (or "0" when it nets to zero).
    const number = /^-?\d+(\.\d+)?/.exec(shown)![0]
    assert.equal(
      compareDecimal(number, exact),
      0,
      `${account.name}: hledger ${shown}, Coffer ${exact}`,
    )
    if (compareDecimal(exact, '0') !== 0) {
      const commodity = shown.slice(number.length).trim()
      assert.equal(commodity.replace(/^"|"$/g, ''), account.currency)
    }
  }
  // Labels are tags hledger can query by.
  const tagged = spawnSync(
    'hledger',
    ['-f', journal, 'register', 'tag:category=rent', '-O', 'csv'],
    {
      encoding: 'utf8',
    },
  )
  assert.equal(tagged.status, 0, tagged.stderr)
  const rent = s.transactions.filter((tx) => tx.labels.category === 'rent').length
  // Two postings per transaction, and a header line.
  assert.equal(tagged.stdout.trim().split('\n').length - 1, rent * 2)

  const beanFile = join(s.app.dir, 'export.beancount')
  const beancount = (await httpExport(s, 'format=beancount')).text
  writeFileSync(beanFile, beancount)
  const check = spawnSync('bean-check', [beanFile], { encoding: 'utf8' })
  assert.equal(check.status, 0, `bean-check: ${check.stdout}${check.stderr}`)
  assert.equal(check.stdout + check.stderr, '')
  // Invalid beancount currencies are mapped (X and 1INCH), valid ones kept.
  assert.match(beancount, / USDC2\n/)
  assert.match(beancount, / X-[0-9A-F]{8}\n/)
  assert.match(beancount, / C1INCH-[0-9A-F]{8}\n/)
})

test('--query/q, --since/since and --until/until select the same transactions in both doors', async (t) => {
  const s = await seed(t)
  const ids = (text: string) =>
    text
      .trimEnd()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line).id as string)
  const cases: {
    query: string
    args: string[]
    want: (tx: (typeof s.transactions)[0]) => boolean
  }[] = [
    {
      query: 'q=category:food',
      args: ['--query', 'category:food'],
      want: (tx) => tx.labels.category === 'food',
    },
    {
      query: 'since=2024-02-01&until=2024-02-28',
      args: ['--since', '2024-02-01', '--until', '2024-02-28'],
      want: (tx) => tx.date >= '2024-02-01' && tx.date < '2024-02-29',
    },
    {
      query: `q=${encodeURIComponent('amount:<0')}&since=2024-03-01`,
      args: ['--query', 'amount:<0', '--since', '2024-03-01'],
      want: (tx) => tx.amount.startsWith('-') && tx.date >= '2024-03-01',
    },
  ]
  for (const c of cases) {
    const expected = oldestFirst(s.transactions.filter(c.want)).map((tx) => tx.id)
    assert.ok(expected.length > 0 && expected.length < s.transactions.length, c.query)
    assert.deepEqual(ids((await httpExport(s, `format=jsonl&${c.query}`)).text), expected, c.query)
    const cli = await cliExport(s, ['--format', 'jsonl', ...c.args])
    assert.equal(cli.status, 0, cli.stderr)
    assert.deepEqual(ids(cli.stdout), expected, c.args.join(' '))
  }
})

test('a bad query, date or format is a 400 like search’s, and a clear CLI error with exit 2', async (t) => {
  const s = await seed(t)
  const q = encodeURIComponent('amount:<12x')
  const search = await expectProblem(
    s.app,
    'GET',
    `/api/v1/transactions/search?q=${q}`,
    400,
    undefined,
    {
      token: s.readKey,
    },
  )
  const exported = await expectProblem(
    s.app,
    'GET',
    `/api/v1/export?format=csv&q=${q}`,
    400,
    undefined,
    {
      token: s.readKey,
    },
  )
  assert.deepEqual(exported, search)
  const badDay = await expectProblem(
    s.app,
    'GET',
    '/api/v1/export?format=csv&since=2024-02-30',
    400,
    undefined,
    {
      token: s.readKey,
    },
  )
  assert.deepEqual(
    badDay.errors.map((e: { field: string }) => e.field),
    ['since'],
  )
  await expectProblem(s.app, 'GET', '/api/v1/export?format=xlsx', 400, undefined, {
    token: s.readKey,
  })
  await expectProblem(s.app, 'GET', '/api/v1/export', 400, undefined, { token: s.readKey })

  const file = join(s.app.dir, 'never.csv')
  const cli = await cliExport(s, ['--format', 'csv', '--query', 'amount:<12x', '--output', file])
  assert.equal(cli.status, 2)
  assert.equal(cli.stdout, '')
  assert.equal(cli.stderr.trim(), `coffer export: ${search.detail}`)
  assert.throws(() => readFileSync(file), /ENOENT/)
  const format = await cliExport(s, ['--format', 'xlsx'])
  assert.equal(format.status, 2)
  assert.equal(
    format.stderr.trim(),
    'coffer export: format: must be one of csv, jsonl, ledger, beancount',
  )
  const day = await cliExport(s, ['--format', 'csv', '--since', '2024-02-30'])
  assert.equal(day.status, 2)
  assert.equal(day.stdout, '')
  assert.equal(day.stderr.trim(), `coffer export: ${badDay.detail}`)
  const missing = await cliExport(s, [])
  assert.equal(missing.status, 2)
  assert.match(missing.stderr, /--format is required/)
})

test('GET /api/v1/export is read tier: no credential is 401, a read key and the dashboard token may', async (t) => {
  const s = await seed(t)
  const none = await s.app.request('GET', '/api/v1/export?format=csv')
  assert.equal(none.status, 401)
  assert.match(none.headers.get('content-type') ?? '', /^application\/problem\+json/)
  const wrong = await s.app.request('GET', '/api/v1/export?format=csv', { token: 'not-a-key' })
  assert.equal(wrong.status, 401)
  const read = await s.app.request('GET', '/api/v1/export?format=csv', { token: s.readKey })
  assert.equal(read.status, 200)
  const admin = await s.app.request('GET', '/api/v1/export?format=csv', { token: TOKEN })
  assert.equal(admin.status, 200)
  assert.equal(admin.text, read.text)
})

// Awkward text straight through the writers (no database): each case is read
// back by hledger or bean-check.

/** A transaction as the writers get it: a plain one with `fields` over it. */
function transaction(fields: Partial<TransactionJson>): TransactionJson {
  return manualTransactionJson({
    id: 'man_1',
    account_id: 'acc_usd',
    amount: '1.00',
    date: '2024-01-05T00:00:00.000Z',
    description: 'purchase',
    ...fields,
  })
}

/** The whole text of `format` for these transactions; `currencies` maps account ids (default USD). */
function written(
  format: ExportFormat,
  transactions: TransactionJson[],
  currencies: Record<string, string> = {},
): string {
  const writer = formatWriter(format)
  return (
    writer.start() +
    writer.page(transactions, (id) => ({
      currency: currencies[id] ?? 'USD',
      ledger_name: `Assets:Manual:${accountComponent(id)}`,
    }))
  )
}

/** `text` in a file of a temp directory removed after the test. */
function tempFile(t: TestContext, name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-export-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

/** `hledger -f <journal> <args>`, asserted to succeed: its stdout. */
function hledgerOn(journal: string, args: string[]): string {
  const run = spawnSync('hledger', ['-f', journal, ...args], { encoding: 'utf8' })
  assert.equal(run.status, 0, `hledger ${args.join(' ')}: ${run.stderr}`)
  return run.stdout
}

/** bean-check on a beancount text, asserted to find nothing. */
function assertBeanCheckAccepts(t: TestContext, text: string): void {
  const check = spawnSync('bean-check', [tempFile(t, 'export.beancount', text)], {
    encoding: 'utf8',
  })
  assert.equal(check.status, 0, `bean-check: ${check.stdout}${check.stderr}`)
  assert.equal(check.stdout + check.stderr, '')
}

test('csv quotes a field holding a lone line feed or carriage return, so each record is one line', () => {
  const csv = written('csv', [transaction({ description: 'd1\rd2', memo: 'm1\nm2' })])
  assert.equal(
    csv.split('\r\n')[1],
    'man_1,2024-01-05T00:00:00.000Z,acc_usd,1.00,USD,"d1\rd2",,"m1\nm2",false,manual,,{},{}',
  )
})

test('hledger reads a title that starts with "(" whole, not as a transaction code', (t) => {
  requireTool('hledger')
  const titles = ['(no closing paren', '(code) description', ' (spaced']
  const transactions = titles.map((description, i) => transaction({ id: `man_${i}`, description }))
  transactions.push(transaction({ id: 'man_p', payee: '(payee', description: 'what' }))
  const journal = tempFile(t, 'export.journal', written('ledger', transactions))
  const rows = parse<{ code: string; description: string }>(
    hledgerOn(journal, ['register', 'Assets', '-O', 'csv']),
    { columns: true },
  )
  assert.deepEqual(
    rows.map((r) => [r.code, r.description]),
    [...titles.map((title) => ['', title.trimStart()]), ['', '(payee | what']],
  )
})

test('hledger accepts every currency as a commodity, a ";" or an empty one included', (t) => {
  requireTool('hledger')
  const currencies: Record<string, string> = {
    acc_url: 'https://x.example/c?u=1;v=2',
    acc_quote: 'A"B',
    acc_empty: '',
    acc_digits: '1INCH',
  }
  const journal = tempFile(
    t,
    'export.journal',
    written(
      'ledger',
      Object.keys(currencies).map((id) => transaction({ id: `man_${id}`, account_id: id })),
      currencies,
    ),
  )
  hledgerOn(journal, ['check'])
  const balances = parse<{ account: string; balance: string }>(
    hledgerOn(journal, ['balance', 'Assets', '--flat', '--no-total', '-O', 'csv']),
    { columns: true },
  )
  assert.deepEqual(
    balances.map((b) => [b.account, b.balance]),
    [
      ['Assets:Manual:Acc-digits', '1.00 "1INCH"'],
      ['Assets:Manual:Acc-empty', '1.00'],
      ['Assets:Manual:Acc-quote', '1.00 A_B'],
      ['Assets:Manual:Acc-url', '1.00 "https://x.example/c?u=1_v=2"'],
    ],
  )
})

test('bean-check reads texts of more lines than beancount allows in a string', (t) => {
  requireTool('bean-check')
  const lines = (n: number, lineBreak: string) =>
    Array.from({ length: n }, (_, i) => `line ${i}`).join(lineBreak)
  const beancount = written('beancount', [
    transaction({ description: lines(70, '\r\n'), payee: lines(64, '\n'), memo: lines(200, '\n') }),
  ])
  assertBeanCheckAccepts(t, beancount)
  // 64 lines are kept as they are; beyond, line breaks become spaces.
  assert.ok(beancount.includes(`"${lines(64, '\n')}"`))
  assert.ok(
    beancount.includes(`memo: "${lines(63, '\n')}\n${lines(200, ' ').split(' line 62 ')[1]}`),
  )
  assert.ok(beancount.includes(`line 62\r\nline 63 line 64 line 65`))
})

test('beancount metadata keys stay distinct when a suffixed key is spelled like another key', (t) => {
  requireTool('bean-check')
  const suffixed = `x_y-${shortHash('x.y').toLowerCase()}`
  const keys = { 'x.y': '1', x_y: '2', [suffixed]: '3' }
  assertBeanCheckAccepts(t, written('beancount', [transaction({ labels: keys, extensions: keys })]))
})

test('hledger reads an extension whose JSON holds commas whole, percent-encoded', (t) => {
  requireTool('hledger')
  const value = { list: [1, 'a,b', '100%'], n: null }
  const journal = tempFile(
    t,
    'export.journal',
    written('ledger', [transaction({ extensions: { 'a.b': value } })]),
  )
  const shown = hledgerOn(journal, ['tags', 'coffer-ext-a.b', '--values']).trim()
  assert.equal(decodeURIComponent(shown), canonicalJson(value))
})

test('memo text makes no hledger tags', (t) => {
  requireTool('hledger')
  const memo = 'key: value, other: v2\ndate:2024-02-30 see https://x.example/a:b :lead'
  const journal = tempFile(
    t,
    'export.journal',
    written('ledger', [transaction({ memo, labels: { category: 'food' } })]),
  )
  assert.deepEqual(hledgerOn(journal, ['tags']).trim().split('\n'), ['category', 'coffer-id'])
  assert.match(
    readFileSync(journal, 'utf8'),
    /; memo key : value, other : v2 date :2024-02-30 see https :\/\/x.example\/a :b :lead\n/,
  )
})

/** Rows of the large ledger; 100,000 as the issue asks (about 40 s here, most of it bean-check). */
const LARGE_ROWS = 100_000
const LARGE_UNIT_ROWS = 10_000

test(
  'at 100,000 transactions hledger still balances every account exactly and bean-check finds no error',
  {
    timeout: 600_000,
    // What this adds is the text at size, which the engine does not shape: the
    // tests above read both files with hledger and bean-check on both engines.
    // On PostgreSQL it cost a minute of CI and checked nothing more.
    skip: ENGINE === 'postgres' ? 'the exported text does not depend on the engine' : false,
  },
  async (t) => {
    requireTool('hledger')
    requireTool('bean-check')
    const app = await startTestApp(t)
    const accounts = [
      { id: 'csv:eth', org_id: 'csv:big', name: 'Wallet', currency: 'ETH', balance: '0' },
      { id: 'csv:usd', org_id: 'csv:big', name: 'Checking', currency: 'USD', balance: '0' },
      { id: 'csv:usdc2', org_id: 'csv:big', name: 'Stable 2', currency: 'USDC2', balance: '0' },
    ]
    const sums = new Map(accounts.map((a) => [a.id, new DecimalSum()]))
    const amountOf = (i: number) => {
      // 18 decimals on ETH, 2 on the others; both signs; deterministic.
      const n = BigInt(i) * 7919n
      const sign = i % 3 === 0 ? '-' : ''
      return i % 3 === 0 || i % 3 === 1
        ? `${sign}${n % 1000n}.${String((n * 104729n) % 10n ** 18n).padStart(18, '0')}`
        : `${sign}${n % 100000n}.${String(n % 100n).padStart(2, '0')}`
    }
    for (let start = 0; start < LARGE_ROWS; start += LARGE_UNIT_ROWS) {
      const transactions = []
      for (let i = start; i < Math.min(LARGE_ROWS, start + LARGE_UNIT_ROWS); i++) {
        const account = accounts[i % 3 === 2 ? 1 + (i % 2) : 0]!
        const amount = amountOf(i)
        sums.get(account.id)!.add(amount)
        const day = new Date(Date.UTC(2020, 0, 1) + (i % 1500) * 86_400_000)
        transactions.push({
          id: `csv:big-${i}`,
          account_id: account.id,
          amount,
          date: day.toISOString().slice(0, 10),
          description: i % 10 === 0 ? AWKWARD : `row ${i}`,
        })
      }
      await ingest(app, {
        source: 'csv',
        organizations: [{ id: 'csv:big', name: 'Big Bank' }],
        accounts,
        transactions,
      })
    }
    // Labels and extensions on one transaction in a hundred, through the ledger's own path.
    for (let start = 0; start < LARGE_ROWS; start += LARGE_UNIT_ROWS) {
      await app.ctx.ledger.mutate(async (uow) => {
        for (let i = start; i < start + LARGE_UNIT_ROWS; i += 100) {
          const before = (await findTransaction(uow.trx, `csv:big-${i}`))!
          const labeled = await writeLabelsInUnit(uow, before, {
            category: 'bulk',
            note: AWKWARD_LINE,
          })
          await writeExtensionsInUnit(uow, labeled, { note: AWKWARD, n: i })
        }
      })
    }

    const journal = join(app.dir, 'large.journal')
    const beanFile = join(app.dir, 'large.beancount')
    await download(app, 'ledger', journal)
    await download(app, 'beancount', beanFile)

    // Side by side: bean-check takes most of the time, hledger the rest.
    const [hledger, check] = await Promise.all([
      runTool('hledger', [
        '-f',
        journal,
        'balance',
        '--flat',
        '--empty',
        '--no-total',
        '-O',
        'csv',
      ]),
      runTool('bean-check', [beanFile]),
    ])
    assert.equal(hledger.status, 0, hledger.stderr)
    const balances = new Map(
      parse<{ account: string; balance: string }>(hledger.stdout, { columns: true }).map((r) => [
        r.account,
        r.balance,
      ]),
    )
    const names = ledgerAccountNames(accounts.map((a) => ({ ...a, org_name: 'Big Bank' })))
    for (const account of accounts) {
      const exact = formatScaled(sums.get(account.id)!.sum)
      const shown = balances.get(names.get(account.id)!) ?? ''
      const number = /^-?\d+(\.\d+)?/.exec(shown)?.[0] ?? 'missing'
      assert.equal(
        compareDecimal(number, exact),
        0,
        `${account.name}: hledger ${shown}, Coffer ${exact}`,
      )
    }
    assert.equal(
      check.status,
      0,
      `bean-check: ${check.stdout.slice(0, 2000)}${check.stderr.slice(0, 2000)}`,
    )
    assert.equal(check.stdout + check.stderr, '')
  },
)

/** A command's exit status and output, run without blocking the event loop. */
function runTool(
  command: string,
  args: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.once('error', reject)
    child.once('close', (status) => resolve({ status, stdout, stderr }))
  })
}

/** GET /api/v1/export streamed into a file (the app runs without a token). */
async function download(app: TestAppHandle, format: string, path: string): Promise<void> {
  const res = await fetch(`${app.url}/api/v1/export?format=${format}`, {
    headers: { connection: 'close' },
  })
  assert.equal(res.status, 200)
  await pipeline(Readable.fromWeb(res.body!), createWriteStream(path))
}

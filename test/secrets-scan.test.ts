// The full-scenario secrets scan (issue 17): `coffer serve` runs as users run it
// (a TOML file, debug logs, umask 022) with every source configured against a
// local fake, webhooks, API keys and dashboard tokens; the scenario goes through
// the doors (REST, SSE, MCP, `coffer sync`), makes every source fail once so that
// the error paths run, and then searches everything the service put out (every
// response body and header, every log line, every event, every webhook delivery,
// every file under data.dir but the secret store, every database row) for every
// secret it was given or issued, raw and URL-encoded, base64 (standard and
// URL-safe) and JSON-escaped. Nothing may be found. Data files must be 0600 in
// 0700 directories. Settings (CONTRACT 10, issue 14) do not exist yet, so no
// secret setting is part of the scenario.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import SqliteDatabase from '../src/db/sqlite-binding.js'
import pg from 'pg'
import { stringify } from 'smol-toml'
import { SECRETS_FILE_NAME } from '../src/secrets/store.js'
import { createSchema, dropSchema, dsnWithSchema, ENGINE, POSTGRES_DSN } from './helpers/app.js'
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, startFakeDrive } from './fakes/drive.js'
import { GENESIS_TIME, BLOCK_SECONDS, hashOf, startFakeExplorer } from './fakes/explorer.js'
import { startReceiver, waitUntil } from './fakes/receiver.js'
import { startFakeSimplefin } from './fakes/simplefin.js'
import { cofferArgs } from './helpers/program.js'

const DEADLINE_MS = 30_000

// ---------------------------------------------------------------------------
// The scanner: its own encodings (not src/config/redact.ts's), so that a gap in
// the redaction cannot hide itself.

type Form = 'raw' | 'url-encoded' | 'base64' | 'base64url' | 'json-escaped'

function formsOf(secret: string): Array<{ form: Form; text: string }> {
  const base64 = Buffer.from(secret, 'utf8').toString('base64')
  const all: Array<{ form: Form; text: string }> = [
    { form: 'raw', text: secret },
    { form: 'url-encoded', text: encodeURIComponent(secret) },
    { form: 'base64', text: base64 },
    { form: 'base64', text: base64.replace(/=+$/, '') },
    { form: 'base64url', text: Buffer.from(secret, 'utf8').toString('base64url') },
    { form: 'json-escaped', text: JSON.stringify(secret).slice(1, -1) },
  ]
  const seen = new Set<string>()
  return all.filter((f) => !seen.has(f.text) && seen.add(f.text))
}

interface Secret {
  label: string
  value: string
  /** Stored by design in the database (webhook signing secrets: the service must sign with them). */
  inDatabase?: boolean
}

/** Something the service put out, with the secrets it hands out by design (create answers). */
interface Output {
  where: string
  text: string
  issues?: readonly string[]
}

interface Finding {
  secret: string
  form: Form
  where: string
  context: string
}

function mask(text: string): string {
  return text.length <= 6 ? '***' : `${text.slice(0, 3)}***${text.slice(-2)}`
}

function scan(
  outputs: readonly Output[],
  secrets: readonly Secret[],
  skip: (secret: Secret, output: Output) => boolean = () => false,
): Finding[] {
  const findings: Finding[] = []
  for (const secret of secrets) {
    const forms = formsOf(secret.value)
    for (const output of outputs) {
      if (output.issues?.includes(secret.value) || skip(secret, output)) continue
      for (const { form, text } of forms) {
        const at = output.text.indexOf(text)
        if (at === -1) continue
        const around = output.text.slice(Math.max(0, at - 40), at + text.length + 40)
        findings.push({
          secret: `${secret.label} ${mask(secret.value)}`,
          form,
          where: output.where,
          context: around.split(text).join('«SECRET»'),
        })
      }
    }
  }
  return findings
}

test('the scanner finds a planted secret in each of its forms', () => {
  // Chosen so that every form differs (base64 with `+` and `/`, padding).
  const secret = { label: 'planted', value: 'pl+nted/Secret=Value"x??>>~!' }
  const forms = formsOf(secret.value).map((f) => f.form)
  for (const form of ['raw', 'url-encoded', 'base64', 'base64url', 'json-escaped'] as const) {
    assert.ok(forms.includes(form), form)
  }
  for (const { form, text } of formsOf(secret.value)) {
    const found = scan([{ where: 'plant', text: `before ${text} after` }], [secret])
    assert.ok(
      found.some((f) => f.form === form),
      `${form} not found`,
    )
  }
  assert.deepEqual(scan([{ where: 'clean', text: 'nothing [redacted] here' }], [secret]), [])
  // A create answer may show the secret it hands out, and only that one.
  const other = { label: 'other', value: 'another-secret-value-1234' }
  const issued = { where: 'create', text: `${secret.value} ${other.value}`, issues: [secret.value] }
  assert.deepEqual(
    scan([issued], [secret, other]).map((f) => f.secret),
    [`other ${mask(other.value)}`],
  )
})

// ---------------------------------------------------------------------------
// The program, spawned as users run it.

interface Served {
  url: string
  output(): string
  stop(): Promise<void>
}

/** The parent's environment without any SERVICE_* variable: the config file is the whole story. */
function childEnv(): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SERVICE_')) out[name] = value
  }
  return out
}

/** `coffer <args>` under umask 022 (a common default: files come out 0644 unless the service says otherwise). */
function launch(args: string[], cwd: string): ChildProcess {
  return spawn(
    '/bin/sh',
    ['-c', 'umask 022 && exec "$@"', 'sh', process.execPath, ...cofferArgs(args)],
    { cwd, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  )
}

function capture(child: ChildProcess): () => string {
  let all = ''
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (all += c))
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (all += c))
  return () => all
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode)
    child.on('close', (code) => resolve(code))
  })
}

async function serve(t: TestContext, configPath: string, cwd: string): Promise<Served> {
  const child = launch(['serve', '--config', configPath], cwd)
  const output = capture(child)
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  const url = await new Promise<string>((resolve, reject) => {
    const deadline = Date.now() + DEADLINE_MS
    const timer = setInterval(() => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output())
      if (match) {
        clearInterval(timer)
        resolve(match[1]!)
      } else if (child.exitCode !== null || Date.now() > deadline) {
        clearInterval(timer)
        reject(new Error(`coffer serve did not start:\n${output()}`))
      }
    }, 20)
  })
  return {
    url,
    output,
    async stop() {
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS)
      await exited(child)
      clearTimeout(timer)
    },
  }
}

async function runCommand(
  args: string[],
  cwd: string,
): Promise<{ code: number | null; output: string }> {
  const child = launch(args, cwd)
  const output = capture(child)
  const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS)
  const code = await exited(child)
  clearTimeout(timer)
  return { code, output: output() }
}

// ---------------------------------------------------------------------------
// Requests, every answer kept.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

interface Recorder {
  responses: Output[]
  request(
    method: string,
    path: string,
    status: number,
    options?: { body?: unknown; token?: string; issues?: (body: Json) => string[] },
  ): Promise<Json>
}

function recorder(base: () => string): Recorder {
  const responses: Output[] = []
  return {
    responses,
    async request(method, path, status, options = {}) {
      const headers: Record<string, string> = {}
      if (options.body !== undefined) headers['content-type'] = 'application/json'
      if (options.token) headers.authorization = `Bearer ${options.token}`
      const res = await fetch(base() + path, {
        method,
        headers,
        redirect: 'manual',
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      })
      const text = await res.text()
      const head = [...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')
      let body: Json = undefined
      if ((res.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text)
      responses.push({
        where: `${method} ${path} → ${res.status}`,
        text: `${head}\n\n${text}`,
        ...(options.issues && body !== undefined ? { issues: options.issues(body) } : {}),
      })
      assert.equal(res.status, status, `${method} ${path}: ${text}`)
      return body
    },
  }
}

/** Reads an SSE stream as raw text until stopped. */
function rawStream(url: string, token: string): { text: () => string; stop: () => void } {
  const controller = new AbortController()
  let text = ''
  void (async () => {
    try {
      const res = await fetch(`${url}/api/v1/events/stream`, {
        headers: { authorization: `Bearer ${token}` },
        signal: controller.signal,
      })
      text += [...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n') + '\n\n'
      const decoder = new TextDecoder()
      for await (const chunk of res.body!) text += decoder.decode(chunk as Uint8Array)
    } catch {
      // stopped
    }
  })()
  return { text: () => text, stop: () => controller.abort() }
}

/** An explorer in front of the fake that can fail the ways explorers do, echoing the key. */
async function echoingExplorer(
  t: TestContext,
  upstream: string,
  key: string,
): Promise<{ url: string; mode: 'pass' | 'notok' | 'http500' | 'http401' }> {
  const state = { url: '', mode: 'pass' as 'pass' | 'notok' | 'http500' | 'http401' }
  const server = createServer((req, res) => {
    void (async () => {
      const raw = req.url ?? ''
      // The key as sent, URL-encoded, base64 and JSON-escaped, then the whole request.
      const echo = [
        `key=${key}`,
        `enc=${encodeURIComponent(key)}`,
        `b64=${Buffer.from(key).toString('base64')}`,
        `json=${JSON.stringify(key)}`,
        `at ${raw}`,
      ].join(' ')
      if (state.mode === 'notok') {
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end(
          JSON.stringify({ status: '0', message: 'NOTOK', result: `Invalid API Key ${echo}` }),
        )
      }
      if (state.mode === 'http500') {
        res.writeHead(500, { 'content-type': 'text/plain' })
        return res.end(`internal error at ${echo}`)
      }
      if (state.mode === 'http401') {
        res.writeHead(401, { 'content-type': 'application/json' })
        return res.end(JSON.stringify({ status: '0', message: `unauthorized ${echo}` }))
      }
      const answer = await fetch(new URL(raw, upstream))
      res.writeHead(answer.status, { 'content-type': 'application/json' })
      res.end(await answer.text())
    })().catch(() => res.writeHead(502).end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/api`
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  return state
}

/** Every file under `dir`, with the directories met on the way. */
function walk(dir: string): { files: string[]; dirs: string[] } {
  const out = { files: [] as string[], dirs: [dir] }
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      const sub = walk(path)
      out.files.push(...sub.files)
      out.dirs.push(...sub.dirs)
    } else out.files.push(path)
  }
  return out
}

/** Every row of every table, as JSON text (the database's view of the ledger). */
async function databaseRows(dbPath: string, schema: string | null): Promise<Output[]> {
  const rows: Output[] = []
  if (schema) {
    const client = new pg.Client({ connectionString: POSTGRES_DSN! })
    await client.connect()
    try {
      const tables = await client.query<{ table_name: string }>(
        "select table_name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE'",
        [schema],
      )
      for (const { table_name: table } of tables.rows) {
        const res = await client.query<{ row: string }>(
          `select row_to_json(t)::text as row from ${schema}."${table}" t`,
        )
        for (const { row } of res.rows) rows.push({ where: `table ${table}`, text: row })
      }
    } finally {
      await client.end()
    }
    return rows
  }
  const db = new SqliteDatabase(dbPath, { readonly: true })
  try {
    const tables = db
      .prepare("select name from sqlite_master where type = 'table'")
      .all() as Array<{ name: string }>
    for (const { name } of tables) {
      for (const row of db.prepare(`select * from "${name}"`).all()) {
        rows.push({ where: `table ${name}`, text: JSON.stringify(row) })
      }
    }
  } finally {
    db.close()
  }
  return rows
}

// ---------------------------------------------------------------------------

test(`full scenario: no secret in any response, log line, event, delivery, data file or row (${ENGINE})`, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-secrets-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const schema = POSTGRES_DSN ? await createSchema() : null
  if (schema) t.after(() => dropSchema(schema))
  const dataDir = join(dir, 'data')
  // The default layout: the database file lives in data.dir.
  const dbPath = join(dataDir, 'coffer.db')

  // Distinct, recognisable secrets, with + / = so that the encoded forms differ.
  const DASHBOARD_TOKEN = 'dash-Config+Token/Secret=a1b2c3d4'
  const PASTED_TOKEN = 'dash-Pasted+Token/Secret=e5f6a7b8'
  const ETH_KEY = 'eth+Explorer/Key=Secret9c8d7e6f'
  const PG_PASSWORD = 'PgDsnPassw0rdSecret5e8d'
  const BAD_REFRESH = 'refresh-Pasted-Bad-Secret-0a9b8c'
  const PASTED_REFRESH = 'refresh-Pasted-Good-Secret-7d6e5f'
  const UNREACHABLE_PW = 'Unreach+able/DsnPw=Secret3c4d'
  const UNREACHABLE_PW_IN_URL = encodeURIComponent(UNREACHABLE_PW)

  const ADDRESS = `0x${'a1'.repeat(20)}`
  const ADDRESS_2 = `0x${'b2'.repeat(20)}`
  const nowSec = Math.floor(Date.now() / 1000)
  const recentBlock = Math.floor((nowSec - GENESIS_TIME) / BLOCK_SECONDS) - 100

  const explorer = await startFakeExplorer(t, { apiKey: ETH_KEY })
  explorer.transactions.push({
    hash: hashOf(1),
    block: recentBlock,
    from: `0x${'cc'.repeat(20)}`,
    to: ADDRESS,
    value: '1500000000000000000',
    gasUsed: '21000',
    gasPrice: '1000000000',
  })
  const front = await echoingExplorer(t, explorer.url, ETH_KEY)

  const simplefin = await startFakeSimplefin(t, 1)
  simplefin.accounts.push({
    id: 'acc-1',
    name: 'Bridge Checking',
    currency: 'USD',
    balance: '1200.00',
    org: { domain: 'bank.example', name: 'Bridge Bank' },
    transactions: [
      { id: 'tx-1', posted: nowSec - 2 * 86400, amount: '-12.50', description: 'Lunch' },
    ],
  })
  const SETUP_TOKEN = simplefin.setupToken()

  const drive = await startFakeDrive(t)
  drive.files.push({
    id: 'f1',
    name: 'drive.csv',
    parent: 'folder-x',
    content: 'Date,Description,Amount\n2024-01-05,Drive coffee,-4.00\n',
  })
  drive.refreshTokens.add(PASTED_REFRESH)

  const receiver = await startReceiver(t)
  const failing = await startReceiver(t, () => 500)

  const localFolder = join(dir, 'csv', 'Local')
  mkdirSync(localFolder, { recursive: true })
  writeFileSync(join(localFolder, 'a.csv'), 'Date,Amount,Description\n2024-01-01,1.00,local\n')

  let dsn: string | null = null
  if (schema) {
    const url = new URL(dsnWithSchema(schema))
    // Trust authentication ignores it; the service must still never show it.
    url.password = PG_PASSWORD
    dsn = url.toString()
  }

  const configFor = (format: 'text' | 'json', token: string | null) => ({
    server: { addr: '127.0.0.1:0' },
    database: schema
      ? { driver: 'postgres', dsn: dsn!, path: dbPath }
      : { driver: 'sqlite', path: dbPath },
    data: { dir: dataDir },
    ...(token ? { dashboard: { token } } : {}),
    // The scenario sends wrong credentials on purpose, more than the default 10 a minute.
    auth: { max_failures: 100_000 },
    log: { level: 'debug', format },
    sync: { interval: '0', lookback_days: 30 },
    webhooks: { max_attempts: 2, timeout: '2s' },
    aggregator: { access_url: simplefin.accessUrl, setup_token: SETUP_TOKEN },
    ethereum: { api_key: ETH_KEY, api_url: front.url, addresses: [ADDRESS], rate_limit: 1000 },
    csv: {
      drive_client_id: FAKE_CLIENT_ID,
      drive_client_secret: FAKE_CLIENT_SECRET,
      drive_auth_url: drive.authUrl,
      drive_token_url: drive.tokenUrl,
      drive_api_url: drive.apiUrl,
      folders: [
        { name: 'Local', account: 'Local', path: localFolder },
        { name: 'Drive', account: 'Drive', backend: 'drive', folder_id: 'folder-x' },
      ],
    },
  })
  const configPath = join(dir, 'coffer.toml')
  const logs: Array<{ where: string; text: string }> = []
  const issued: Secret[] = []
  let base = ''
  const http = recorder(() => base)
  const request: Recorder['request'] = (...args) => http.request(...args)

  // --- Phase 1: a fresh install, bootstrapped with a pasted token, then rotated.
  writeFileSync(configPath, stringify(configFor('text', null)))
  let server = await serve(t, configPath, dir)
  base = server.url
  await request('GET', '/api/v1/auth', 200)
  await request('GET', '/api/v1/security/api-keys', 503)
  await request('POST', '/api/v1/security/token', 201, {
    body: { token: PASTED_TOKEN },
    issues: () => [PASTED_TOKEN],
  })
  await request('GET', '/api/v1/security/api-keys', 200, { token: PASTED_TOKEN })
  const rotated = await request('POST', '/api/v1/security/token', 201, {
    body: {},
    token: PASTED_TOKEN,
    issues: (b) => [b.token],
  })
  const GENERATED_TOKEN = rotated.token as string
  await request('GET', '/api/v1/accounts', 401, { token: PASTED_TOKEN })
  await request('GET', '/api/v1/accounts', 200, { token: GENERATED_TOKEN })
  await server.stop()
  logs.push({ where: 'serve (phase 1)', text: server.output() })

  // --- Phase 2: the token moves into the configuration; the full scenario.
  writeFileSync(configPath, stringify(configFor('json', DASHBOARD_TOKEN)))
  server = await serve(t, configPath, dir)
  base = server.url
  const T = DASHBOARD_TOKEN
  const stream = rawStream(base, T)

  // Open routes and the configuration.
  for (const path of ['/healthz', '/readyz', '/api/v1/auth', '/api/v1/openapi.json']) {
    await request('GET', path, 200)
  }
  const config = await request('GET', '/api/v1/config', 200, { token: T })
  assert.equal(config.dashboard.token, '[redacted]')

  // Wrong tokens: the stored ones lost to the config token, a secret sent as a bearer.
  for (const wrong of [PASTED_TOKEN, GENERATED_TOKEN, ETH_KEY, FAKE_CLIENT_SECRET]) {
    await request('GET', '/api/v1/accounts', 401, { token: wrong })
    await request('POST', '/api/v1/sync', 401, { token: wrong })
  }
  await request('GET', '/api/v1/config', 401)
  // A pasted token while the config holds one: refused, and not repeated.
  await request('POST', '/api/v1/security/token', 409, { token: T, body: { token: PASTED_TOKEN } })

  // API keys: minted, used at each tier, revoked.
  const readKey = (
    await request('POST', '/api/v1/security/api-keys', 201, {
      token: T,
      body: { name: 'reader', scope: 'read' },
      issues: (b) => [b.key],
    })
  ).key as string
  const writeKey = (
    await request('POST', '/api/v1/security/api-keys', 201, {
      token: T,
      body: { name: 'writer', scope: 'read_write' },
      issues: (b) => [b.key],
    })
  ).key as string
  const gone = await request('POST', '/api/v1/security/api-keys', 201, {
    token: T,
    body: { name: 'revoked', scope: 'read' },
    issues: (b) => [b.key],
  })
  issued.push(
    { label: 'api key (read)', value: readKey },
    { label: 'api key (read_write)', value: writeKey },
    { label: 'api key (revoked)', value: gone.key },
  )
  await request('GET', '/api/v1/security/api-keys', 200, { token: T })
  await request('GET', '/api/v1/accounts', 200, { token: readKey })
  await request('POST', '/api/v1/sync', 403, { token: readKey })
  await request('GET', '/api/v1/webhooks', 403, { token: writeKey })
  await request('POST', '/api/v1/accounts', 201, {
    token: writeKey,
    body: { name: 'Cash', currency: 'USD', balance: '10.00' },
  })
  await request('DELETE', `/api/v1/security/api-keys/${gone.id}`, 204, { token: T })
  await request('GET', '/api/v1/accounts', 401, { token: gone.key })

  // Webhooks: one healthy receiver, one that answers 500; a rotation; test deliveries.
  const hook = await request('POST', '/api/v1/webhooks', 201, {
    token: T,
    body: { url: receiver.url, event_types: ['*'] },
    issues: (b) => [b.secret],
  })
  const broken = await request('POST', '/api/v1/webhooks', 201, {
    token: T,
    body: { url: failing.url, event_types: ['*'] },
    issues: (b) => [b.secret],
  })
  const rotatedHook = await request('POST', `/api/v1/webhooks/${hook.id}/rotate-secret`, 200, {
    token: T,
    issues: (b) => [b.secret],
  })
  issued.push(
    { label: 'webhook secret', value: hook.secret, inDatabase: true },
    { label: 'webhook secret (failing)', value: broken.secret, inDatabase: true },
    { label: 'webhook secret (rotated)', value: rotatedHook.secret, inDatabase: true },
  )
  await request('POST', `/api/v1/webhooks/${hook.id}/test`, 200, { token: T })
  await request('POST', `/api/v1/webhooks/${broken.id}/test`, 200, { token: T })
  await request('PUT', `/api/v1/webhooks/${broken.id}`, 200, {
    token: T,
    body: { event_types: ['sync.completed', 'transaction.created'] },
  })

  // Source credentials: an address added, a drive token pasted that the drive refuses.
  await request('PUT', '/api/v1/sources/ethereum/credential', 200, {
    token: T,
    body: { token: ADDRESS_2 },
  })
  await request('PUT', '/api/v1/sources/csv/credential', 200, {
    token: T,
    body: { token: BAD_REFRESH },
  })

  const syncAll = async (path = '/api/v1/sync'): Promise<Json> => {
    const { run_id: runId } = await request('POST', path, 202, { token: T })
    let run: Json = null
    await waitUntil(
      `sync run ${runId}`,
      async () => {
        const history = await request('GET', '/api/v1/sync/history?limit=50', 200, { token: T })
        run = history.runs.find((r: Json) => r.id === runId)
        return run !== undefined && run.status !== 'running'
      },
      DEADLINE_MS,
    )
    return run
  }

  // Sync 1: every source fails, each echoing its secret where it can.
  front.mode = 'notok'
  simplefin.failWith = 500
  const first = await syncAll()
  assert.notEqual(first.status, 'success', JSON.stringify(first))
  // The explorer's echo reached the service and was masked there.
  assert.match(first.error, /explorer said: Invalid API Key key=\[redacted\] enc=\[redacted\]/)
  // Sync 2: other failures (HTTP 500 and 401 from the explorer, the bridge refusing).
  front.mode = 'http500'
  simplefin.failWith = null
  simplefin.refuse = true
  await syncAll()
  front.mode = 'http401'
  await syncAll('/api/v1/sources/ethereum/sync')

  // The drive through the browser flow; then a pasted refresh token that works.
  const start = await request('GET', '/api/v1/sources/csv/oauth/start', 200, { token: T })
  const approve = await fetch(start.url, { redirect: 'manual' })
  assert.equal(approve.status, 302)
  const callback = new URL(approve.headers.get('location')!)
  await request('GET', `${callback.pathname}${callback.search}`, 302)
  // The state is single use: a replay fails, and says so without the code.
  await request('GET', `${callback.pathname}${callback.search}`, 302)

  // Sync 3: everything answers; the bridge reports an error that repeats its access URL.
  front.mode = 'pass'
  simplefin.refuse = false
  simplefin.errors = [`Connection trouble at ${simplefin.accessUrl}`]
  const third = await syncAll()
  assert.ok(third.counts.ethereum?.inserted >= 1, JSON.stringify(third))
  assert.ok(third.counts.aggregator?.inserted >= 1, JSON.stringify(third))
  assert.ok(third.counts.csv?.inserted >= 1, JSON.stringify(third))
  assert.ok(
    third.warnings.some((w: string) =>
      w.includes('bridge error: Connection trouble at [redacted]'),
    ),
    JSON.stringify(third.warnings),
  )
  simplefin.errors = []

  // The pasted drive token, an access token revoked under it (refresh on 401).
  await request('PUT', '/api/v1/sources/csv/credential', 200, {
    token: T,
    body: { token: PASTED_REFRESH },
  })
  drive.revokeAccessTokens()
  await syncAll('/api/v1/sources/csv/sync')

  // The aggregator credential routes: a used setup token, garbage, an access URL.
  await request('PUT', '/api/v1/sources/aggregator/credential', 400, {
    token: T,
    body: { token: SETUP_TOKEN },
  })
  await request('PUT', '/api/v1/aggregator/credential', 400, {
    token: T,
    body: { token: `not-a-token-${ETH_KEY}` },
  })
  await request('PUT', '/api/v1/aggregator/credential', 200, {
    token: T,
    body: { token: simplefin.accessUrl },
  })

  // `coffer sync` beside the server (its summary and its log).
  const cli = await runCommand(['sync', '--config', configPath], dir)
  logs.push({ where: 'coffer sync', text: cli.output })
  assert.ok(cli.code !== null, cli.output)

  // A database that cannot be reached, its DSN carrying a password (written
  // percent-encoded, as a URL must): the error the program prints.
  const unreachableConfig = join(dir, 'unreachable.toml')
  writeFileSync(
    unreachableConfig,
    stringify({
      database: {
        driver: 'postgres',
        dsn: `postgres://root:${UNREACHABLE_PW_IN_URL}@127.0.0.1:1/x`,
      },
      data: { dir: join(dir, 'unreachable-data') },
      log: { level: 'debug', format: 'json' },
    }),
  )
  const migrate = await runCommand(['migrate', '--config', unreachableConfig], dir)
  logs.push({ where: 'coffer migrate (unreachable database)', text: migrate.output })
  assert.notEqual(migrate.code, 0, migrate.output)
  assert.match(migrate.output, /ECONNREFUSED|connect/i)

  // A configuration file broken on the line that holds a secret: the parser's
  // error must point at the place, not quote the line.
  const brokenConfig = join(dir, 'broken.toml')
  writeFileSync(brokenConfig, `[dashboard]\ntoken = "${DASHBOARD_TOKEN}\n[ethereum]\napi_key = 1\n`)
  const brokenRun = await runCommand(['migrate', '--config', brokenConfig], dir)
  logs.push({ where: 'coffer migrate (broken config)', text: brokenRun.output })
  assert.notEqual(brokenRun.code, 0, brokenRun.output)
  assert.match(brokenRun.output, /broken\.toml/)

  // Every read route a user looks at.
  const reads = [
    '/api/v1/sources',
    '/api/v1/sync',
    '/api/v1/sync/history?limit=1000',
    '/api/v1/accounts',
    '/api/v1/organizations',
    '/api/v1/transactions?limit=1000',
    '/api/v1/labels',
    '/api/v1/extensions',
    '/api/v1/webhooks',
    `/api/v1/webhooks/${hook.id}`,
    `/api/v1/webhooks/${broken.id}`,
    '/api/v1/security/api-keys',
    '/api/v1/config',
  ]
  for (const path of reads) await request('GET', path, 200, { token: T })
  const transactions = (await request('GET', '/api/v1/transactions?limit=5', 200, { token: T }))
    .transactions as Json[]
  for (const tx of transactions) {
    const id = encodeURIComponent(tx.id as string)
    await request('GET', `/api/v1/transactions/${id}/history`, 200, { token: T })
    await request('GET', `/api/v1/transactions/${id}/provenance`, 200, { token: T })
  }
  await request('GET', '/api/v1/transactions/search?q=lunch', 200, { token: T })

  // MCP over HTTP: every raw answer kept.
  const mcpAnswers: Output[] = []
  const client = new Client({ name: 'secrets-scan', version: '1' })
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', base), {
    requestInit: { headers: { authorization: `Bearer ${T}` } },
    fetch: async (input, init) => {
      const res = await fetch(input, init)
      const where = `MCP ${init?.method ?? 'GET'} → ${res.status}`
      const head = [...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')
      const entry: Output = { where, text: head }
      mcpAnswers.push(entry)
      void res
        .clone()
        .text()
        .then(
          (text) => (entry.text += `\n\n${text}`),
          () => undefined,
        )
      return res
    },
  })
  await client.connect(transport)
  await client.listTools()
  const tools: Array<[string, Record<string, unknown>]> = [
    ['list_sources', {}],
    ['list_webhooks', {}],
    ['list_api_keys', {}],
    ['list_events', { limit: 1000 }],
    ['list_transactions', { limit: 10 }],
    ['test_webhook', { id: hook.id }],
    ['get_account', { id: 'no-such-account' }],
  ]
  for (const [name, args] of tools) await client.callTool({ name, arguments: args })
  const mcpKey = await client.callTool({
    name: 'create_api_key',
    arguments: { name: 'mcp', scope: 'read' },
  })
  const mcpKeyValue = JSON.parse((mcpKey.content as Array<{ text: string }>)[0]!.text).key as string
  issued.push({ label: 'api key (MCP)', value: mcpKeyValue })
  await client.close()
  for (const answer of mcpAnswers) {
    if (answer.text.includes(mcpKeyValue)) answer.issues = [mcpKeyValue]
  }
  // /mcp with a wrong token.
  const refusedMcp = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ETH_KEY}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
  mcpAnswers.push({
    where: `MCP with a wrong token → ${refusedMcp.status}`,
    text: await refusedMcp.text(),
  })
  assert.equal(refusedMcp.status, 401)

  // Webhook deliveries: the healthy receiver gets the sync's events; the failing one retries.
  await receiver.waitFor('event deliveries', (d) =>
    d.some((x) => x.event?.type === 'sync.completed'),
  )
  await failing.waitFor('retried deliveries', (d) => d.length >= 2)

  // Events, every page; metrics last (they count everything above).
  const events: Output[] = []
  for (let after = 0; ;) {
    const page = await request('GET', `/api/v1/events?after=${after}&limit=1000`, 200, { token: T })
    for (const event of page.events as Json[]) {
      events.push({ where: `event ${event.sequence} ${event.type}`, text: JSON.stringify(event) })
    }
    if (page.events.length === 0) break
    after = page.next
  }
  await request('GET', `/api/v1/events/${events.length}`, 200, { token: T })
  await request('GET', '/metrics', 200)
  await new Promise((resolve) => setTimeout(resolve, 300))
  // The data files while the server runs (SQLite's -wal and -shm exist only now).
  const running = existsSync(dataDir) ? walk(dataDir) : { files: [], dirs: [] }
  const runningFiles = running.files.map((path) => ({
    path,
    mode: statSync(path).mode & 0o777,
    text: readFileSync(path, 'latin1'),
  }))
  stream.stop()
  await server.stop()
  logs.push({ where: 'serve (phase 2)', text: server.output() })

  // --- Collect.
  const logLines: Output[] = logs.flatMap(({ where, text }) =>
    text
      .split('\n')
      .filter(Boolean)
      .map((line, i) => ({ where: `${where} line ${i + 1}`, text: line })),
  )
  const deliveries: Output[] = [...receiver.deliveries, ...failing.deliveries].map((d, i) => ({
    where: `delivery ${i + 1}`,
    text: `${JSON.stringify(d.headers)}\n\n${d.body}`,
  }))
  const responses: Output[] = [
    ...http.responses,
    ...mcpAnswers,
    { where: 'SSE stream', text: stream.text() },
  ]
  // The secret store is the one place secrets are kept (a 0600 file on SQLite, a
  // table on PostgreSQL): left out. The database keeps webhook signing secrets in
  // plain text by design (the service signs with them, SPEC 2.8 / docs/security.md);
  // only those are allowed in the database file and its rows.
  const tree = existsSync(dataDir) ? walk(dataDir) : { files: [], dirs: [] }
  const files: Output[] = [
    ...runningFiles.map((f) => ({ path: f.path, when: 'while serving', text: f.text })),
    ...tree.files.map((path) => ({ path, when: 'after stop', text: readFileSync(path, 'latin1') })),
  ]
    .filter((f) => !f.path.endsWith(`/${SECRETS_FILE_NAME}`))
    .map((f) => ({ where: `file ${f.path.slice(dir.length + 1)} (${f.when})`, text: f.text }))
  const rows = (await databaseRows(dbPath, schema)).filter((r) => r.where !== 'table secrets')
  const inDatabase = (secret: Secret, output: Output) =>
    secret.inDatabase === true &&
    (output.where.startsWith('table ') || output.where.startsWith('file data/coffer.db'))

  const secrets: Secret[] = [
    { label: 'dashboard.token', value: DASHBOARD_TOKEN },
    { label: 'pasted dashboard token', value: PASTED_TOKEN },
    { label: 'generated dashboard token', value: GENERATED_TOKEN },
    { label: 'ethereum.api_key', value: ETH_KEY },
    { label: 'csv.drive_client_secret', value: FAKE_CLIENT_SECRET },
    { label: 'pasted drive refresh token (refused)', value: BAD_REFRESH },
    { label: 'pasted drive refresh token', value: PASTED_REFRESH },
    ...drive.issued.map((value) => ({ label: `drive-issued ${value.split('-')[0]}`, value })),
    ...simplefin.secrets().map((value) => ({ label: 'SimpleFIN credential', value })),
    ...(schema ? [{ label: 'database.dsn password', value: PG_PASSWORD }] : []),
    { label: 'unreachable database.dsn password', value: UNREACHABLE_PW },
    ...issued,
  ]
  assert.ok(
    drive.issued.some((s) => s.startsWith('refresh-')),
    'the OAuth flow ran',
  )
  assert.ok(simplefin.claims.length >= 1, 'the setup token was claimed')

  // The material is real: a redacted config, a log with the listening line, events, deliveries.
  assert.ok(responses.some((r) => r.text.includes('[redacted]')))
  assert.ok(logLines.some((l) => l.text.includes('listening on')))
  assert.ok(events.length > 10, `${events.length} events`)
  assert.ok(deliveries.length > 3, `${deliveries.length} deliveries`)
  if (ENGINE === 'sqlite') {
    assert.ok(files.some((f) => f.where.startsWith('file data/coffer.db (after stop)')))
    assert.ok(files.some((f) => f.where.startsWith('file data/coffer.db-wal (while serving)')))
  }

  const outputs = [...responses, ...logLines, ...events, ...deliveries, ...files, ...rows]
  const findings = scan(outputs, secrets, inDatabase)
  console.log(
    `secrets scan: ${findings.length} found in ${responses.length} responses, ${logLines.length} log lines, ` +
      `${events.length} events, ${deliveries.length} deliveries, ${files.length} files, ` +
      `${rows.length} database rows (${ENGINE}; ${secrets.length} secrets, 5 forms each)`,
  )
  for (const f of findings) {
    console.log(`  ${f.secret} [${f.form}] in ${f.where}: ${f.context}`)
  }
  assert.equal(findings.length, 0, `${findings.length} secret(s) found`)

  // --- Modes: the data directory and everything in it are the owner's alone.
  for (const path of tree.dirs) {
    assert.equal((statSync(path).mode & 0o777).toString(8), '700', `${path} is not 0700`)
  }
  for (const path of tree.files) {
    assert.equal((statSync(path).mode & 0o777).toString(8), '600', `${path} is not 0600`)
  }
  for (const { path, mode } of runningFiles) {
    assert.equal(mode.toString(8), '600', `${path} was not 0600 while serving`)
  }
  if (ENGINE === 'sqlite') {
    assert.ok(
      tree.files.some((p) => p.endsWith(`/${SECRETS_FILE_NAME}`)),
      'the secret store file',
    )
  }
})

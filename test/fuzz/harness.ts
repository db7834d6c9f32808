// The fuzz pass's harness (issue 17): a service with real data in it, the pools
// of live ids the generated requests draw from, a fingerprint of everything a
// request could change (read straight from the database), a raw HTTP sender that
// times each request, and the per-answer checks: no 5xx, every 4xx a problem+json,
// no request over 5 s, nothing changed by a refused request.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { Agent, request as httpRequest } from 'node:http'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { sql } from 'kysely'
import { startReceiver, type Receiver } from '../fakes/receiver.js'
import { ENGINE, startTestApp, type TestAppHandle } from '../helpers/app.js'
import { expectStatus } from '../helpers/http.js'
import type { AuthKind, IdKind, IdRef } from './generate.js'

export const TOKEN = 'fuzz-dashboard-token-0123456789abcdef'
/** A request slower than this fails the pass. */
export const MAX_MS = 5_000

/**
 * The seed (COFFER_FUZZ_SEED, default 17) and the number of requests of a door:
 * COFFER_FUZZ_REQUESTS for HTTP; for MCP, COFFER_FUZZ_MCP_REQUESTS, else two
 * fifths of COFFER_FUZZ_REQUESTS when that is set, else the default.
 */
export function fuzzSettings(
  door: 'http' | 'mcp',
  defaultRequests: number,
): { seed: number; requests: number } {
  const env = process.env
  const seed = Number(env.COFFER_FUZZ_SEED ?? '17')
  const requests =
    door === 'http'
      ? Number(env.COFFER_FUZZ_REQUESTS ?? defaultRequests)
      : env.COFFER_FUZZ_MCP_REQUESTS
        ? Number(env.COFFER_FUZZ_MCP_REQUESTS)
        : env.COFFER_FUZZ_REQUESTS
          ? Math.round((Number(env.COFFER_FUZZ_REQUESTS) * 2) / 5)
          : defaultRequests
  assert.ok(Number.isSafeInteger(seed), 'COFFER_FUZZ_SEED must be an integer')
  assert.ok(Number.isSafeInteger(requests) && requests > 0, 'the request count must be > 0')
  return { seed, requests }
}

export interface FuzzApp {
  app: TestAppHandle
  receiver: Receiver
  keys: Record<'read' | 'read_write', string>
  pools: Pools
}

/** Live ids by kind; `resolve` picks one for an IdRef (or a stand-in when there is none). */
export class Pools {
  private readonly ids = new Map<IdKind, string[]>()

  constructor(private readonly fixed: Partial<Record<IdKind, string[]>>) {}

  set(kind: IdKind, values: string[]): void {
    this.ids.set(kind, values)
  }

  resolve = (ref: IdRef): string => {
    const values = this.fixed[ref.kind] ?? this.ids.get(ref.kind) ?? []
    return values.length === 0 ? `no-${ref.kind}` : values[ref.index % values.length]!
  }
}

/**
 * Starts the service with a dashboard token, every outbound endpoint (explorer,
 * aggregator bridge, drive) pointed at a local receiver so that no run or
 * credential reaches the network, and webhook requests bounded to 2 s.
 */
export async function startFuzzApp(t: TestContext): Promise<FuzzApp> {
  const receiver = await startReceiver(t)
  const local = receiver.url.replace(/\/hook$/, '')
  const app = await startTestApp(t, {
    env: {
      SERVICE_DASHBOARD_TOKEN: TOKEN,
      SERVICE_WEBHOOKS_TIMEOUT: '2s',
      SERVICE_WEBHOOKS_MAX_ATTEMPTS: '1',
      SERVICE_ETHEREUM_API_URL: `${local}/explorer`,
      SERVICE_CSV_DRIVE_API_URL: `${local}/drive`,
      SERVICE_CSV_DRIVE_AUTH_URL: `${local}/auth`,
      SERVICE_CSV_DRIVE_TOKEN_URL: `${local}/token`,
      SERVICE_LOG_LEVEL: 'error',
    },
    // A restart the fuzz asks for is accepted and not done (an in-process app has
    // no `coffer serve` around it; test/restart.test.ts restarts a real one).
    onRestart: () => {},
  })
  const pools = new Pools({
    sourceType: ['csv', 'ethereum', 'aggregator'],
    credential: ['0x' + 'ab'.repeat(20), 'drive', 'no-such-credential'],
    receiverUrl: [receiver.url, `${receiver.url}?fuzz=1`, `${local}/other`],
  })
  const keys = await seedLedger(app, receiver)
  await refreshPools(app, pools)
  return { app, receiver, keys, pools }
}

const admin = { token: TOKEN }

/** Real data through the API: accounts, transactions, labels, extensions, a rule, a webhook, keys. */
async function seedLedger(
  app: TestAppHandle,
  receiver: Receiver,
): Promise<Record<'read' | 'read_write', string>> {
  const accounts: string[] = []
  for (const [name, currency] of [
    ['Checking', 'USD'],
    ['Savings', 'EUR'],
    ['Wallet', 'BTC'],
  ] as const) {
    const a = await expectStatus(
      app,
      'POST',
      '/api/v1/accounts',
      201,
      { name, currency, balance: '100.00' },
      admin,
    )
    accounts.push(a.id)
  }
  const payees = ['Cafe', 'Rent', 'Grocer', 'Airline', 'Bookshop', 'Cinema']
  const transactions: string[] = []
  for (let i = 0; i < 12; i++) {
    const tx = await expectStatus(
      app,
      'POST',
      '/api/v1/transactions',
      201,
      {
        account_id: accounts[i % accounts.length],
        amount: i % 3 === 0 ? `${i}.25` : `-${i}.50`,
        date: `2024-0${(i % 9) + 1}-1${i % 10}`,
        payee: payees[i % payees.length],
        description: `seed ${i}`,
      },
      admin,
    )
    transactions.push(tx.id)
  }
  for (const [i, id] of transactions.slice(0, 6).entries()) {
    await expectStatus(
      app,
      'PUT',
      `/api/v1/transactions/${id}/labels`,
      200,
      { labels: { category: ['food', 'home', 'travel'][i % 3]!, fuzz: 'seed' } },
      admin,
    )
    await expectStatus(
      app,
      'PUT',
      `/api/v1/transactions/${id}/extensions`,
      200,
      { extensions: { 'fuzz.note': { n: i, tags: ['a', 'b'] }, 'app.flag': i % 2 === 0 } },
      admin,
    )
  }
  await expectStatus(
    app,
    'POST',
    `/api/v1/transactions/${transactions[1]}/relationships`,
    201,
    { kind: 'refund', target: transactions[0] },
    admin,
  )
  await expectStatus(
    app,
    'POST',
    '/api/v1/rules',
    201,
    { name: 'Cafe is food', query: 'payee:cafe', labels: { category: 'food' } },
    admin,
  )
  await expectStatus(
    app,
    'POST',
    '/api/v1/webhooks',
    201,
    { url: receiver.url, event_types: ['*'] },
    admin,
  )
  const read = await expectStatus(
    app,
    'POST',
    '/api/v1/security/api-keys',
    201,
    { name: 'fuzz read', scope: 'read' },
    admin,
  )
  const readWrite = await expectStatus(
    app,
    'POST',
    '/api/v1/security/api-keys',
    201,
    { name: 'fuzz read_write', scope: 'read_write' },
    admin,
  )
  return { read: read.key, read_write: readWrite.key }
}

/** Reads the ids that exist now into the pools. */
export async function refreshPools(app: TestAppHandle, pools: Pools): Promise<void> {
  const db = app.ctx.db.kysely
  const column = async (query: ReturnType<typeof sql<{ v: unknown }>>): Promise<string[]> =>
    (await query.execute(db)).rows.map((r) => String(r.v))
  // In creation order (the log's), so that an index names the same row on every run.
  const created = (table: string, type: string) =>
    column(sql`select t.id as v from ${sql.table(table)} t
      join events e on e.entity_id = t.id and e.type = ${type}
      order by e.sequence limit 64`)
  pools.set('account', await created('accounts', 'account.created'))
  pools.set('org', await column(sql`select id as v from organizations order by id`))
  pools.set('transaction', await created('transactions', 'transaction.created'))
  pools.set('rule', await created('rules', 'rule.created'))
  // Management rows emit no events: creation time, then id.
  pools.set('webhook', await column(sql`select id as v from webhooks order by created_at, id`))
  pools.set('apiKey', await column(sql`select id as v from api_keys order by created_at, id`))
  pools.set(
    'labelKey',
    await column(sql`select distinct key as v from transaction_labels order by key`),
  )
  pools.set(
    'sequence',
    await column(sql`select sequence as v from events order by sequence desc limit 32`),
  )
}

/** The token a request of this kind carries. */
export function bearer(kind: AuthKind, keys: FuzzApp['keys']): string | null {
  switch (kind) {
    case 'admin':
      return `Bearer ${TOKEN}`
    case 'none':
      return null
    case 'wrong':
      return 'Bearer coffer_ak_not-a-real-key-0123456789'
    case 'malformed':
      return `Bearer ${TOKEN} extra`
    case 'read':
    case 'read_write':
      return `Bearer ${keys[kind]}`
  }
}

// ---------------------------------------------------------------------------
// What a request could change

export type Fingerprint = Record<string, string> & { head: string }

/**
 * Everything a request could change, read from the database: the event log head,
 * row counts of every ledger table, the newest edit times, and the management
 * rows that emit no events (webhooks, API keys, the stored token, secrets).
 * Columns that background work writes (webhook delivery health, key use times,
 * the webhook cursor) are left out.
 */
export async function fingerprint(app: TestAppHandle): Promise<Fingerprint> {
  const db = app.ctx.db.kysely
  const { rows } = await sql<Record<string, unknown>>`select
    (select coalesce(max(sequence), 0) from events) as head,
    (select count(*) from events) as events,
    (select count(*) from organizations) as organizations,
    (select count(*) from accounts) as accounts,
    (select max(updated_at) from accounts) as accounts_edited,
    (select count(*) from transactions) as transactions,
    (select max(updated_at) from transactions) as transactions_edited,
    (select count(*) from transaction_labels) as labels,
    (select count(*) from transaction_extensions) as extensions,
    (select count(*) from relationships) as relationships,
    (select count(*) from transaction_versions) as versions,
    (select count(*) from rules) as rules,
    (select max(updated_at) from rules) as rules_edited,
    (select count(*) from sync_runs) as sync_runs,
    (select count(*) from stored_tokens) as stored_tokens`.execute(db)
  const out: Fingerprint = { head: '' }
  for (const [key, value] of Object.entries(rows[0]!)) out[key] = String(value)
  const joined = async (query: ReturnType<typeof sql<{ v: unknown }>>) =>
    (await query.execute(db)).rows.map((r) => String(r.v)).join('\n')
  out.webhooks = await joined(
    sql`select id || ' ' || url || ' ' || event_types || ' ' || enabled || ' ' || secret as v
        from webhooks order by id`,
  )
  out.api_keys = await joined(
    sql`select id || ' ' || name || ' ' || scope || ' ' || key_hash as v from api_keys order by id`,
  )
  out.secrets = await joined(sql`select name || ' ' || value as v from secrets order by name`)
  const file = join(app.dir, 'data', 'secrets.json')
  out.secrets_file = existsSync(file) ? readFileSync(file, 'utf8') : ''
  return out
}

/** The keys whose values differ, with both values (shortened). */
export function differences(before: Fingerprint, after: Fingerprint): string[] {
  const out: string[] = []
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (before[key] !== after[key]) {
      out.push(`${key}: ${short(before[key] ?? '')} → ${short(after[key] ?? '')}`)
    }
  }
  return out
}

function short(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text
}

/** The events after `head`, as `type entity_id` (to say what a refused request wrote). */
export async function eventsSince(app: TestAppHandle, head: string): Promise<string> {
  const { rows } = await sql<{ v: unknown }>`select type || ' ' || entity_id as v from events
    where sequence > ${Number(head)} order by sequence`.execute(app.ctx.db.kysely)
  return rows.map((r) => String(r.v)).join(', ')
}

/**
 * After one request: reads the fingerprint again and, when the request was
 * refused, reports anything it changed. Answers the fingerprint to compare the
 * next request against.
 */
export async function checkRefusedChangedNothing(
  app: TestAppHandle,
  tally: Tally,
  step: { index: number; refused: boolean; request: string; answer: RawResponse },
  before: Fingerprint,
): Promise<Fingerprint> {
  const after = await fingerprint(app)
  if (!step.refused) return after
  const changed = differences(before, after)
  if (changed.length > 0) {
    const events = after.head !== before.head ? await eventsSince(app, before.head) : ''
    tally.find({
      index: step.index,
      what: `refused ${tally.door === 'mcp' ? 'call' : 'request'} changed the ledger: ${changed.join('; ')}${events ? ` (events: ${events})` : ''}`,
      request: step.request,
      answer: describeAnswer(step.answer),
    })
  }
  return after
}

/** Waits until no sync run is marked running (a 202 trigger finishes in the background). */
export async function syncSettled(app: TestAppHandle): Promise<void> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const { rows } = await sql<{
      n: unknown
    }>`select count(*) as n from sync_runs where status = 'running'`.execute(app.ctx.db.kysely)
    if (Number(rows[0]!.n) === 0) return
    if (Date.now() > deadline) throw new Error('a sync run did not finish within 10 s')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

// ---------------------------------------------------------------------------
// Sending

export interface RawResponse {
  status: number
  contentType: string
  body: Buffer
  ms: number
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 })

/** One request exactly as given (method, path, headers, body bytes), timed. */
export function send(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer | null,
): Promise<RawResponse> {
  const url = new URL(baseUrl)
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: body ? { ...headers, 'content-length': String(body.length) } : headers,
        agent,
        timeout: 15_000,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks),
            ms: performance.now() - started,
          }),
        )
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')))
    req.on('error', reject)
    req.end(body ?? undefined)
  })
}

// ---------------------------------------------------------------------------
// Checks and figures

export interface Finding {
  index: number
  what: string
  request: string
  answer: string
}

export class Tally {
  sent = 0
  byClass: Record<string, number> = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, error: 0 }
  slowest = { ms: 0, request: '' }
  readonly findings: Finding[] = []
  readonly byStrategy = new Map<string, number>()

  constructor(
    readonly door: 'http' | 'mcp',
    readonly seed: number,
  ) {}

  count(status: number | null, ms: number, request: string, strategy: string): void {
    this.sent++
    this.byStrategy.set(strategy, (this.byStrategy.get(strategy) ?? 0) + 1)
    const cls = status === null ? 'error' : `${Math.floor(status / 100)}xx`
    this.byClass[cls] = (this.byClass[cls] ?? 0) + 1
    if (ms > this.slowest.ms) this.slowest = { ms, request }
  }

  find(finding: Finding): void {
    this.findings.push(finding)
  }

  summary(extra = ''): string {
    const c = this.byClass
    return (
      `fuzz ${this.door}: ${this.sent} requests, ${c['5xx']} 5xx, 2xx ${c['2xx']}, ` +
      `4xx ${c['4xx']}${c.error ? `, connection errors ${c.error}` : ''}${extra}, ` +
      `slowest ${Math.round(this.slowest.ms)} ms (seed ${this.seed}, ${ENGINE})`
    )
  }

  /** Fails with every finding (the first 30), each with its request and answer. */
  assertClean(): void {
    if (this.findings.length === 0) return
    const lines = this.findings
      .slice(0, 30)
      .map((f) => `#${f.index} ${f.what}\n    request: ${f.request}\n    answer:  ${f.answer}`)
    assert.fail(
      `${this.findings.length} fuzz findings (seed ${this.seed}, ${ENGINE}; rerun with ` +
        `COFFER_FUZZ_SEED=${this.seed}):\n${lines.join('\n')}`,
    )
  }
}

/** Problems with one answer: 5xx, a 4xx that is not problem+json, too slow. */
export function answerProblems(res: RawResponse, method: string): string[] {
  const out: string[] = []
  if (res.status >= 500) out.push(`${res.status} answer`)
  if (res.ms > MAX_MS) out.push(`took ${Math.round(res.ms)} ms`)
  if (res.status >= 400 && res.status < 500 && method !== 'HEAD') {
    const problem = problemOf(res)
    if (typeof problem === 'string') out.push(problem)
  }
  return out
}

/** The problem body of a 4xx, or what is wrong with it. */
export function problemOf(
  res: RawResponse,
): { type: string; title: string; status: number; detail: string } | string {
  if (!/^application\/problem\+json/.test(res.contentType)) {
    return `4xx with content-type "${res.contentType}"`
  }
  let body: unknown
  try {
    body = JSON.parse(res.body.toString('utf8'))
  } catch {
    return '4xx problem+json body is not JSON'
  }
  const p = body as Record<string, unknown>
  if (
    typeof p.type !== 'string' ||
    typeof p.title !== 'string' ||
    p.status !== res.status ||
    typeof p.detail !== 'string'
  ) {
    return `4xx problem lacks type/title/status/detail: ${short(JSON.stringify(body))}`
  }
  return p as { type: string; title: string; status: number; detail: string }
}

/** A short, printable form of an answer. */
export function describeAnswer(res: RawResponse): string {
  const text = res.body.toString('utf8')
  return `${res.status} ${res.contentType} ${short(text)}`
}

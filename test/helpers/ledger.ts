// Shared steps of the ledger integration tests: a clock the test moves, HTTP
// shortcuts (over helpers/http.ts), the internal ingest path the sync engine
// uses (for synced rows), and readers of the event log and history.
import assert from 'node:assert/strict'
import type { TestContext } from 'node:test'
import { ingestBatchInUnit, type IngestBatch, type IngestCounts } from '../../src/ledger/ingest.js'
import type { Clock } from '../../src/clock.js'
import type { TransactionJson } from '../../src/ledger/json.js'
import { startTestApp, type TestAppHandle } from './app.js'
import { expectStatus } from './http.js'

/** A manual transaction's JSON (SPEC 2.2): no text, no metadata, but `fields`. */
export function manualTransactionJson(
  fields: Pick<TransactionJson, 'id' | 'account_id' | 'amount' | 'date'> & Partial<TransactionJson>,
): TransactionJson {
  return {
    description: null,
    payee: null,
    memo: null,
    pending: false,
    source: 'manual',
    labels: {},
    extensions: {},
    synced_at: null,
    ...fields,
  }
}

/** The fixed instant most tests run at. */
export const T0 = '2024-05-01T12:00:00Z'

/** A fixed clock that a test may move forward, so versions get distinct times. */
export class StepClock implements Clock {
  private current: number

  constructor(start: string = T0) {
    this.current = Date.parse(start)
  }

  now(): Date {
    return new Date(this.current)
  }

  /** Moves the clock forward and returns the new time as the API prints it. */
  advance(seconds: number): string {
    this.current += seconds * 1000
    return this.iso()
  }

  iso(): string {
    return new Date(this.current).toISOString().slice(0, 19) + 'Z'
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function createAccount(app: TestAppHandle, body: object): Promise<any> {
  return expectStatus(app, 'POST', '/api/v1/accounts', 201, body)
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function createTransaction(app: TestAppHandle, body: object): Promise<any> {
  return expectStatus(app, 'POST', '/api/v1/transactions', 201, body)
}

/**
 * The common start of the transaction and metadata tests, kept alike in one place: a
 * service on `clock`, a manual USD account "Cash", and `tx`, which adds -1.00 to it.
 */
export async function startWithCashAccount(t: TestContext | null, clock = new StepClock()) {
  const app = await startTestApp(t, { clock })
  const acct = await createAccount(app, { name: 'Cash', currency: 'USD' })
  const tx = async (date = '2024-01-15') =>
    createTransaction(app, { account_id: acct.id, amount: '-1.00', date })
  return { app, acct, clock, tx }
}

/** Inserts or re-syncs rows through the path the sync engine uses. */
export async function ingest(app: TestAppHandle, batch: IngestBatch): Promise<IngestCounts> {
  return app.ctx.ledger.mutate((uow) => ingestBatchInUnit(uow, batch))
}

/** Rows of csvBatch's account, one per id, alike but for their description (`row <i>`). */
export function csvRows(ids: readonly string[]): IngestBatch['transactions'] {
  return ids.map((id, i) => ({
    id,
    account_id: 'csv:checking',
    amount: '-1.00',
    date: '2024-01-01',
    description: `row ${i}`,
  }))
}

/** The organization, account and transactions of a small CSV folder. */
export function csvBatch(transactions: IngestBatch['transactions'] = []): IngestBatch {
  return {
    source: 'csv',
    organizations: [{ id: 'csv:bank', name: 'Bank' }],
    accounts: [
      {
        id: 'csv:checking',
        org_id: 'csv:bank',
        name: 'Checking',
        currency: 'USD',
        balance: '250.00',
      },
    ],
    transactions,
  }
}

export interface EventEnvelope {
  sequence: number
  event_id: string
  type: string
  entity_type: string
  entity_id: string
  occurred_at: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any
}

/** How a test reads the log: with a token (when one is configured), narrowed by a filter. */
export interface LogRead {
  token?: string | undefined
  /** Query parameters appended to each page's request, e.g. `&type=account.created`. */
  filter?: string
}

/** The sequence of the newest event, or 0 on an empty log. */
export async function headSequence(
  app: Pick<TestAppHandle, 'request'>,
  { token }: LogRead = {},
): Promise<number> {
  const page = await expectStatus(app, 'GET', '/api/v1/events?newest=1', 200, undefined, { token })
  return page.events.length === 0 ? 0 : (page.events[0] as EventEnvelope).sequence
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Every event after `after`, following `next` across pages; checks the envelope. */
export async function eventsAfter(
  app: Pick<TestAppHandle, 'request'>,
  after: number,
  { token, filter = '' }: LogRead = {},
): Promise<EventEnvelope[]> {
  const out: EventEnvelope[] = []
  let cursor = after
  for (;;) {
    const page = await expectStatus(
      app,
      'GET',
      `/api/v1/events?after=${cursor}&limit=1000${filter}`,
      200,
      undefined,
      { token },
    )
    const events = page.events as EventEnvelope[]
    if (events.length === 0) {
      assert.equal(page.next, cursor)
      return out
    }
    for (const event of events) {
      assert.ok(event.sequence > cursor, `sequence ${event.sequence} after ${cursor}`)
      assert.match(event.event_id, UUID)
      cursor = event.sequence
      out.push(event)
    }
    assert.equal(page.next, cursor)
  }
}

/** An event without its log position, for comparing whole answers. */
export interface EventBody {
  type: string
  entity_type: string
  entity_id: string
  occurred_at: string
  data: unknown
}

/** Events after `after`, reduced to what a test can predict (no sequence, no uuid). */
export async function eventBodiesAfter(app: TestAppHandle, after: number): Promise<EventBody[]> {
  return (await eventsAfter(app, after)).map(
    ({ type, entity_type, entity_id, occurred_at, data }) => ({
      type,
      entity_type,
      entity_id,
      occurred_at,
      data,
    }),
  )
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function history(app: TestAppHandle, id: string): Promise<any[]> {
  const body = await expectStatus(
    app,
    'GET',
    `/api/v1/transactions/${encodeURIComponent(id)}/history`,
    200,
  )
  assert.equal(body.transaction_id, id)
  return body.versions
}

/** Runs `action` and asserts that it wrote no event. */
export async function expectNoEvents(
  app: TestAppHandle,
  action: () => Promise<unknown>,
): Promise<void> {
  const before = await headSequence(app)
  await action()
  assert.deepEqual(await eventBodiesAfter(app, before), [])
}

/** The RFC 9457 body of a failed request (CONTRACT 3). */
export function problem(status: number, detail: string, errors?: object[]): object {
  const titles: Record<number, string> = {
    400: 'Bad Request',
    404: 'Not Found',
    409: 'Conflict',
  }
  return {
    type: 'about:blank',
    title: titles[status] ?? String(status),
    status,
    detail,
    ...(errors ? { errors } : {}),
  }
}

/** The fields a 400 problem names, sorted. */
export function problemFields(body: { errors?: Array<{ field: string }> }): string[] {
  return (body.errors ?? []).map((e) => e.field).sort()
}

/**
 * Each account's transactions as the kept counts hold them (migration 0016) and
 * as the rows count them, for a test to compare: the lists' `total` reads the
 * first.
 */
export async function keptAndCountedTransactions(
  app: TestAppHandle,
): Promise<{ kept: Record<string, number>; counted: Record<string, number> }> {
  const db = app.ctx.db.kysely
  const kept = await db
    .selectFrom('transaction_counts')
    .select(['account_id', 'n'])
    .where('n', '!=', 0)
    .execute()
  const counted = await db
    .selectFrom('transactions')
    .select((eb) => ['account_id', eb.fn.countAll<number | string>().as('n')])
    .groupBy('account_id')
    .execute()
  const byAccount = (rows: Array<{ account_id: string; n: number | string }>) =>
    Object.fromEntries(
      rows
        .map((r): [string, number] => [r.account_id, Number(r.n)])
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    )
  return { kept: byAccount(kept), counted: byAccount(counted) }
}

/** No label or extension row is left of a transaction that is gone (its delete takes them). */
export async function assertNoKeyedValuesOfDeletedRows(app: TestAppHandle): Promise<void> {
  for (const table of ['transaction_labels', 'transaction_extensions'] as const) {
    const orphans = await app.ctx.db.kysely
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('transactions')
              .select('id')
              .whereRef('transactions.id', '=', `${table}.transaction_id`),
          ),
        ),
      )
      .executeTakeFirstOrThrow()
    assert.equal(Number(orphans.n), 0, `${table} left on deleted transactions`)
  }
}

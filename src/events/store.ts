// Reads and appends of the durable event log. Appends happen only inside
// ledger.mutate's database transaction; reads page by sequence.
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely'
import { insertRowsChunked } from '../db/bulk.js'
import { lockForTransaction } from '../db/coordination.js'
import type { Database } from '../db/schema.js'
import { newEventId } from './event-id.js'
import { envelopeFromLog } from './json.js'
import type { EventRow } from './tables.js'
import type { EventEnvelope, NewEvent } from './types.js'

type Executor = Kysely<Database> | Transaction<Database>

// Any constant works; it only has to be the same in every Coffer process.
const EVENT_APPEND_LOCK_KEY = 0x436f66666572

/**
 * Serialises appends to the log across processes until the transaction ends.
 * Concurrent transactions could otherwise commit out of sequence order, and a
 * reader paging `after N` would skip a sequence that commits later. While it is
 * held, the log head is final: every later event gets a higher sequence and
 * commits after this transaction.
 */
export function lockEventAppends(trx: Executor): Promise<void> {
  return lockForTransaction(trx, EVENT_APPEND_LOCK_KEY)
}

/** Events as rows of the log, ids and JSON made: work done before the append lock is taken. */
export interface EventRows {
  events: readonly NewEvent[]
  occurredAt: string
  rows: ReadonlyArray<readonly unknown[]>
}

const EVENT_COLUMNS = [
  'event_id',
  'type',
  'entity_type',
  'entity_id',
  'occurred_at',
  'data',
] as const

const DATA_COLUMN = EVENT_COLUMNS.indexOf('data')

export function toEventRows(events: readonly NewEvent[], occurredAt: string): EventRows {
  const rows = events.map((event) => [
    newEventId(),
    event.type,
    event.entity_type,
    event.entity_id,
    occurredAt,
    JSON.stringify(event.data ?? null),
  ])
  return { events, occurredAt, rows }
}

/**
 * Appends the rows (toEventRows) to the log; their sequences are final once the
 * transaction commits (lockEventAppends).
 */
export async function appendEventRows(
  trx: Executor,
  { events, occurredAt, rows }: EventRows,
): Promise<EventEnvelope[]> {
  const inserted = await insertRowsChunked(trx, 'events', EVENT_COLUMNS, rows, (row) => row, [
    'sequence',
    'event_id',
  ])
  // RETURNING order follows VALUES order on both engines, and the chunks go in order.
  return inserted.map((row, i) => {
    const event = events[i]!
    return {
      sequence: Number(row.sequence),
      event_id: row.event_id as string,
      type: event.type,
      entity_type: event.entity_type,
      entity_id: event.entity_id,
      occurred_at: occurredAt,
      data: event.data ?? null,
    }
  })
}

/**
 * Appended events as a read of the log gives them once committed: `data` is
 * parsed back from the JSON text the log holds, so no consumer shares an
 * object with the unit that emitted it or sees what JSON would not keep.
 */
export function asLogged(appended: readonly EventEnvelope[], rows: EventRows): EventEnvelope[] {
  return appended.map((event, i) => envelopeFromLog(event, rows.rows[i]![DATA_COLUMN] as string))
}

/** toEventRows then appendEventRows: for appends that are not the unit of work's (tests, tools). */
export function appendEvents(
  trx: Executor,
  events: readonly NewEvent[],
  occurredAt: string,
): Promise<EventEnvelope[]> {
  return appendEventRows(trx, toEventRows(events, occurredAt))
}

export interface EventFilter {
  type?: string | undefined
  entity_type?: string | undefined
  entity_id?: string | undefined
}

export function toEnvelope(row: EventRow): EventEnvelope {
  return envelopeFromLog(
    {
      sequence: Number(row.sequence),
      event_id: row.event_id,
      type: row.type,
      entity_type: row.entity_type,
      entity_id: row.entity_id,
      occurred_at: row.occurred_at,
    },
    row.data,
  )
}

/**
 * Bytes of event data (the JSON text the log holds) one page of the log reads
 * at most: a page stops at the first event that takes it past this. A count
 * alone let 500 events of a large snapshot each (SPEC 2.6) make a page of
 * hundreds of MB, held by every SSE replay at once (docs/security.md).
 */
export const EVENT_PAGE_BYTES = 1024 * 1024

/** A page of the log, oldest first. */
export interface EventPage {
  events: EventEnvelope[]
  /** Whether the page stopped at its count or byte budget, so more events may follow. */
  more: boolean
}

interface PageRequest {
  /** Events after this sequence, oldest first; without it, the newest events. */
  after?: number
  limit: number
  filter: EventFilter
  maxBytes: number
}

/**
 * The one read of the log's pages: at most `limit` events, stopping once their
 * data passes `maxBytes` (the event that passes it is kept, so a page holds at
 * least one event and paging always moves on). One statement finds where the
 * page ends from the data's sizes (octet_length: SQLite's record header,
 * PostgreSQL's TOAST pointer, without reading the data), then reads the events
 * up to there, so the data of events past the budget is never read.
 */
async function readPage(db: Executor, request: PageRequest): Promise<EventPage> {
  const { after, limit, filter, maxBytes } = request
  if (limit <= 0) return { events: [], more: false }
  const wanted: RawBuilder<unknown>[] = []
  if (after !== undefined) wanted.push(sql`sequence > ${after}`)
  if (filter.type !== undefined) wanted.push(sql`type = ${filter.type}`)
  if (filter.entity_type !== undefined) wanted.push(sql`entity_type = ${filter.entity_type}`)
  if (filter.entity_id !== undefined) wanted.push(sql`entity_id = ${filter.entity_id}`)
  const where = (conditions: RawBuilder<unknown>[]) =>
    conditions.length > 0 ? sql`where ${sql.join(conditions, sql` and `)}` : sql``
  // Written as SQL text: building it with the query builder cost more than reading a page of small events.
  const newestFirst = after === undefined
  const order = sql.raw(newestFirst ? 'desc' : 'asc')
  const edgeOf = sql.raw(newestFirst ? 'min' : 'max')
  // The page ends at the last of the next `limit` wanted events read before
  // their sizes, summed in order, passed the budget. A page of ordinary events
  // fits whole, which their sum tells; the running sum is needed only when not.
  const next = sql`select sequence, octet_length(data) as bytes from events ${where(wanted)}
    order by sequence ${order} limit ${limit}`
  const running = sql`select sequence, octet_length(data) as bytes,
      sum(octet_length(data)) over (order by sequence ${order} rows unbounded preceding) as bytes_through
    from events ${where(wanted)} order by sequence ${order} limit ${limit}`
  const edge = sql`select case when sum(bytes) < ${maxBytes} then ${edgeOf}(sequence)
      else (select ${edgeOf}(sequence) from (${running}) as sized where bytes_through - bytes < ${maxBytes})
    end from (${next}) as sized`
  const upToEdge = sql`sequence ${sql.raw(newestFirst ? '>=' : '<=')} (${edge})`
  const { rows } = await sql<EventRow & { bytes: number | string }>`
    select *, octet_length(data) as bytes from events ${where([...wanted, upToEdge])}
    order by sequence`.execute(db)
  const read = rows.reduce((sum, row) => sum + Number(row.bytes), 0)
  return { events: rows.map(toEnvelope), more: rows.length === limit || read >= maxBytes }
}

/**
 * Events after a sequence, oldest first: at most `limit`, and fewer when their
 * data passes `maxBytes` (index: primary key, or events_<filter> with sequence).
 */
export function readEventPage(
  db: Executor,
  after: number,
  limit: number,
  filter: EventFilter = {},
  maxBytes: number = EVENT_PAGE_BYTES,
): Promise<EventPage> {
  return readPage(db, { after, limit, filter, maxBytes })
}

/** The events of readEventPage alone: one page, which may be cut short by its bytes. */
export async function readEventsAfter(
  db: Executor,
  after: number,
  limit: number,
  filter: EventFilter = {},
): Promise<EventEnvelope[]> {
  return (await readEventPage(db, after, limit, filter)).events
}

/**
 * The newest `count` events, returned oldest first; fewer when their data
 * passes `maxBytes` (the newest are kept).
 */
export async function readNewestEvents(
  db: Executor,
  count: number,
  filter: EventFilter = {},
  maxBytes: number = EVENT_PAGE_BYTES,
): Promise<EventEnvelope[]> {
  const { events } = await readPage(db, { limit: count, filter, maxBytes })
  return events
}

/**
 * What the events after a sequence were about: each distinct (type, entity) once,
 * without their data (index: primary key). A rules run reads it to learn what
 * changed while it matched outside the write lock (rules/run.ts).
 */
export async function entitiesTouchedAfter(
  db: Executor,
  after: number,
): Promise<Array<{ type: string; entity_type: string; entity_id: string }>> {
  return db
    .selectFrom('events')
    .select(['type', 'entity_type', 'entity_id'])
    .distinct()
    .where('sequence', '>', after)
    .execute()
}

/** The newest sequence in the log, or 0 when it is empty (index: primary key). */
export async function logHead(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.max('sequence').as('head'))
    .executeTakeFirst()
  return Number(row?.head ?? 0)
}

export async function readEvent(db: Executor, sequence: number): Promise<EventEnvelope | null> {
  const row = await db
    .selectFrom('events')
    .selectAll()
    .where('sequence', '=', sequence)
    .executeTakeFirst()
  return row ? toEnvelope(row) : null
}

// Reads and appends of the durable event log. Appends happen only inside
// ledger.mutate's database transaction; reads page by sequence.
import type { Kysely, Transaction } from 'kysely'
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

function filtered(db: Executor, filter: EventFilter) {
  let query = db.selectFrom('events').selectAll()
  if (filter.type !== undefined) query = query.where('type', '=', filter.type)
  if (filter.entity_type !== undefined) query = query.where('entity_type', '=', filter.entity_type)
  if (filter.entity_id !== undefined) query = query.where('entity_id', '=', filter.entity_id)
  return query
}

/** Events after a sequence, oldest first (index: primary key, or events_<filter> with sequence). */
export async function readEventsAfter(
  db: Executor,
  after: number,
  limit: number,
  filter: EventFilter = {},
): Promise<EventEnvelope[]> {
  const rows = await filtered(db, filter)
    .where('sequence', '>', after)
    .orderBy('sequence', 'asc')
    .limit(limit)
    .execute()
  return rows.map(toEnvelope)
}

/** The newest `count` events, returned oldest first. */
export async function readNewestEvents(
  db: Executor,
  count: number,
  filter: EventFilter = {},
): Promise<EventEnvelope[]> {
  const rows = await filtered(db, filter).orderBy('sequence', 'desc').limit(count).execute()
  return rows.reverse().map(toEnvelope)
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

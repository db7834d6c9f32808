// The one mutation path (DESIGN.md). Every change to the ledger, from any door,
// runs as a unit of work inside ONE database transaction that writes the rows,
// their history versions and their events; only after the commit are the events
// published to the bus. A unit that throws rolls back and publishes nothing.
import { sql } from 'kysely'
import type { Db } from '../db/connect.js'
import type { EventPublisher } from '../events/publisher.js'
import { appendEvents } from '../events/store.js'
import type { EventEnvelope, NewEvent } from '../events/types.js'
import { isoNow, type Clock } from './time.js'
import { AsyncLock } from '../async-lock.js'
import type { InsertStep, UnitOfWork } from './unit-of-work.js'

export type { InsertStep, UnitOfWork } from './unit-of-work.js'

export interface LedgerDeps {
  db: Db
  publisher: EventPublisher
  clock: Clock
  eventsEnabled: () => boolean
}

// Any constant works; it only has to be the same in every Coffer process.
const EVENT_APPEND_LOCK_KEY = 0x436f66666572

export class Ledger {
  // With an inline publisher, appending events, committing and publishing happen
  // under this lock so that the bus sees events in sequence order (a follower
  // dedupes by sequence and would otherwise skip a lower sequence published late).
  private readonly appendLock = new AsyncLock()
  private readonly insertSteps: InsertStep[] = []

  constructor(private readonly deps: LedgerDeps) {}

  /** Adds work to every insert of transactions, after the steps already registered (unit-of-work.ts). */
  registerInsertStep(step: InsertStep): void {
    this.insertSteps.push(step)
  }

  async mutate<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    const { db, publisher, clock } = this.deps
    const pending: NewEvent[] = []
    let committed: EventEnvelope[] = []
    let release: (() => void) | null = null
    const now = isoNow(clock)
    try {
      const result = await db.kysely.transaction().execute(async (trx) => {
        const memos = new Map<symbol, unknown>()
        const value = await work({
          trx,
          now,
          insertSteps: this.insertSteps,
          emit: (event) => pending.push(event),
          memo<T>(key: symbol, compute: () => T): T {
            if (!memos.has(key)) memos.set(key, compute())
            return memos.get(key) as T
          },
        })
        if (pending.length > 0 && this.deps.eventsEnabled()) {
          if (publisher.publishesInline) release = await this.appendLock.acquire()
          // On PostgreSQL, concurrent transactions (from several processes too)
          // could commit out of sequence order; serialise the appends so that a
          // reader paging `after N` never skips a sequence that commits later.
          if (db.dialect === 'postgres') {
            await sql`select pg_advisory_xact_lock(${EVENT_APPEND_LOCK_KEY})`.execute(trx)
          }
          committed = await appendEvents(trx, pending, now)
          await publisher.afterAppend(trx)
        }
        return value
      })
      if (committed.length > 0) publisher.committed(committed)
      return result
    } finally {
      ;(release as (() => void) | null)?.()
    }
  }
}

// The one mutation path (DESIGN.md). Every change to the ledger, from any door,
// runs as a unit of work inside ONE database transaction that writes the rows,
// their history versions and their events; only after the commit are the events
// published to the bus. A unit that throws rolls back and publishes nothing.
import type { Db } from '../db/connect.js'
import type { LogTail } from '../events/publisher.js'
import { appendEventRows, lockEventAppends, toEventRows, type EventRows } from '../events/store.js'
import type { EventEnvelope, NewEvent } from '../events/types.js'
import { isoNow, yieldWhenLoopStarved, type Clock } from '../clock.js'
import { writeCountChanges } from './transaction-counts.js'
import type { WriteStep, UnitOfWork } from './unit-of-work.js'

export interface LedgerDeps {
  db: Db
  /** Publishes what the log holds; told of each commit so that it reads at once. */
  publisher: Pick<LogTail, 'afterAppend' | 'committed'>
  clock: Clock
  eventsEnabled: () => boolean
}

/** See Ledger.loopTurn. */
const LOOP_TURN_MS = 20

export class Ledger {
  private readonly writeSteps: WriteStep[] = []
  /**
   * Units waiting for the connection start one after another in microtasks, so
   * a sync's and a plugin's, taking turns, held the event loop for seconds
   * (longest stalls of 650–1,350 ms in the plugins bench); a unit that finds
   * the loop without a turn for LOOP_TURN_MS gives it one first.
   */
  private readonly loopTurn = yieldWhenLoopStarved(LOOP_TURN_MS)

  constructor(private readonly deps: LedgerDeps) {}

  /** Adds work to every write of transactions, after the steps already registered (unit-of-work.ts). */
  registerWriteStep(step: WriteStep): void {
    this.writeSteps.push(step)
  }

  async mutate<T>(
    work: (uow: UnitOfWork) => Promise<T>,
    options: { actor?: string } = {},
  ): Promise<T> {
    const { db, publisher, clock } = this.deps
    const pending: NewEvent[] = []
    const now = isoNow(clock)
    const { value, appended } = await db.kysely.transaction().execute(async (trx) => {
      await this.loopTurn()
      const memos = new Map<symbol, unknown>()
      const uow: UnitOfWork = {
        trx,
        now,
        writeSteps: this.writeSteps,
        actor: options.actor,
        emit: (event) => pending.push(event),
        memo<T>(key: symbol, compute: () => T): T {
          if (!memos.has(key)) memos.set(key, compute())
          return memos.get(key) as T
        },
      }
      const value = await work(uow)
      let appended: { events: EventEnvelope[]; rows: EventRows } | null = null
      for (const step of this.writeSteps) await step.beforeCommit?.(uow)
      if (pending.length > 0 && this.deps.eventsEnabled()) {
        // Ids and JSON first: other units wait for the append lock (PostgreSQL)
        // only while the rows go in and the unit commits.
        const rows = toEventRows(pending, now)
        await lockEventAppends(trx)
        await writeCountChanges(uow)
        appended = { events: await appendEventRows(trx, rows), rows }
        await publisher.afterAppend(trx)
      } else {
        await writeCountChanges(uow)
      }
      return { value, appended }
    })
    // Publication is the log tail's: it publishes what the log now holds, in order.
    if (appended) publisher.committed(appended.events, appended.rows)
    return value
  }
}

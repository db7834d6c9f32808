// How Coffer processes sharing one database coordinate: transaction-scoped locks
// and change notices. On PostgreSQL these are advisory locks and LISTEN/NOTIFY.
// On SQLite every transaction already holds the one write lock (connect.ts begins
// them IMMEDIATE), and a change made by another process cannot be announced, so a
// watcher polls instead. Callers ask for the effect; only this file knows how each
// engine provides it.
import { setTimeout as delay } from 'node:timers/promises'
import { sql } from 'kysely'
import pg from 'pg'
import type { Logger } from 'pino'
import { Unavailable } from '../errors.js'
import type { Db } from './connect.js'
import { inList } from './in-list.js'
import { dialectOf, type DbExecutor } from './schema.js'

/**
 * Holds `key` until the transaction ends, across every process. On SQLite the
 * transaction's write lock already excludes every other writer.
 */
export async function lockForTransaction(trx: DbExecutor, key: number): Promise<void> {
  if (dialectOf(trx) === 'postgres') await sql`select pg_advisory_xact_lock(${key})`.execute(trx)
}

/**
 * Holds one transaction row until the unit of work ends, so that two units
 * changing the same transaction at once (two plugins, a plugin and a person)
 * take turns: the second reads what the first wrote. On SQLite the write lock
 * already serializes every writer.
 */
export async function lockTransactionRow(trx: DbExecutor, id: string): Promise<void> {
  if (dialectOf(trx) === 'postgres')
    await trx.selectFrom('transactions').select('id').where('id', '=', id).forUpdate().execute()
}

/** lockTransactionRow for many rows at once, taken in id order so that two units never deadlock. */
export async function lockTransactionRows(trx: DbExecutor, ids: readonly string[]): Promise<void> {
  if (dialectOf(trx) !== 'postgres' || ids.length === 0) return
  await rowLocks(trx, ids).execute()
}

/** Locks the rows of `ids` in id order, so that two units never deadlock over them. */
function rowLocks(trx: DbExecutor, ids: readonly string[]) {
  return trx
    .selectFrom('transactions')
    .select('id')
    .where(inList(trx, 'id', ids))
    .orderBy('id')
    .forUpdate()
}

/** A row this unit must write is held by another unit: roll back and try the unit again. */
export class RowsBusy extends Error {
  constructor() {
    super('transactions this unit writes are being written by another unit')
    this.name = 'RowsBusy'
  }
}

// A unit that finds rows it must write held by another unit (or that PostgreSQL
// picked as a deadlock's victim) is tried again, this many times at most,
// pausing a little longer each time.
const BUSY_ATTEMPTS = 20
const BUSY_PAUSE_MS = 20
const BUSY_PAUSE_MAX_MS = 250

/**
 * Runs `unit` (a whole unit of work), again while it ends in RowsBusy or a
 * deadlock (rolled back, so nothing of it stayed); past the attempts, a 503
 * that asks the client to try again.
 */
export async function retryWhileRowsBusy<T>(unit: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await unit()
    } catch (error) {
      // 40P01 deadlock_detected
      const busy = error instanceof RowsBusy || (error as { code?: unknown }).code === '40P01'
      if (!busy) throw error
      if (attempt === BUSY_ATTEMPTS) {
        throw new Unavailable(
          'the transactions this changes are being written by others; try again',
        )
      }
      await delay(Math.min(BUSY_PAUSE_MS * attempt, BUSY_PAUSE_MAX_MS))
    }
  }
}

/**
 * lockTransactionRows without waiting, for a unit that already holds what
 * another unit may be waiting for (the log's append lock, or rows of its own):
 * waiting could deadlock, so a row held elsewhere throws RowsBusy, and the
 * unit (aborted on PostgreSQL) is retried whole.
 */
export async function lockTransactionRowsNowait(
  trx: DbExecutor,
  ids: readonly string[],
): Promise<void> {
  if (dialectOf(trx) !== 'postgres' || ids.length === 0) return
  try {
    await rowLocks(trx, ids).noWait().execute()
  } catch (error) {
    // 55P03 lock_not_available
    if ((error as { code?: unknown }).code === '55P03') throw new RowsBusy()
    throw error
  }
}

/**
 * Tells every process watching `channel` that something changed; inside a
 * transaction the notice is delivered only if it commits. `sender` reaches the
 * watchers (WatchOptions.onChange), so that one can pass over its own notices.
 * A no-op on SQLite, whose watchers poll.
 */
export async function announceChange(trx: DbExecutor, channel: string, sender = ''): Promise<void> {
  if (dialectOf(trx) !== 'postgres') return
  // One channel per schema, so that databases sharing a server stay apart.
  await sql`select pg_notify(${channel} || '_' || current_schema(), ${sender})`.execute(trx)
}

export interface ChangeWatch {
  close(): Promise<void>
}

export interface WatchOptions {
  channel: string
  /** SQLite: how often to look for other processes' changes. */
  pollMs: number
  log: Logger
  /**
   * Called on every notice, with its sender (announceChange), or on every poll
   * and once as soon as the watch starts, without one.
   */
  onChange: (sender?: string) => void
}

const RECONNECT_DELAY_MS = 1000

/** Calls `onChange` when another process (or this one) announces a change on `channel`. */
export async function watchChanges(
  db: Db,
  dsn: string | null,
  options: WatchOptions,
): Promise<ChangeWatch> {
  if (db.dialect === 'postgres' && dsn) {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(
      db.kysely,
    )
    const watch = new PostgresListener(
      dsn,
      `${options.channel}_${rows[0]?.schema ?? 'public'}`,
      options,
    )
    await watch.start()
    return watch
  }
  const timer = setInterval(() => options.onChange(), options.pollMs)
  timer.unref()
  options.onChange()
  return {
    close: async () => clearInterval(timer),
  }
}

// A dedicated connection (a pooled one would return to the pool and stop
// listening), reconnected when it is lost; every reconnect calls onChange, since
// notices sent while it was away are gone.
class PostgresListener implements ChangeWatch {
  private client: pg.Client | null = null
  private stopped = false
  private reconnectTimer: NodeJS.Timeout | null = null

  constructor(
    private readonly dsn: string,
    private readonly channel: string,
    private readonly options: WatchOptions,
  ) {}

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.dsn })
    client.on('notification', (notice) => this.options.onChange(notice.payload))
    client.on('error', (error) => {
      this.options.log.warn(
        { err: error },
        `db: lost the listener on ${this.options.channel}; reconnecting`,
      )
      this.scheduleReconnect()
    })
    await client.connect()
    await client.query(`listen "${this.channel}"`)
    this.client = client
    this.options.onChange()
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return
    const old = this.client
    this.client = null
    old?.end().catch(() => undefined)
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null
      this.start().catch((error: unknown) => {
        this.options.log.warn(
          { err: error },
          `db: reconnecting the listener on ${this.options.channel} failed`,
        )
        this.scheduleReconnect()
      })
    }, RECONNECT_DELAY_MS)
    this.reconnectTimer.unref()
  }

  async close(): Promise<void> {
    this.stopped = true
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer)
    await this.client?.end().catch(() => undefined)
    this.client = null
  }
}

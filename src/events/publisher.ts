// How committed events reach the in-memory bus.
//
// SQLite (one process): the unit of work publishes its own events right after
// the commit, under the ledger's append lock, so the bus sees sequence order.
//
// PostgreSQL (several processes may share the database): every unit calls
// pg_notify inside its transaction (delivered only on commit), and each process
// tails the log: on its own commits and on notifications from other processes it
// reads the events after the last one it published and publishes them in
// sequence order. Appends are serialised by an advisory lock (see mutate.ts), so
// commit order is sequence order and the tail never skips one.
import { sql, type Transaction } from 'kysely'
import pg from 'pg'
import type { Logger } from 'pino'
import type { Db } from '../db/connect.js'
import type { Database } from '../db/schema.js'
import type { EventBus } from './bus.js'
import { readEventsAfter } from './store.js'
import type { EventEnvelope } from './types.js'

export interface EventPublisher {
  /** True when the caller must publish under its append lock (in-process ordering). */
  readonly publishesInline: boolean
  /** Inside the unit's transaction, after its events are appended. */
  afterAppend(trx: Transaction<Database>): Promise<void>
  /** After the commit, with the unit's events. */
  committed(events: readonly EventEnvelope[]): void
  start(): Promise<void>
  stop(): Promise<void>
}

export class InlinePublisher implements EventPublisher {
  readonly publishesInline = true

  constructor(
    private readonly bus: EventBus,
    private readonly onPublish: (count: number) => void,
  ) {}

  async afterAppend(): Promise<void> {}

  committed(events: readonly EventEnvelope[]): void {
    this.bus.publish(events)
    this.onPublish(events.length)
  }

  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}

const TAIL_PAGE_EVENTS = 500
const RECONNECT_DELAY_MS = 1000

export class PostgresLogTail implements EventPublisher {
  readonly publishesInline = false
  private last = 0
  private draining: Promise<void> | null = null
  private pokedAgain = false
  private listener: pg.Client | null = null
  private channel = 'coffer_events'
  private stopped = false
  private reconnectTimer: NodeJS.Timeout | null = null

  constructor(
    private readonly db: Db,
    private readonly dsn: string,
    private readonly bus: EventBus,
    private readonly log: Logger,
    private readonly onPublish: (count: number) => void,
  ) {}

  async afterAppend(trx: Transaction<Database>): Promise<void> {
    await sql`select pg_notify(${this.channel}, '')`.execute(trx)
  }

  committed(): void {
    this.poke()
  }

  async start(): Promise<void> {
    const info = await sql<{ schema: string; head: number | null }>`
      select current_schema() as schema, (select max(sequence) from events) as head`.execute(
      this.db.kysely,
    )
    const row = info.rows[0]
    // One channel per schema, so that databases sharing a server stay apart.
    this.channel = `coffer_events_${row?.schema ?? 'public'}`
    this.last = Number(row?.head ?? 0)
    await this.listen()
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.dsn })
    client.on('notification', () => this.poke())
    client.on('error', (error) => {
      this.log.warn({ err: error }, 'events: lost the PostgreSQL listener; reconnecting')
      this.scheduleReconnect()
    })
    await client.connect()
    await client.query(`listen "${this.channel}"`)
    this.listener = client
    // Anything committed while we were not listening is read now.
    this.poke()
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return
    const old = this.listener
    this.listener = null
    old?.end().catch(() => undefined)
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null
      this.listen().catch((error: unknown) => {
        this.log.warn({ err: error }, 'events: PostgreSQL listener reconnect failed')
        this.scheduleReconnect()
      })
    }, RECONNECT_DELAY_MS)
    this.reconnectTimer.unref()
  }

  /** Reads and publishes everything after the last published sequence; coalesces pokes. */
  poke(): void {
    if (this.stopped) return
    if (this.draining) {
      this.pokedAgain = true
      return
    }
    this.draining = this.drain().finally(() => {
      this.draining = null
    })
  }

  private async drain(): Promise<void> {
    try {
      do {
        this.pokedAgain = false
        for (;;) {
          const page = await readEventsAfter(this.db.kysely, this.last, TAIL_PAGE_EVENTS)
          if (page.length === 0) break
          this.last = page[page.length - 1]!.sequence
          this.bus.publish(page)
          this.onPublish(page.length)
          if (page.length < TAIL_PAGE_EVENTS) break
        }
      } while (this.pokedAgain && !this.stopped)
    } catch (error) {
      if (!this.stopped) this.log.error({ err: error }, 'events: reading the log tail failed')
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer)
    await this.draining
    await this.listener?.end().catch(() => undefined)
    this.listener = null
  }
}

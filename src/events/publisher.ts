// How committed events reach the in-memory bus, on both engines alike: every
// process tails the log. Whoever committed an event (this process, a `coffer
// sync` from cron, `coffer mcp` over stdio, another server on PostgreSQL), the
// tail reads the events after the last one it published and publishes them in
// sequence order, so a live consumer sees every sequence and never skips one.
//
// It is woken by its own commits at once, and by other processes' commits
// through db/coordination.ts: NOTIFY on PostgreSQL, a short poll on SQLite.
// Its own commits it has in hand: one that follows straight on the last
// sequence published is published without reading it back, which is what the
// log holds; anything else (another process's events, a gap) is read.
// Appends are serialised (SQLite has one writer; PostgreSQL takes the append
// lock in mutate.ts), so commit order is sequence order and the tail never
// passes a sequence that commits later.
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { Db } from '../db/connect.js'
import { announceChange, watchChanges, type ChangeWatch } from '../db/coordination.js'
import type { DbExecutor } from '../db/schema.js'
import type { EventBus } from './bus.js'
import { asLogged, logHead, readEventPage, type EventRows } from './store.js'
import type { EventEnvelope } from './types.js'

const TAIL_PAGE_EVENTS = 500
/** SQLite: how soon another process's commit reaches this process's consumers, at most. */
export const TAIL_POLL_MS = 200
const EVENTS_CHANNEL = 'coffer_events'

export interface LogTailDeps {
  db: Db
  /** PostgreSQL: the DSN its listener connects with. */
  dsn: string | null
  bus: EventBus
  log: Logger
  onPublish: (count: number) => void
}

export class LogTail {
  private last = 0
  private draining: Promise<void> | null = null
  private pokedAgain = false
  private watch: ChangeWatch | null = null
  private stopped = false
  /** Names this tail's own notices (PostgreSQL), which it passes over. */
  private readonly id = randomUUID()
  /**
   * This process's own commits not yet published, in commit order. One that
   * follows straight on what was published is published as it is in hand:
   * the log holds it and nothing between, and reading each manual write back
   * cost a third of what 5 plugins add to the write path.
   */
  private inHand: Array<{ appended: readonly EventEnvelope[]; rows: EventRows }> = []
  /** Poked from outside (another process's commit, a poll, the start): the log may hold more than is in hand. */
  private readWanted = false

  constructor(private readonly deps: LogTailDeps) {}

  /** Inside a unit's transaction, after its events are appended. */
  async afterAppend(trx: DbExecutor): Promise<void> {
    await announceChange(trx, EVENTS_CHANNEL, this.id)
  }

  /** After a unit of this process committed `appended` (appendEventRows), made from `rows`. */
  committed(appended: readonly EventEnvelope[], rows: EventRows): void {
    const newest = appended.at(-1)
    if (!newest || this.stopped) return
    // Nobody listens in this process (a `coffer sync`, `coffer mcp`, a bench):
    // nothing to publish. See skipUnwatched for why moving ahead loses nothing;
    // a drain under way (the poll's) does not change that, and waking it for
    // each commit kept it reading the log head after every write.
    if (this.deps.bus.subscriberCount === 0) {
      this.last = Math.max(this.last, newest.sequence)
      return
    }
    this.inHand.push({ appended, rows })
    this.wake()
  }

  /** The newest sequence published so far. */
  get published(): number {
    return this.last
  }

  async start(): Promise<void> {
    const { db, dsn, log } = this.deps
    this.last = await logHead(db.kysely)
    this.watch = await watchChanges(db, dsn, {
      channel: EVENTS_CHANNEL,
      pollMs: TAIL_POLL_MS,
      log,
      // Its own commits reach it in hand (committed).
      onChange: (sender) => {
        if (sender !== this.id) this.poke()
      },
    })
  }

  /** Reads and publishes everything after the last published sequence; coalesces pokes. */
  poke(): void {
    this.readWanted = true
    this.wake()
  }

  private wake(): void {
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
    const { db, bus, log, onPublish } = this.deps
    try {
      do {
        this.pokedAgain = false
        for (;;) {
          if (await this.skipUnwatched()) break
          const own = this.nextInHand()
          if (own === 'gap') this.readWanted = true
          else if (own) {
            this.last = own.at(-1)!.sequence
            bus.publish(own)
            onPublish(own.length)
            continue
          }
          if (!this.readWanted) break
          // Cleared before the read: a poke while it runs asks for another.
          this.readWanted = false
          const { events: page, more } = await readEventPage(db.kysely, this.last, TAIL_PAGE_EVENTS)
          if (page.length === 0) break
          // Never back: a commit made while nobody listened moved it ahead (committed).
          this.last = Math.max(this.last, page[page.length - 1]!.sequence)
          bus.publish(page)
          onPublish(page.length)
          if (more) this.readWanted = true
        }
      } while (this.pokedAgain && !this.stopped)
    } catch (error) {
      // The next poke (a commit, a notice, the poll) reads from the same place.
      this.readWanted = true
      if (!this.stopped) log.error({ err: error }, 'events: reading the log tail failed')
    }
  }

  /**
   * The commit in hand that follows straight on the last published, in the form
   * a read gives; 'gap' when the next one does not (the log has what fills it).
   */
  private nextInHand(): EventEnvelope[] | 'gap' | null {
    while (this.inHand.length > 0) {
      const { appended, rows } = this.inHand[0]!
      if (appended.at(-1)!.sequence <= this.last) {
        this.inHand.shift() // published by a read of the log
        continue
      }
      if (appended[0]!.sequence !== this.last + 1) return 'gap'
      this.inHand.shift()
      return asLogged(appended, rows)
    }
    return null
  }

  /**
   * With no live consumer (a `coffer sync` from cron, `coffer mcp`), reading
   * events back only to publish them to nobody would cost a bulk import a second
   * read of everything it wrote: move to the head instead. A consumer that
   * subscribes after the head was read replays the log from its own cursor
   * (follow.ts), which holds every event up to that head, so nothing is lost.
   */
  private async skipUnwatched(): Promise<boolean> {
    const { db, bus } = this.deps
    if (bus.subscriberCount > 0) return false
    const head = await logHead(db.kysely)
    // Checked again after the read: a subscriber that came meanwhile needs the events.
    if (bus.subscriberCount > 0) return false
    this.last = Math.max(this.last, head)
    this.inHand = []
    return true
  }

  async stop(): Promise<void> {
    this.stopped = true
    await this.watch?.close()
    await this.draining
  }
}

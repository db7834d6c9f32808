// On PostgreSQL several Coffer processes may share one database (DESIGN "Storage").
// Some work must run in one of them only: webhook dispatch (or every receiver would
// get each event once per process), plugin hooks (or each would run once per
// process). The process doing it holds a session-level advisory lock on a
// connection of its own; the others try again every few seconds and take over
// when that connection ends (a stop, a crash, a lost network).
import pg from 'pg'
import type { Logger } from 'pino'

export const LEASE_RETRY_MS = 3_000
/** One lease per kind of work; with the schema's hash each names one lock per database schema. */
export const LEASES = {
  webhooks: { lockClass: 0x436f66, holds: 'dispatches webhooks' },
  plugins: { lockClass: 0x436f67, holds: 'runs plugin hooks' },
} as const

export interface LeaseHooks {
  acquired(): Promise<void>
  lost(): Promise<void>
}

export class PostgresLease {
  private client: pg.Client | null = null
  private timer: NodeJS.Timeout | null = null
  private stopped = false

  constructor(
    private readonly dsn: string,
    private readonly log: Logger,
    private readonly work: keyof typeof LEASES,
    private readonly hooks: LeaseHooks,
  ) {}

  /** Tries once now (so a lone process dispatches from its first moment), then keeps trying. */
  start(): Promise<void> {
    return this.tryAcquire()
  }

  get held(): boolean {
    return this.client !== null
  }

  /** Stops trying; a held lock stays until release(). */
  stopTrying(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  async release(): Promise<void> {
    this.stopTrying()
    const client = this.client
    this.client = null
    await client?.end().catch(() => undefined)
  }

  private schedule(): void {
    if (this.stopped) return
    this.timer = setTimeout(() => void this.tryAcquire(), LEASE_RETRY_MS)
    this.timer.unref()
  }

  private async tryAcquire(): Promise<void> {
    this.timer = null
    if (this.stopped) return
    const client = new pg.Client({ connectionString: this.dsn })
    client.on('error', () => this.onLost(client))
    client.on('end', () => this.onLost(client))
    try {
      await client.connect()
      const { rows } = await client.query<{ ok: boolean }>(
        'select pg_try_advisory_lock($1, hashtext(current_schema())) as ok',
        [LEASES[this.work].lockClass],
      )
      if (!rows[0]?.ok || this.stopped) {
        await client.end().catch(() => undefined)
        this.schedule()
        return
      }
    } catch (error) {
      this.log.warn({ err: error }, `${this.work}: could not try the lease; retrying`)
      await client.end().catch(() => undefined)
      this.schedule()
      return
    }
    this.client = client
    this.log.info(`${this.work}: this process ${LEASES[this.work].holds}`)
    await this.hooks.acquired()
  }

  private onLost(client: pg.Client): void {
    if (this.client !== client) return
    this.client = null
    this.log.warn(`${this.work}: lost the lease; another process may take over`)
    void this.hooks.lost().then(() => this.schedule())
  }
}

// webhooks/ owns the registry (registry.ts, table `webhooks`), signing (signing.ts),
// one delivery attempt (delivery.ts), health (health.ts), the dispatcher
// (dispatcher.ts, its cursor in cursor.ts) and test deliveries (send-test.ts).
// app.ts starts WebhookDelivery: the dispatcher, run by one process at a time
// when several share a PostgreSQL database (db/lease.ts).
import type { ServiceContext } from '../context.js'
import { hasSessionLocks } from '../db/dialect.js'
import { deliveryEnabled, WebhookDispatcher, type DispatcherOptions } from './dispatcher.js'
import { PostgresLease } from '../db/lease.js'

export class WebhookDelivery {
  private dispatcher: WebhookDispatcher | null = null
  private lease: PostgresLease | null = null
  // Start and stop of the dispatcher run one after another (the lease may call either).
  private turn: Promise<void> = Promise.resolve()

  constructor(
    private readonly ctx: ServiceContext,
    private readonly options: DispatcherOptions = {},
  ) {}

  /** Answers false when webhooks.enabled or events.enabled is off. */
  async start(): Promise<boolean> {
    const { ctx } = this
    if (!deliveryEnabled(ctx.config)) {
      ctx.log.info(
        'webhooks: delivery is off (webhooks.enabled and events.enabled must both be true)',
      )
      return false
    }
    if (hasSessionLocks(ctx.db.kysely)) {
      this.lease = new PostgresLease(ctx.config.database.dsn!, ctx.log, 'webhooks', {
        acquired: () => this.run(),
        lost: () => this.halt(),
      })
      await this.lease.start()
    } else {
      await this.run()
    }
    return true
  }

  async stop(): Promise<void> {
    this.lease?.stopTrying()
    await this.halt()
    await this.lease?.release()
  }

  /** Resolves once every event up to `sequence` has been dealt with (tests, benchmarks). */
  whenSettled(sequence: number): Promise<void> {
    if (!this.dispatcher) throw new Error('webhooks: this process is not dispatching')
    return this.dispatcher.whenSettled(sequence)
  }

  /** Whether this process is the one dispatching. */
  get dispatching(): boolean {
    return this.dispatcher !== null
  }

  private run(): Promise<void> {
    this.turn = this.turn.then(async () => {
      const dispatcher = new WebhookDispatcher(this.ctx, this.options)
      await dispatcher.start()
      this.dispatcher = dispatcher
    })
    return this.turn
  }

  private halt(): Promise<void> {
    this.turn = this.turn.then(async () => {
      const dispatcher = this.dispatcher
      this.dispatcher = null
      await dispatcher?.stop()
    })
    return this.turn
  }
}

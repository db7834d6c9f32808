// The dispatcher's view of the registry: the enabled webhooks with what it needs
// to sign and send, cached until the registry changes. A change in this process
// arrives as a signal; one in another process sharing the database arrives as a
// notice (PostgreSQL) or is found by a poll (SQLite), see db/coordination.ts.
//
// A webhook has its own start in the log (`starts_after`, the log head when it
// was created). One created in another process may be seen only after the
// dispatcher has passed some of the events it should receive; `takeNew` hands
// such webhooks to the dispatcher once, so that it sends them what they missed.
import { watchChanges, type ChangeWatch } from '../db/coordination.js'
import type { ServiceContext } from '../context.js'
import { loadWebhooks, parseEventTypes, WEBHOOKS_CHANNEL } from './registry.js'

/** SQLite: how often a registry change made by another process is looked for. */
export const REGISTRY_POLL_MS = 5_000

export interface Target {
  id: string
  url: string
  secret: string
  eventTypes: string[]
  /** It receives the events after this sequence. */
  startsAfter: number
}

export class WebhookTargets {
  private targets: Map<string, Target> | null = null
  private generation = 0
  private loading: Promise<Map<string, Target>> | null = null
  /** Every webhook id seen (enabled or not); the first load's are not new. */
  private readonly seen = new Set<string>()
  private fresh: Target[] = []
  private firstLoad = true
  private watch: ChangeWatch | null = null
  private readonly invalidate = () => {
    this.targets = null
    this.generation += 1
  }

  constructor(private readonly ctx: ServiceContext) {}

  async start(): Promise<void> {
    this.ctx.signals.on('webhooks.changed', this.invalidate)
    this.watch = await watchChanges(this.ctx.db, this.ctx.config.database.dsn, {
      channel: WEBHOOKS_CHANNEL,
      pollMs: REGISTRY_POLL_MS,
      log: this.ctx.log,
      onChange: this.invalidate,
    })
    await this.current()
  }

  async stop(): Promise<void> {
    this.ctx.signals.off('webhooks.changed', this.invalidate)
    await this.watch?.close()
  }

  /** The enabled webhooks by id. */
  current(): Promise<Map<string, Target>> {
    if (this.targets) return Promise.resolve(this.targets)
    this.loading ??= this.load().finally(() => {
      this.loading = null
    })
    return this.loading
  }

  /** Enabled webhooks that appeared since the last call (never the ones there at start). */
  takeNew(): Target[] {
    const fresh = this.fresh
    this.fresh = []
    return fresh
  }

  private async load(): Promise<Map<string, Target>> {
    for (;;) {
      const generation = this.generation
      const rows = await loadWebhooks(this.ctx.db.kysely)
      // A change that landed while reading may be missing from these rows: read again.
      if (generation !== this.generation) continue
      const targets = new Map<string, Target>()
      for (const row of rows) {
        const isNew = !this.seen.has(row.id)
        this.seen.add(row.id)
        if (row.enabled !== 1) continue
        const target: Target = {
          id: row.id,
          url: row.url,
          secret: row.secret,
          eventTypes: parseEventTypes(row.event_types),
          startsAfter: Number(row.starts_after),
        }
        targets.set(row.id, target)
        if (isNew && !this.firstLoad) this.fresh.push(target)
      }
      this.firstLoad = false
      this.targets = targets
      return targets
    }
  }
}

// sync/ owns the engine (one run at a time, run records, sync.completed), the
// schedule and the source registry it drives. app.ts builds one service per
// service context (ctx.sync) and starts it in `coffer serve`; routes, the CLI and
// MCP reach it there.
import type { ServiceContext } from '../context.js'
import { createSources } from '../sources/index.js'
import { SyncEngine } from './engine.js'
import { SyncScheduler } from './scheduler.js'

export type { StartedRun, SyncProgress, SyncRequest } from './engine.js'
export { SyncEngine } from './engine.js'

export class SyncService {
  readonly engine: SyncEngine
  readonly scheduler: SyncScheduler

  /** `ctx` may still be under construction: only its database is used before start() or a run. */
  constructor(ctx: ServiceContext) {
    this.engine = new SyncEngine(ctx, createSources(), ctx.secrets)
    this.scheduler = new SyncScheduler(ctx, this.engine)
  }

  /** At start: recover runs of dead processes, then start the schedule. */
  async start(): Promise<void> {
    await this.engine.recover()
    this.scheduler.start()
  }

  /** Stops the schedule and waits for a run of this process to finish. */
  async stop(): Promise<void> {
    this.scheduler.stop()
    await this.engine.stop()
  }
}

// sync/ owns the engine (one run at a time, run records, sync.completed), the
// schedule and the source registry it drives. Each process builds one service
// over its context (app.ts for `coffer serve`, `coffer sync`, `coffer mcp`) and
// hands it to the doors that trigger syncs beside the context.
import type { ServiceContext } from '../context.js'
import type { RunAccepted } from '../schemas/sync.js'
import { createSources } from '../sources/index.js'
import { SyncEngine } from './engine.js'
import { SyncScheduler } from './scheduler.js'

export type { StartedRun, SyncProgress, SyncRequest } from './engine.js'
export { SyncEngine } from './engine.js'

export class SyncService {
  readonly engine: SyncEngine
  readonly scheduler: SyncScheduler

  constructor(ctx: ServiceContext) {
    this.engine = new SyncEngine(ctx, createSources(), ctx.secrets)
    this.scheduler = new SyncScheduler(ctx, this.engine)
  }

  /** At start: recover runs of dead processes, then start the schedule. */
  async start(): Promise<void> {
    await this.engine.recover()
    this.scheduler.start()
  }

  /** Starts a run of one source (or of all: null), or joins the running one; answers at once. */
  async startRun(source: string | null): Promise<RunAccepted> {
    const started = await this.engine.trigger({ trigger: 'manual', source })
    return { run_id: started.run_id }
  }

  /** Stops the schedule and waits for a run of this process to finish. */
  async stop(): Promise<void> {
    this.scheduler.stop()
    await this.engine.stop()
  }
}

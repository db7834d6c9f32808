// sync/ owns the engine (one run at a time, run records, sync.completed), the
// schedule and the source registry it drives. app.ts starts and stops it; routes,
// the CLI and MCP reach it through syncServiceFor(ctx).
import type { ServiceContext } from '../context.js'
import { secretStoreFor } from '../secrets/store.js'
import { SOURCES } from '../sources/index.js'
import { SyncEngine } from './engine.js'
import { SyncScheduler } from './scheduler.js'

export type { StartedRun, SyncProgress, SyncRequest } from './engine.js'
export { SyncEngine } from './engine.js'

export interface SyncService {
  engine: SyncEngine
  scheduler: SyncScheduler
}

// One service per context (two apps in one process, as in tests, never share one).
const services = new WeakMap<ServiceContext, SyncService>()

export function syncServiceFor(ctx: ServiceContext): SyncService {
  let service = services.get(ctx)
  if (!service) {
    const engine = new SyncEngine(ctx, SOURCES, secretStoreFor(ctx))
    service = { engine, scheduler: new SyncScheduler(ctx, engine) }
    services.set(ctx, service)
  }
  return service
}

/** At start: recover runs of dead processes, then start the schedule. */
export async function startSync(ctx: ServiceContext): Promise<SyncService> {
  const service = syncServiceFor(ctx)
  await service.engine.recover()
  service.scheduler.start()
  return service
}

/** Stops the schedule and waits for a run of this process to finish. */
export async function stopSync(ctx: ServiceContext): Promise<void> {
  const service = services.get(ctx)
  if (!service) return
  service.scheduler.stop()
  await service.engine.stop()
}

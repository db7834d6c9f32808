// The background drainers of the derived data SQLite keeps queued (drainer.ts):
// search documents and summary rollups. `coffer serve` and `coffer mcp` run them.
import type { ServiceContext } from '../context.js'
import { searchIndexer } from './indexer.js'
import { summaryRollupsDrainer } from './rollups.js'

export interface DerivedDataWorkers {
  start(): void
  stop(): Promise<void>
}

export function derivedDataWorkers(ctx: ServiceContext): DerivedDataWorkers {
  const drainers = [searchIndexer(ctx), summaryRollupsDrainer(ctx)]
  return {
    start: () => drainers.forEach((d) => d.start()),
    stop: async () => {
      await Promise.all(drainers.map((d) => d.stop()))
    },
  }
}

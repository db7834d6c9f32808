// `coffer mcp`: MCP over stdio for a local client (SPEC 4.7: no token). stdout
// carries protocol messages only, so the logger writes to stderr. The schedule
// is not started (a running `coffer serve` owns it); sync tools still run syncs.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { LoadResult } from '../config/index.js'
import type { OpenContext } from '../context.js'
import { commandLogger } from '../log.js'
import { derivedDataWorkers } from '../search/derived.js'
import { SearchPool } from '../search/pool/pool.js'
import { SyncService } from '../sync/index.js'
import { buildMcpServer, refuseInvalidParams } from './server.js'
import { guardStdin } from './stdin-guard.js'

/**
 * Serves until the client closes stdin (or a signal arrives), then shuts down.
 * `open` is app.ts's openServiceContext (cli.ts passes it).
 */
export async function runMcpStdio(loaded: LoadResult, open: OpenContext): Promise<void> {
  const { config } = loaded
  const logger = commandLogger(loaded, process.stderr)
  const ctx = await open(config, { logger, source: loaded.source })
  // Not started: the schedule belongs to `coffer serve`; the sync tools still run syncs.
  const sync = new SyncService(ctx)
  const searches = new SearchPool(ctx)
  const server = buildMcpServer({ ctx, sync, searches })
  // A long-lived process keeps the search index and summary rollups current, as `coffer serve` does.
  const derivedData = derivedDataWorkers(ctx)
  derivedData.start()
  // Lines pass the exact-number guard of HTTP bodies before the SDK parses them.
  const transport: StdioServerTransport = new StdioServerTransport(
    guardStdin(process.stdin, (message) => transport.send(message), logger),
  )
  await server.connect(transport)
  refuseInvalidParams(transport)
  logger.info('serving MCP on stdio')

  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve)
    process.stdin.once('close', resolve)
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })
  await server.close()
  // Searches in flight answer 503; the workers close their connections.
  await searches.close()
  // Waits for a sync this process started to finish its run record.
  await sync.stop()
  await derivedData.stop()
  await ctx.close()
  // Releases a stdin still open after a signal, so the process can end.
  process.stdin.destroy()
}

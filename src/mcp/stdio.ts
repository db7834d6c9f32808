// `coffer mcp`: MCP over stdio for a local client (SPEC 4.7: no token). stdout
// carries protocol messages only, so the logger writes to stderr. The schedule
// is not started (a running `coffer serve` owns it); sync tools still run syncs.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
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
  const input = guardStdin(process.stdin, (message) => transport.send(message), logger)
  const transport: StdioServerTransport = new StdioServerTransport(input)
  await server.connect(transport)
  refuseInvalidParams(transport)
  const requests = trackRequests(transport)
  logger.info('serving MCP on stdio')

  await new Promise<void>((resolve) => {
    // The client closed its input: what it sent is answered first (a file of
    // requests piped in gets every answer), then the process ends.
    input.once('end', () => void requests.answered().then(resolve))
    input.once('close', () => void requests.answered().then(resolve))
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

/**
 * The requests the server took and has not answered yet: `answered()` resolves
 * once there are none. A request the client cancels is answered by no one
 * (JSON-RPC), so it stops counting when the cancellation arrives.
 */
function trackRequests(transport: Transport): { answered(): Promise<void> } {
  const open = new Set<string | number>()
  let onIdle: (() => void) | null = null
  const settle = (id: unknown) => {
    if (!open.delete(id as string | number) || open.size > 0) return
    onIdle?.()
    onIdle = null
  }
  const deliver = transport.onmessage
  transport.onmessage = (message, extra) => {
    if ('method' in message) {
      if ('id' in message) open.add(message.id)
      else if (message.method === 'notifications/cancelled') settle(message.params?.requestId)
    }
    deliver?.(message, extra)
  }
  const send = transport.send.bind(transport)
  transport.send = async (message, options) => {
    try {
      await send(message, options)
    } finally {
      if (!('method' in message) && 'id' in message) settle(message.id)
    }
  }
  return {
    answered: () =>
      open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (onIdle = resolve)),
  }
}

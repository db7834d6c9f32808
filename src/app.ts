// The composition root: builds every part from the configuration in order
// (logger, metrics, database, bus, ledger, auth, HTTP) and stops them in reverse.
// The CLI and the integration tests start the service through this same file;
// cli.ts hands openServiceContext to `coffer sync` and `coffer mcp`, so every
// process gets the same context without the doors importing this file.
import type { Logger } from 'pino'
import { Auth } from './auth/index.js'
import { isLoopbackAddr, splitHostPort, type Config, type ConfigSource } from './config/index.js'
import { openContext, type OpenOptions, type ServiceContext } from './context.js'
import { EventRetention } from './events/retention.js'
import type { SseStreams } from './http/sse.js'
import type { App } from './http/types.js'
import type { Clock } from './clock.js'
import { rulesOnNewTransactions } from './rules/new-transactions.js'
import { derivedDataWorkers } from './search/derived.js'
import { searchDocumentsStep } from './search/indexer.js'
import { summaryDaysStep } from './search/rollups.js'
import { SearchPool } from './search/pool/pool.js'
import { PluginService } from './plugins/index.js'
import { applyStoredSettings, Settings } from './settings/service.js'
import { StartupError } from './startup-error.js'
import { SyncService } from './sync/index.js'
import { UpdateService, type RestartRequest } from './update/index.js'
import { WebhookDelivery } from './webhooks/index.js'

/**
 * The context of every command (serve here; sync, mcp and migrate through cli.ts;
 * the tests): context.ts opens it, and what sits above the ledger joins it here,
 * such as the ledger's insert steps, so that every process writes alike.
 */
export async function openServiceContext(
  config: Config,
  options: OpenOptions = {},
): Promise<ServiceContext> {
  const ctx = await openContext(config, options)
  // CONTRACT 10: stored settings win over the file and the environment.
  if (options.source) {
    try {
      await applyStoredSettings(ctx, options.source)
    } catch (error) {
      await ctx.close()
      throw error
    }
  }
  // What every insert of transactions also does, in its unit of work (ledger/unit-of-work.ts).
  ctx.ledger.registerWriteStep(searchDocumentsStep)
  ctx.ledger.registerWriteStep(summaryDaysStep)
  ctx.ledger.registerWriteStep(rulesOnNewTransactions(ctx.log))
  return ctx
}

export interface StartOptions {
  config: Config
  /** The file and environment `config` was read from (settings load them again with stored values). */
  source: ConfigSource
  /**
   * Called once POST /system/restart (or an applied POST /update, with the
   * swap's journal) has answered: the caller (cli.ts) drains this app and
   * starts it again, in this process or, into a new release, as a new one.
   * Without it, both routes answer 503.
   */
  onRestart?: (request?: RestartRequest) => void
  /** Delay of the first release feed check (CONTRACT 10: 15 s); tests shorten it. */
  firstUpdateCheckMs?: number
  /** Whether server.base_url was given, or derived from server.addr (then it follows the real port). */
  baseUrlGiven?: boolean
  clock?: Clock
  logger?: Logger
}

export interface RunningApp {
  /** Where the HTTP server listens, e.g. http://127.0.0.1:41234 */
  url: string
  ctx: ServiceContext
  /** The sync engine and its schedule (beside the context: doors that trigger syncs get it). */
  sync: SyncService
  /** Runs searches in worker threads on SQLite (beside the context: the search doors get it). */
  searches: SearchPool
  auth: Auth
  http: App
  /** Open SSE streams (their caps; tests read their progress). */
  sse: SseStreams
  /** Webhook delivery (tests wait on it with whenSettled). */
  webhooks: WebhookDelivery
  /** The release feed check and self-update. */
  update: UpdateService
  /** Editable settings (CONTRACT 10). */
  settings: Settings
  /** Plugins (CONTRACT 9): tests wait on their hooks through plugins.manager.whenHandled. */
  plugins: PluginService
  /**
   * Stops everything, in order (docs/architecture.md "Shutdown"): the closing
   * signal first, so that long work in flight ends at its next step.
   */
  close(): Promise<void>
  /** The step close() is at (null before it starts): what a hard deadline reports. */
  readonly closingStep: string | null
}

export async function startApp(options: StartOptions): Promise<RunningApp> {
  const { config } = options
  const ctx = await openServiceContext(config, options)
  const { log } = ctx
  const sync = new SyncService(ctx)
  let stopAuth = async () => {}
  try {
    const auth = new Auth(ctx)
    await auth.start()
    stopAuth = () => auth.stop()
    const searches = new SearchPool(ctx)
    // SPEC 5.3: never serve beyond loopback without a token unless told to.
    if (!auth.dashboard.configured) {
      if (!isLoopbackAddr(config.server.addr) && !config.server.allow_unauthenticated) {
        throw new StartupError(
          `server.addr ${config.server.addr} is reachable beyond this machine and no dashboard token is set; ` +
            'set dashboard.token (coffer token prints one) or server.allow_unauthenticated = true',
        )
      }
      log.warn(
        'no dashboard token is configured: read and write routes are open to anyone who can connect; admin routes answer 503',
      )
    }
    // Loaded here, not at the top: `coffer sync` and `coffer mcp` open the same
    // service without the HTTP stack, and start faster and smaller for it.
    const { buildHttpServer } = await import('./http/server.js')
    const { MCP_ROUTES } = await import('./mcp/http.js')
    const update = new UpdateService(ctx)
    const settings = new Settings(ctx, options.source)
    const plugins = new PluginService(ctx, (input) => searches.run(input))
    const { app, sse } = await buildHttpServer(
      { ctx, auth, sync, searches, settings, update, plugins, restart: options.onRestart ?? null },
      config.mcp.enabled ? MCP_ROUTES : [],
    )
    const { host, port } = splitHostPort(config.server.addr)
    // Fastify's own line would read as "ready" before the service is: "listening on" below says that.
    await app.listen({
      host,
      port,
      listenTextResolver: (address) =>
        `http: bound to ${address}; starting the rest of the service`,
    })
    const address = app.server.address()
    const actualPort = typeof address === 'object' && address ? address.port : port
    const urlHost = host.includes(':') ? `[${host}]` : host
    const url = `http://${urlHost}:${actualPort}`
    if (!options.baseUrlGiven) config.server.base_url = url
    const webhooks = new WebhookDelivery(ctx)
    const retention = new EventRetention(ctx)
    const derivedData = derivedDataWorkers(ctx)
    try {
      await webhooks.start()
      await plugins.start()
      // Marks runs of a dead process as interrupted, then starts the schedule.
      await sync.start()
    } catch (error) {
      await app.close()
      await webhooks.stop()
      await plugins.stop()
      throw error
    }
    retention.start()
    derivedData.start()
    update.start(options.firstUpdateCheckMs)
    // Last, once everything runs: tests and scripts take this line as "ready"
    // (CONTRACT 5), and the CLI installs its signal handlers right after.
    log.info(`listening on ${url}`)
    let closed = false
    let closingStep: string | null = null
    const step = (name: string) => {
      closingStep = name
      log.info({ step: name }, 'shutdown: step')
    }
    return {
      url,
      ctx,
      sync,
      searches,
      auth,
      http: app,
      sse,
      webhooks,
      update,
      settings,
      plugins,
      get closingStep() {
        return closingStep
      },
      async close() {
        if (closed) return
        closed = true
        // A search or a rules run's read phase ends at its next page with a 503,
        // a sync after its current unit; new requests are answered 503.
        ctx.signals.beginClosing()
        update.stop()
        step('http: finishing requests, closing streams')
        await app.close()
        await auth.stop()
        // Searches in flight answered 503 when closing began; the workers end.
        step('search workers: closing their connections')
        await searches.close()
        // Waits for a sync of this process to finish its run record.
        step('sync: finishing the current unit and the run record')
        await sync.stop()
        // Before the context closes: in-flight deliveries and the cursor need the database.
        step('webhooks: finishing deliveries')
        await webhooks.stop()
        // Before the context closes: hooks in flight write through the ledger, cursors need the database.
        step('plugins: finishing hooks, saving cursors, stopping sandboxes')
        await plugins.stop()
        step('event retention, search indexer and summary rollups')
        await retention.stop()
        await derivedData.stop()
        step('database: closing')
        await ctx.close()
        closingStep = 'done'
      },
    }
  } catch (error) {
    await sync.stop()
    await stopAuth()
    await ctx.close()
    throw error
  }
}

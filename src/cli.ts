#!/usr/bin/env node
// The `coffer` program (CONTRACT 1): serve, sync, mcp, migrate, token, and the
// ops commands backup, restore, healthcheck (docs/operations.md). The
// program's entry, so it sits on top with the composition root (app.ts): it hands
// app.ts's openServiceContext to `coffer sync` and `coffer mcp`, which load
// without the HTTP stack.
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import type { Logger } from 'pino'
import type { RunningApp } from './app.js'
import { generateDashboardToken } from './auth/dashboard-token.js'
import { ConfigError, defaultConfigPath, loadConfig, type LoadResult } from './config/index.js'
import { commandLogger } from './log.js'
import { keepHeapsSmall } from './cli/heap.js'
import { parseCommandLine, reportUsageError, UsageError } from './cli/usage.js'
import { StartupError } from './startup-error.js'
import { relaunch, reportListening } from './supervisor/index.js'
import type { RestartRequest } from './update/index.js'

const HELP = `coffer — a self-hosted financial ledger

Usage: coffer <command> [--config <path>]

Commands:
  serve     Run the HTTP server (REST, SSE, /mcp, dashboard, scheduler, webhooks)
  sync      Run one sync of every configured source and print a summary
  mcp       Serve MCP over stdio
  migrate   Apply database migrations and exit
  token     Print a freshly generated dashboard token for dashboard.token
  export    Stream transactions as csv, jsonl, ledger or beancount (coffer export --help)
  backup <file> [--portable]
            Write a consistent snapshot of the running service's database
  restore <file>
            Load a backup into an empty database
  healthcheck
            Exit 0 when GET /readyz at server.addr answers 200

Options:
  --config <path>  TOML configuration (default: $COFFER_CONFIG, else ./coffer.toml
                   when it exists)
  --help           Show this help
  --version        Show the version

Every key section.key can also be set with SERVICE_<SECTION>_<KEY>.
\`coffer <command> --help\` (or \`coffer help <command>\`) describes one command.`

const CONFIG_OPTION = `Options:
  --config <path>  TOML configuration (default: $COFFER_CONFIG, else ./coffer.toml
                   when it exists)
  --help           Show this help`

/**
 * The usage of each command that main() parses itself (export, backup and
 * restore print their own): `coffer <command> --help`, and the text that
 * follows the command's usage errors.
 */
const COMMAND_HELP: Record<string, string> = {
  serve: `Usage: coffer serve [--config <path>]

Runs the HTTP server: REST, SSE, /mcp, the dashboard, the scheduler and the
webhooks. Applies database migrations first, logs "listening on http://…", and
stops gracefully on SIGINT or SIGTERM.

${CONFIG_OPTION}`,
  sync: `Usage: coffer sync [--config <path>]

Runs one sync of every configured source (trigger "cli"), prints a summary on
stdout, and exits 1 if the sync failed.

${CONFIG_OPTION}`,
  mcp: `Usage: coffer mcp [--config <path>]

Serves MCP over stdio, one JSON-RPC message per line, until its input closes;
logs go to stderr.

${CONFIG_OPTION}`,
  migrate: `Usage: coffer migrate [--config <path>]

Applies the database migrations and exits.

${CONFIG_OPTION}`,
  token: `Usage: coffer token

Prints a freshly generated dashboard token, to put in dashboard.token.`,
  healthcheck: `Usage: coffer healthcheck [--config <path>]

Exits 0 when GET /readyz at server.addr answers 200, else 1 with a one-line
reason.

${CONFIG_OPTION}`,
}

/** Whether main() runs `name` itself (export, backup and restore parse their own). */
function isCommand(name: string | undefined): boolean {
  return name !== undefined && Object.hasOwn(COMMAND_HELP, name)
}

/** The usage shown for `command`: its own, or the program's when there is none. */
function usageOf(command: string | undefined): string {
  return (isCommand(command) && COMMAND_HELP[command!]) || HELP
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
  return pkg.version
}

function readConfig(path: string | undefined): LoadResult {
  // --config wins over COFFER_CONFIG, which wins over ./coffer.toml.
  const fromEnv = process.env.COFFER_CONFIG || undefined
  const file = path ?? fromEnv ?? defaultConfigPath(process.cwd())
  return loadConfig({ file, env: process.env })
}

/**
 * How long a graceful shutdown may take before the process exits anyway; with
 * the last try at closing the database it stays within CONTRACT's 10 s.
 */
const SHUTDOWN_DEADLINE_MS = 9_000
const SHUTDOWN_CLOSE_DB_MS = 500

/**
 * `coffer serve`: runs the service until SIGINT or SIGTERM. POST /system/restart
 * and an applied POST /update (CONTRACT 10) drain it like a signal, then run the
 * same command again as a new process under the same PID (src/supervisor/), on
 * the same address: docs/operations.md "Restart".
 */
async function serve(configPath: string | undefined): Promise<void> {
  interface Running {
    app: RunningApp
    logger: Logger
    /** Resolves when POST /system/restart, or an applied POST /update, has answered. */
    restartAsked: Promise<RestartRequest | undefined>
    draining: Promise<void> | null
  }

  const start = async (): Promise<Running> => {
    const loaded = readConfig(configPath)
    const logger = commandLogger(loaded)
    let ask: (request?: RestartRequest) => void = () => {}
    const restartAsked = new Promise<RestartRequest | undefined>((resolve) => (ask = resolve))
    const { startApp } = await import('./app.js')
    const app = await startApp({
      config: loaded.config,
      source: loaded.source,
      logger,
      baseUrlGiven: loaded.origins['server.base_url'] !== 'default',
      onRestart: (request) => ask(request),
    })
    reportListening(app.url)
    return { app, logger, restartAsked, draining: null }
  }

  /** Closes the running app (once, whoever asks), bounded like a shutdown. */
  const drain = (running: Running, reason: string): Promise<void> => {
    if (running.draining) return running.draining
    const { app, logger } = running
    logger.info({ reason, deadline_ms: SHUTDOWN_DEADLINE_MS }, `${reason}: draining`)
    // The bound (docs/architecture.md "Shutdown"): whatever is still running at
    // the deadline is left; committed data is safe (SQLite WAL, PostgreSQL).
    // For a restart too: the process then exits 1, and a supervisor starts it.
    const deadline = setTimeout(() => {
      logger.error(
        { step: app.closingStep, deadline_ms: SHUTDOWN_DEADLINE_MS },
        'shutdown: deadline reached, exiting with work still running',
      )
      const exit = () => process.exit(1)
      setTimeout(exit, SHUTDOWN_CLOSE_DB_MS).unref()
      app.ctx.db.close().then(exit, exit)
    }, SHUTDOWN_DEADLINE_MS)
    deadline.unref()
    running.draining = app.close().finally(() => clearTimeout(deadline))
    return running.draining
  }

  // The handlers go in before the service starts: a SIGTERM sent as soon as the
  // "listening" line shows (a test, a supervisor) must drain, not kill outright.
  let current: Running | null = null
  let signalledEarly: string | null = null
  let stopping = false
  const stop = (signal: string) => {
    if (!current) {
      if (signalledEarly) process.exit(1)
      signalledEarly = signal
      return
    }
    const { app, logger } = current
    if (stopping) {
      // A second signal: the operator does not want to wait.
      logger.warn({ signal, step: app.closingStep }, 'shutdown: second signal, exiting now')
      process.exit(1)
    }
    stopping = true
    logger.info({ signal }, 'shutting down (a second signal exits at once)')
    drain(current, signal).then(
      () => {
        logger.info('shutdown complete')
        process.exit(0)
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  current = await start()
  if (signalledEarly) stop(signalledEarly)

  const request = await current.restartAsked
  if (stopping) return
  // Nothing else may hold the event loop between the close and the relaunch.
  const keepAlive = setInterval(() => {}, 1_000)
  const reason = request?.journal ? 'update' : 'restart'
  try {
    await drain(current, reason)
  } finally {
    clearInterval(keepAlive)
  }
  if (stopping) return
  // The same command as a new process (src/supervisor/): the code on disk (a new
  // release after an update), the config file, the environment and the stored
  // settings are all read afresh. Only a signal ends what follows.
  await relaunch({ reason, journal: request?.journal }, current.logger)
}

async function migrate(loaded: LoadResult): Promise<void> {
  // As the other commands: the configuration's warnings first, logs on stderr.
  const logger = commandLogger(loaded, process.stderr)
  const { openServiceContext } = await import('./app.js')
  const ctx = await openServiceContext(loaded.config, { logger })
  await ctx.close()
  logger.info(`database is up to date (${loaded.config.database.driver})`)
}

async function main(argv: string[]): Promise<number> {
  const options = {
    config: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
  } as const
  // export, backup and restore read their own arguments, wherever the command
  // word stands among them (`coffer --config c.toml export --format csv`).
  const word = parseArgs({
    args: argv,
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  }).tokens.find((token) => token.kind === 'positional')
  const first = word?.value
  if (word && first === 'export') {
    const { runExportCommand } = await import('./export/cli.js')
    const { openServiceContext } = await import('./app.js')
    const args = argv.filter((_, index) => index !== word.index)
    return runExportCommand(args, readConfig, openServiceContext)
  }
  if (first === 'backup' || first === 'restore') {
    const { runBackupCli } = await import('./cli/backup.js')
    return runBackupCli(first, argv, readConfig)
  }
  const { values, positionals } = parseCommandLine(
    isCommand(first) ? `coffer ${first}` : 'coffer',
    { args: argv, options, allowPositionals: true },
    usageOf(first),
  )
  if (values.version) {
    console.log(version())
    return 0
  }
  const command = positionals[0]
  if (command === 'help' && positionals.length === 2) {
    // `coffer help <command>`: as `coffer <command> --help`.
    return main([positionals[1]!, '--help'])
  }
  if (command !== undefined && command !== 'help' && !isCommand(command)) {
    throw new UsageError(`coffer: unknown command "${command}"`, HELP)
  }
  if (values.help || command === undefined || command === 'help') {
    console.log(usageOf(command))
    return command === undefined && !values.help ? 2 : 0
  }
  // No command takes an argument besides its options (export, backup and restore
  // read their own above).
  if (positionals.length > 1) {
    throw new UsageError(
      `coffer ${command}: unexpected argument "${positionals[1]}"`,
      usageOf(command),
    )
  }
  switch (command) {
    case 'token':
      console.log(generateDashboardToken())
      return 0
    case 'serve':
      // Resolves only when a signal stops it (the process then exits).
      await serve(values.config)
      return -1
    case 'migrate':
      await migrate(readConfig(values.config))
      return 0
    // Each command loads only what it runs: a sync has no use for the HTTP stack,
    // a healthcheck or a backup none for the services (app.ts), whose modules
    // take a start about a second of CPU to load.
    case 'sync': {
      const { runSyncCommand } = await import('./sync/cli.js')
      const { openServiceContext } = await import('./app.js')
      return runSyncCommand(readConfig(values.config), openServiceContext)
    }
    case 'mcp': {
      const { runMcpStdio } = await import('./mcp/stdio.js')
      const { openServiceContext } = await import('./app.js')
      await runMcpStdio(readConfig(values.config), openServiceContext)
      return 0
    }
    case 'healthcheck': {
      const { runHealthcheckCommand } = await import('./cli/healthcheck.js')
      return runHealthcheckCommand(readConfig(values.config))
    }
    default:
      throw new UsageError(`coffer: unknown command "${command}"`, HELP)
  }
}

keepHeapsSmall()
main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.exitCode = reportUsageError(error)
      return
    }
    if (error instanceof ConfigError || error instanceof StartupError) {
      console.error(`coffer: ${error.message}`)
    } else {
      console.error('coffer: failed:', error instanceof Error ? error.message : error)
    }
    process.exitCode = 1
  },
)

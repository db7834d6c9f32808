#!/usr/bin/env node
// The `coffer` program (CONTRACT 1): serve, sync, mcp, migrate, token. The
// program's entry, so it sits on top with the composition root (app.ts): it hands
// app.ts's openServiceContext to `coffer sync` and `coffer mcp`, which load
// without the HTTP stack.
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { openServiceContext, startApp, StartupError } from './app.js'
import { generateDashboardToken } from './auth/dashboard-token.js'
import { ConfigError, defaultConfigPath, loadConfig, type LoadResult } from './config/index.js'
import { commandLogger, createLogger } from './log.js'

const HELP = `coffer — a self-hosted financial ledger

Usage: coffer <command> [--config <path>]

Commands:
  serve     Run the HTTP server (REST, SSE, /mcp, dashboard, scheduler, webhooks)
  sync      Run one sync of every configured source and print a summary
  mcp       Serve MCP over stdio
  migrate   Apply database migrations and exit
  token     Print a freshly generated dashboard token for dashboard.token

Options:
  --config <path>  TOML configuration (default: ./coffer.toml when it exists)
  --help           Show this help
  --version        Show the version

Every key section.key can also be set with SERVICE_<SECTION>_<KEY>.`

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
  return pkg.version
}

function readConfig(path: string | undefined): LoadResult {
  const file = path ?? defaultConfigPath(process.cwd())
  return loadConfig({ file, env: process.env })
}

/**
 * How long a graceful shutdown may take before the process exits anyway; with
 * the last try at closing the database it stays within CONTRACT's 10 s.
 */
const SHUTDOWN_DEADLINE_MS = 9_000
const SHUTDOWN_CLOSE_DB_MS = 500

async function serve(loaded: LoadResult): Promise<void> {
  const { config } = loaded
  const logger = commandLogger(loaded)
  const app = await startApp({
    config,
    logger,
    baseUrlGiven: loaded.origins['server.base_url'] !== 'default',
  })
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) {
      // A second signal: the operator does not want to wait.
      logger.warn({ signal, step: app.closingStep }, 'shutdown: second signal, exiting now')
      process.exit(1)
    }
    stopping = true
    logger.info(
      { signal, deadline_ms: SHUTDOWN_DEADLINE_MS },
      'shutting down (a second signal exits at once)',
    )
    // The bound (docs/architecture.md "Shutdown"): whatever is still running at
    // the deadline is left; committed data is safe (SQLite WAL, PostgreSQL).
    setTimeout(() => {
      logger.error(
        { step: app.closingStep, deadline_ms: SHUTDOWN_DEADLINE_MS },
        'shutdown: deadline reached, exiting with work still running',
      )
      const exit = () => process.exit(1)
      setTimeout(exit, SHUTDOWN_CLOSE_DB_MS).unref()
      app.ctx.db.close().then(exit, exit)
    }, SHUTDOWN_DEADLINE_MS).unref()
    app.close().then(
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
}

async function migrate(loaded: LoadResult): Promise<void> {
  const logger = createLogger({ level: loaded.config.log.level, format: loaded.config.log.format })
  const ctx = await openServiceContext(loaded.config, { logger })
  await ctx.close()
  logger.info(`database is up to date (${loaded.config.database.driver})`)
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
    allowPositionals: true,
  })
  if (values.version) {
    console.log(version())
    return 0
  }
  const command = positionals[0]
  if (values.help || command === undefined || command === 'help') {
    console.log(HELP)
    return command === undefined && !values.help ? 2 : 0
  }
  switch (command) {
    case 'token':
      console.log(generateDashboardToken())
      return 0
    case 'serve':
      await serve(readConfig(values.config))
      return -1 // keeps running until a signal
    case 'migrate':
      await migrate(readConfig(values.config))
      return 0
    // Each command loads only what it runs (a sync has no use for the HTTP stack).
    case 'sync': {
      const { runSyncCommand } = await import('./sync/cli.js')
      return runSyncCommand(readConfig(values.config), openServiceContext)
    }
    case 'mcp': {
      const { runMcpStdio } = await import('./mcp/stdio.js')
      await runMcpStdio(readConfig(values.config), openServiceContext)
      return 0
    }
    default:
      console.error(`coffer: unknown command "${command}"\n\n${HELP}`)
      return 2
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code
  },
  (error: unknown) => {
    if (error instanceof ConfigError || error instanceof StartupError) {
      console.error(`coffer: ${error.message}`)
    } else if (
      error instanceof Error &&
      'code' in error &&
      String(error.code).startsWith('ERR_PARSE_ARGS')
    ) {
      console.error(`coffer: ${error.message}\n\n${HELP}`)
    } else {
      console.error('coffer: failed:', error instanceof Error ? error.message : error)
    }
    process.exitCode = 1
  },
)

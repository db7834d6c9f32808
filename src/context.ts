// What every service function receives first: the handles built once per process.
// Passing it explicitly (instead of module state) lets tests fix the clock and
// lets REST, MCP and the CLI call the same functions. It holds only what layers
// up to the ledger provide; the sync service sits above it and is handed to the
// doors that trigger syncs beside the context. Every command opens it through
// app.ts's openServiceContext (openContext plus what sits above the ledger), which
// cli.ts hands to `coffer sync` and `coffer mcp`.
import type { Logger } from 'pino'
import type { Config, ConfigSource } from './config/index.js'
import { openDatabase, type Db } from './db/connect.js'
import { migrateToLatest, newerMigrations } from './db/migrate.js'
import { EventBus } from './events/bus.js'
import { LogTail } from './events/publisher.js'
import { Ledger } from './ledger/mutate.js'
import { systemClock, type Clock } from './clock.js'
import { createLogger } from './log.js'
import { createMetrics, type Metrics } from './metrics.js'
import { openSecretStore, type SecretStore } from './secrets/store.js'
import { Signals } from './signals.js'

export interface ServiceContext {
  config: Config
  db: Db
  bus: EventBus
  ledger: Ledger
  clock: Clock
  log: Logger
  metrics: Metrics
  /** Third-party credentials (the drive refresh token, the SimpleFIN access URL). */
  secrets: SecretStore
  /** In-process notices between parts, such as "the webhook registry changed". */
  signals: Signals
  /** Stops event publishing and closes the database (stop a sync service first). */
  close(): Promise<void>
}

export interface OpenOptions {
  clock?: Clock | undefined
  logger?: Logger | undefined
  /**
   * The file and environment `config` was read from: given, app.ts's
   * openServiceContext puts the stored settings over them (settings/).
   */
  source?: ConfigSource | undefined
}

/** How a command opens its context (app.ts openServiceContext, passed in by cli.ts). */
export type OpenContext = (config: Config, options?: OpenOptions) => Promise<ServiceContext>

/** Opens the database, applies migrations and starts publishing events. */
export async function openContext(
  config: Config,
  options: OpenOptions = {},
): Promise<ServiceContext> {
  const log = options.logger ?? createLogger({ level: config.log.level, format: config.log.format })
  const metrics = createMetrics()
  const db = openDatabase(config.database, log)
  try {
    const started = performance.now()
    const migrations = await migrateToLatest(db)
    const applied = migrations.filter((m) => m.applied).map((m) => m.name)
    // An upgrade may copy tables (migration 0014 takes seconds at a million
    // rows): say what held the start. A new database's schema is no news.
    if (applied.length > 0 && applied.length < migrations.length) {
      const ms = Math.round(performance.now() - started)
      log.info({ migrations: applied, ms }, 'db: schema upgraded')
    }
    // An older Coffer on a database a newer one upgraded (an update put back, a
    // downgrade by hand): it runs, but the operator should know.
    const newer = await newerMigrations(db.kysely)
    if (newer.length > 0) {
      log.warn(
        { migrations: newer },
        `db: this database was upgraded by a newer Coffer (migrations ${newer.join(', ')} are unknown to this version); ` +
          'it runs on it as it is: install that version again, or restore a backup made by this one',
      )
    }
  } catch (error) {
    await db.close()
    throw error
  }
  const bus = new EventBus(() => metrics.eventsDropped.inc())
  const clock = options.clock ?? systemClock
  const onPublish = (count: number) => metrics.eventsPublished.inc(count)
  const publisher = new LogTail({ db, dsn: config.database.dsn, bus, log, onPublish })
  try {
    await publisher.start()
  } catch (error) {
    await db.close()
    throw error
  }
  const ledger = new Ledger({ db, publisher, clock, eventsEnabled: () => config.events.enabled })
  return {
    config,
    db,
    bus,
    ledger,
    clock,
    log,
    metrics,
    secrets: openSecretStore(config, db, clock),
    signals: new Signals(),
    async close() {
      await publisher.stop()
      bus.closeAll()
      await db.close()
    },
  }
}

// What every service function receives first: the handles app.ts builds once.
// Passing it explicitly (instead of module state) lets tests fix the clock and
// lets REST, MCP and the CLI call the same functions.
import type { Logger } from 'pino'
import type { Config } from './config/index.js'
import type { Db } from './db/connect.js'
import type { EventBus } from './events/bus.js'
import type { Ledger } from './ledger/mutate.js'
import type { Clock } from './ledger/time.js'
import type { Metrics } from './metrics.js'
import type { SecretStore } from './secrets/store.js'
import type { SyncService } from './sync/index.js'
import type { Signals } from './signals.js'

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
  /** The sync engine and its schedule (started by `coffer serve`, driven by every door). */
  sync: SyncService
  /** In-process notices between parts, such as "the webhook registry changed". */
  signals: Signals
  /** Stops syncing and event publishing, and closes the database. */
  close(): Promise<void>
}

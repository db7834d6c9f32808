// What the event log's services need of the service context. events/ sits below
// ledger/ (where the full ServiceContext is declared), so it names only these
// handles; the full context fits wherever this is asked for.
import type { Logger } from 'pino'
import type { Config } from '../config/index.js'
import type { Db } from '../db/connect.js'

export interface EventsContext {
  config: Config
  db: Db
  log: Logger
  clock: { now(): Date }
}

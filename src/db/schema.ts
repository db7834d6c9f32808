// Every table of the database, combined from the folders that own them.
import type { AuthTables } from '../auth/tables.js'
import type { DbTables } from './tables.js'
import type { EventTables } from '../events/tables.js'
import type { LedgerTables } from '../ledger/tables.js'
import type { PluginTables } from '../plugins/tables.js'
import type { RuleTables } from '../rules/tables.js'
import type { SecretTables } from '../secrets/tables.js'
import type { SettingTables } from '../settings/tables.js'
import type { SyncTables } from '../sync/tables.js'
import type { WebhookTables } from '../webhooks/tables.js'

export interface Database
  extends
    LedgerTables,
    EventTables,
    AuthTables,
    SyncTables,
    SecretTables,
    SettingTables,
    WebhookTables,
    RuleTables,
    PluginTables,
    DbTables {}

import { PostgresAdapter, type Kysely, type Transaction } from 'kysely'

/** A handle a query function runs on: the database, or a unit of work's transaction. */
export type DbExecutor = Kysely<Database> | Transaction<Database>

/**
 * Which engine a handle runs on, for the few statements written per engine.
 * Only db/ asks this: other folders ask a named question of db/dialect.ts.
 * (The union is spelled out, not imported from connect.ts, which imports this file.)
 */
export function dialectOf(db: DbExecutor): 'sqlite' | 'postgres' {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite'
}

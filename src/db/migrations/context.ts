// What the runner (../migrate.ts) hands each migration: a file of its own so
// that the migrations and the runner that lists them do not import each other.
import type { DialectName } from '../connect.js'

export interface MigrationContext {
  dialect: DialectName
}

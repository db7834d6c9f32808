// Opens the database named by the configuration: SQLite (better-sqlite3, WAL) by
// default, PostgreSQL (pg) when database.driver = "postgres". Everything above
// this file speaks Kysely and never asks which engine it is on, except through
// `dialect` for the few statements that differ.
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely'
import pg from 'pg'
import type { Database } from './schema.js'

export type DialectName = 'sqlite' | 'postgres'

export interface DatabaseOptions {
  driver: DialectName
  path: string
  dsn: string | null
}

export interface Db {
  kysely: Kysely<Database>
  dialect: DialectName
  /** Answers true when a trivial query succeeds (readiness). */
  ping(): Promise<boolean>
  close(): Promise<void>
}

// int8 (sequences, counts) comes back as text by default; our values fit a double.
pg.types.setTypeParser(20, (text) => Number.parseInt(text, 10))

export function openDatabase(options: DatabaseOptions): Db {
  return options.driver === 'postgres' ? openPostgres(options) : openSqlite(options)
}

function openSqlite(options: DatabaseOptions): Db {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true })
  const sqlite = new SqliteDatabase(options.path)
  // WAL lets readers run beside the writer; synchronous=NORMAL in WAL mode loses
  // nothing when the process dies (only on power loss), which is our promise.
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('busy_timeout = 5000')
  sqlite.pragma('foreign_keys = ON')
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) })
  return {
    kysely,
    dialect: 'sqlite',
    ping: () => pingWith(kysely),
    close: () => kysely.destroy(),
  }
}

function openPostgres(options: DatabaseOptions): Db {
  if (!options.dsn) throw new Error('database.dsn is required when database.driver = "postgres"')
  const pool = new pg.Pool({ connectionString: options.dsn, max: 10 })
  // An idle client that loses its server must not crash the process.
  pool.on('error', () => undefined)
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  return {
    kysely,
    dialect: 'postgres',
    ping: () => pingWith(kysely),
    close: () => kysely.destroy(),
  }
}

async function pingWith(kysely: Kysely<Database>): Promise<boolean> {
  try {
    await sql`select 1`.execute(kysely)
    return true
  } catch {
    return false
  }
}

// One migration list serves both engines: after migrating, SQLite and PostgreSQL
// must end with the same tables, columns and named indexes.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import SqliteDatabase from '../src/db/sqlite-binding.js'
import pg from 'pg'
import { openDatabase } from '../src/db/connect.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { POSTGRES_DSN, dropSchema } from './helpers/app.js'

interface Shape {
  columns: string[]
  indexes: string[]
}

const IGNORED_TABLES = new Set(['kysely_migration', 'kysely_migration_lock', 'sqlite_sequence'])

// The search index is engine-specific by design (migration 0004, docs/search.md):
// SQLite keeps an FTS5 trigram table and REAL amount indexes, PostgreSQL pg_trgm
// GIN indexes and a numeric amount index. The summary rollups (migration 0008,
// docs/search.md "Rollups") exist only on SQLite: PostgreSQL sums the rows in the
// database. The FTS5 documents are numbered on the transactions' rows (migration
// 0015). Everything else must match.
const SQLITE_ONLY_TABLE = /^(search|summary)_/
const SQLITE_ONLY_COLUMNS = new Set(['transactions.search_n'])
const SQLITE_ONLY_INDEXES = new Set([
  'transactions_amount_bucket',
  'transactions_date_amount_real',
  'transactions_search_n',
])
const SQLITE_ONLY_INDEX = /^(search|summary)_/
const POSTGRES_ONLY_INDEXES = new Set([
  'transactions_amount_numeric',
  'transactions_text_trgm',
  'transaction_labels_text_trgm',
  'transaction_extensions_text_trgm',
])

function sqliteShape(path: string): Shape {
  const db = new SqliteDatabase(path, { readonly: true })
  try {
    const tables = (
      db.prepare(`select name from sqlite_master where type = 'table'`).all() as Array<{
        name: string
      }>
    )
      .map((t) => t.name)
      .filter(
        (name) =>
          !IGNORED_TABLES.has(name) && !name.startsWith('sqlite_') && !SQLITE_ONLY_TABLE.test(name),
      )
    const columns = tables
      .flatMap((table) =>
        (db.prepare(`pragma table_info(${table})`).all() as Array<{ name: string }>).map(
          (c) => `${table}.${c.name}`,
        ),
      )
      .filter((column) => !SQLITE_ONLY_COLUMNS.has(column))
    const indexes = (
      db
        .prepare(
          `select name from sqlite_master where type = 'index' and name not like 'sqlite_autoindex%'`,
        )
        .all() as Array<{
        name: string
      }>
    )
      .map((i) => i.name)
      .filter((name) => !SQLITE_ONLY_INDEXES.has(name) && !SQLITE_ONLY_INDEX.test(name))
    return { columns: columns.sort(), indexes: indexes.sort() }
  } finally {
    db.close()
  }
}

function sqliteObjectsNamed(path: string, prefix: string): string[] {
  const db = new SqliteDatabase(path, { readonly: true })
  try {
    return (
      db.prepare(`select name from sqlite_master where name like ?`).all(`${prefix}%`) as Array<{
        name: string
      }>
    ).map((r) => r.name)
  } finally {
    db.close()
  }
}

async function postgresShape(schema: string): Promise<Shape> {
  const client = new pg.Client({ connectionString: POSTGRES_DSN! })
  await client.connect()
  try {
    const columns = await client.query<{ t: string; c: string }>(
      `select table_name as t, column_name as c from information_schema.columns where table_schema = $1`,
      [schema],
    )
    // Primary keys and UNIQUE constraints get engine-specific names; compare the named indexes.
    const indexes = await client.query<{ n: string }>(
      `select c.relname as n
         from pg_index x
         join pg_class c on c.oid = x.indexrelid
         join pg_namespace ns on ns.oid = c.relnamespace
        where ns.nspname = $1
          and not exists (select 1 from pg_constraint k where k.conindid = x.indexrelid)`,
      [schema],
    )
    return {
      columns: columns.rows
        .filter((r) => !IGNORED_TABLES.has(r.t))
        .map((r) => `${r.t}.${r.c}`)
        .sort(),
      indexes: indexes.rows
        .map((r) => r.n)
        .filter((name) => !POSTGRES_ONLY_INDEXES.has(name))
        .sort(),
    }
  } finally {
    await client.end()
  }
}

test(
  'SQLite and PostgreSQL end with the same schema',
  { skip: !POSTGRES_DSN && 'COFFER_TEST_POSTGRES_DSN not set' },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coffer-schema-'))
    const schema = `schema_${Date.now().toString(36)}`
    const admin = new pg.Client({ connectionString: POSTGRES_DSN! })
    await admin.connect()
    await admin.query(`create schema ${schema}`)
    await admin.end()
    try {
      const lite = openDatabase({ driver: 'sqlite', path: join(dir, 'c.db'), dsn: null })
      await migrateToLatest(lite)
      await lite.close()
      const url = new URL(POSTGRES_DSN!)
      url.searchParams.set('options', `-c search_path=${schema}`)
      const pgDb = openDatabase({ driver: 'postgres', path: '', dsn: url.toString() })
      await migrateToLatest(pgDb)
      await pgDb.close()

      const sqlite = sqliteShape(join(dir, 'c.db'))
      const postgres = await postgresShape(schema)
      assert.ok(sqlite.columns.length > 20)
      assert.deepEqual(postgres.columns, sqlite.columns)
      assert.deepEqual(postgres.indexes, sqlite.indexes)
      // The engine-specific search objects exist where they should.
      assert.ok(sqliteObjectsNamed(join(dir, 'c.db'), 'search').includes('search_text'))
      const rollups = sqliteObjectsNamed(join(dir, 'c.db'), 'summary_')
      for (const table of ['summary_days', 'summary_months', 'summary_pending']) {
        assert.ok(rollups.includes(table), `${table} on SQLite`)
      }
    } finally {
      await dropSchema(schema)
      rmSync(dir, { recursive: true, force: true })
    }
  },
)

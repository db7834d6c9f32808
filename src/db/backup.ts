// Backup and restore of the database (docs/operations.md "Backup and restore").
// A backup is either a SQLite file (the online backup API, SQLite's fast path)
// or a portable logical dump: gzipped JSON lines, a header then the rows of each
// table, read inside one snapshot (PostgreSQL REPEATABLE READ, a SQLite read
// transaction). Both kinds restore into either engine: a SQLite file is read
// through the same snapshot reader as a live database, so one loader serves all.
//
// What is copied: every table of Coffer's schema except the derived ones (the
// search documents and summary rollups, rebuilt after a restore), the migration
// list (it travels in the header) and the secret store (`secrets`, and the
// short-lived OAuth states): third-party credentials never travel in a backup.
import { createReadStream, createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { pipeline } from 'node:stream/promises'
import { createGunzip, createGzip } from 'node:zlib'
import { sql, type ControlledTransaction, type Kysely } from 'kysely'
import { insertRowsChunked } from './bulk.js'
import { openSqliteReader, type Db, type DialectName } from './connect.js'
import { appliedMigrationNames, knownMigrationNames, migrateToLatest } from './migrate.js'
import { recountTransactions } from './migrations/0016-transaction-counts.js'
import type { Database } from './schema.js'
import SqliteDatabase from './sqlite-binding.js'

/** The first line's `format`; `version` changes when the layout of the lines does. */
export const BACKUP_FORMAT = 'coffer-backup'
export const BACKUP_FORMAT_VERSION = 1

/** Tables left out of every backup: rebuilt from the rest, carried in the header, or secret. */
const EXCLUDED_TABLES = new Set([
  'coffer_migrations',
  'secrets',
  'oauth_states',
  // Derived (migrations 0004 and 0008): requeued after a restore, rebuilt by the service.
  'search_documents',
  'search_pending',
  'search_keys_pending',
  'summary_days',
  'summary_months',
  'summary_pending',
  // Kept with every write of transactions (migration 0016): counted again after a restore.
  'transaction_counts',
])
/**
 * Columns left out of every backup: derived, and SQLite's alone (a backup
 * restores on either engine). The search documents' numbers (migration 0015)
 * are given again as the documents are rebuilt after a restore.
 */
const EXCLUDED_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  transactions: ['search_n'],
}
/** The FTS5 tables of migrations 0004 and 0012 and their shadow tables (search_text_data, ...). */
const EXCLUDED_PREFIXES = ['search_text', 'search_keys', 'sqlite_']

/** Rows read per round trip from the source. */
const READ_CHUNK_ROWS = 1000

export interface BackupTable {
  name: string
  columns: string[]
  rows: number
}

/** The first line of a logical dump (and what a SQLite backup file is read as). */
export interface BackupHeader {
  format: typeof BACKUP_FORMAT
  version: number
  engine: DialectName
  created_at: string
  /** The applied migrations, in order: the schema the rows belong to. */
  migrations: string[]
  tables: BackupTable[]
}

/** Where a snapshot's rows go: a file, or a database being restored. */
export interface BackupSink {
  header(header: BackupHeader): Promise<void>
  rows(table: BackupTable, rows: unknown[][]): Promise<void>
}

/** The result of a backup or a restore: rows per table and the last event's sequence. */
export interface BackupSummary {
  tables: Array<{ name: string; rows: number }>
  event_head: number
}

export interface Progress {
  (done: number, total: number, what: string): void
}

/** What a restore refuses: a target that holds data, or a backup it cannot read. */
export class RestoreRefused extends Error {
  override name = 'RestoreRefused'
}

/** Every table of the database (Coffer's schema on PostgreSQL). */
async function tableNames(db: Kysely<Database>, dialect: DialectName): Promise<string[]> {
  const rows =
    dialect === 'postgres'
      ? await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)
  return rows.rows.map((r) => r.name)
}

/** Coffer's tables in the database that a backup copies, sorted by name. */
export async function backupTableNames(db: Kysely<Database>, dialect: DialectName) {
  return (await tableNames(db, dialect))
    .filter((n) => !EXCLUDED_TABLES.has(n) && !EXCLUDED_PREFIXES.some((p) => n.startsWith(p)))
    .sort()
}

async function columnNames(
  db: Kysely<Database>,
  dialect: DialectName,
  table: string,
): Promise<string[]> {
  const rows =
    dialect === 'postgres'
      ? await sql<{ name: string }>`select column_name as name from information_schema.columns
          where table_schema = current_schema() and table_name = ${table}
          order by ordinal_position`.execute(db)
      : await sql<{
          name: string
        }>`select name from pragma_table_info(${table}) order by cid`.execute(db)
  const excluded = EXCLUDED_COLUMNS[table] ?? []
  return rows.rows.map((r) => r.name).filter((name) => !excluded.includes(name))
}

async function countRows(db: Kysely<Database>, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.id(
    table,
  )}`.execute(db)
  return Number(rows[0]?.n ?? 0)
}

async function eventHead(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{
    head: number | string | null
  }>`select max(sequence) as head from events`.execute(db)
  return Number(rows[0]?.head ?? 0)
}

/**
 * Reads one consistent snapshot of `db` into `sink`: the header (tables, their
 * columns and row counts, the migrations), then every table's rows in chunks.
 * PostgreSQL: one REPEATABLE READ, READ ONLY transaction with a cursor per
 * table. SQLite: one read transaction (a deferred BEGIN on a reader connection,
 * never the write lock), paged by rowid.
 */
export async function readSnapshot(
  db: Kysely<Database>,
  dialect: DialectName,
  sink: BackupSink,
): Promise<BackupSummary> {
  const reading = db.transaction()
  return (dialect === 'postgres' ? reading.setIsolationLevel('repeatable read') : reading).execute(
    async (trx) => {
      if (dialect === 'postgres') await sql`set transaction read only`.execute(trx)
      const tables: BackupTable[] = []
      for (const name of await backupTableNames(trx, dialect)) {
        tables.push({
          name,
          columns: await columnNames(trx, dialect, name),
          rows: await countRows(trx, name),
        })
      }
      await sink.header({
        format: BACKUP_FORMAT,
        version: BACKUP_FORMAT_VERSION,
        engine: dialect,
        created_at: new Date().toISOString(),
        migrations: await appliedMigrationNames(trx),
        tables,
      })
      for (const table of tables) {
        if (dialect === 'postgres') await readTablePostgres(trx, table, sink)
        else await readTableSqlite(trx, table, sink)
      }
      return {
        tables: tables.map((t) => ({ name: t.name, rows: t.rows })),
        event_head: await eventHead(trx),
      }
    },
  )
}

function selectColumns(table: BackupTable) {
  return sql.join(table.columns.map((c) => sql.id(c)))
}

async function readTablePostgres(db: Kysely<Database>, table: BackupTable, sink: BackupSink) {
  await sql`declare backup_rows no scroll cursor for select ${selectColumns(table)} from ${sql.id(
    table.name,
  )}`.execute(db)
  for (;;) {
    const { rows } = await sql<Record<string, unknown>>`fetch forward ${sql.raw(
      String(READ_CHUNK_ROWS),
    )} from backup_rows`.execute(db)
    if (rows.length === 0) break
    await sink.rows(
      table,
      rows.map((r) => table.columns.map((c) => r[c])),
    )
  }
  await sql`close backup_rows`.execute(db)
}

async function readTableSqlite(db: Kysely<Database>, table: BackupTable, sink: BackupSink) {
  let after: number | null = null
  for (;;) {
    const { rows }: { rows: Array<Record<string, unknown>> } = await sql<
      Record<string, unknown>
    >`select rowid as backup_rowid, ${selectColumns(table)} from ${sql.id(table.name)}
        ${after === null ? sql`` : sql`where rowid > ${after}`}
        order by rowid limit ${READ_CHUNK_ROWS}`.execute(db)
    if (rows.length === 0) break
    after = Number(rows[rows.length - 1]!.backup_rowid)
    await sink.rows(
      table,
      rows.map((r) => table.columns.map((c) => r[c])),
    )
  }
}

/** A sink writing the logical format: gzipped JSON lines (docs/operations.md). */
export async function writeLogicalBackup(
  read: (sink: BackupSink) => Promise<BackupSummary>,
  file: string,
  progress?: Progress,
): Promise<BackupSummary> {
  const gzip = createGzip()
  const written = pipeline(gzip, createWriteStream(file, { mode: 0o600 }))
  let total = 0
  let done = 0
  let current: string | null = null
  const push = async (value: unknown) => {
    if (!gzip.write(`${JSON.stringify(value)}\n`)) await once(gzip, 'drain')
  }
  try {
    const summary = await read({
      async header(header) {
        total = header.tables.reduce((n, t) => n + t.rows, 0)
        await push(header)
      },
      async rows(table, rows) {
        if (current !== table.name) {
          current = table.name
          await push({ table: table.name })
        }
        for (const row of rows) await push(row)
        done += rows.length
        progress?.(done, total, table.name)
      },
    })
    await push({ end: true, event_head: summary.event_head })
    gzip.end()
    await written
    return summary
  } catch (error) {
    gzip.destroy(error as Error)
    await written.catch(() => undefined)
    throw error
  }
}

/** The first bytes of a SQLite database file. */
const SQLITE_MAGIC = 'SQLite format 3\u0000'

/** Whether `file` is a SQLite database (else it must be the logical format). */
export async function isSqliteFile(file: string): Promise<boolean> {
  const stream = createReadStream(file, { start: 0, end: SQLITE_MAGIC.length - 1 })
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('latin1') === SQLITE_MAGIC
}

/** Feeds a backup file, of either kind, into `sink`. */
export async function readBackupFile(file: string, sink: BackupSink): Promise<BackupSummary> {
  if (await isSqliteFile(file)) {
    const reader = openSqliteReader(file)
    try {
      return await readSnapshot(reader, 'sqlite', sink)
    } finally {
      await reader.destroy()
    }
  }
  return readLogicalFile(file, sink)
}

async function readLogicalFile(file: string, sink: BackupSink): Promise<BackupSummary> {
  const lines = createInterface({ input: createReadStream(file).pipe(createGunzip()) })
  let header: BackupHeader | null = null
  let table: BackupTable | null = null
  let batch: unknown[][] = []
  const counts = new Map<string, number>()
  const flush = async () => {
    if (table && batch.length > 0) await sink.rows(table, batch)
    batch = []
  }
  try {
    for await (const line of lines) {
      const value = JSON.parse(line) as unknown
      if (header === null) {
        header = checkedHeader(value)
        await sink.header(header)
      } else if (Array.isArray(value)) {
        if (!table) throw new RestoreRefused('restore: a row comes before its table')
        batch.push(value)
        counts.set(table.name, (counts.get(table.name) ?? 0) + 1)
        if (batch.length >= READ_CHUNK_ROWS) await flush()
      } else if (isObject(value) && typeof value.table === 'string') {
        await flush()
        const name = value.table
        table = header.tables.find((t) => t.name === name) ?? null
        if (!table) throw new RestoreRefused(`restore: table ${name} is not in the header`)
      } else if (isObject(value) && value.end === true) {
        await flush()
        for (const t of header.tables) {
          if ((counts.get(t.name) ?? 0) !== t.rows)
            throw new RestoreRefused(
              `restore: table ${t.name} has ${counts.get(t.name) ?? 0} rows, the header says ${t.rows}`,
            )
        }
        return {
          tables: header.tables.map((t) => ({ name: t.name, rows: t.rows })),
          event_head: Number(value.event_head ?? 0),
        }
      } else {
        throw new RestoreRefused('restore: a line of the backup is not understood')
      }
    }
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === 'Z_BUF_ERROR')
      throw new RestoreRefused(`restore: ${file} ends early: the backup is incomplete`)
    if (error instanceof SyntaxError || code === 'Z_DATA_ERROR')
      throw new RestoreRefused(
        `restore: ${file} is not a Coffer backup (${(error as Error).message})`,
      )
    throw error
  }
  throw new RestoreRefused(`restore: ${file} ends early: the backup is incomplete`)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function checkedHeader(value: unknown): BackupHeader {
  if (!isObject(value) || value.format !== BACKUP_FORMAT)
    throw new RestoreRefused('restore: not a Coffer backup (no coffer-backup header)')
  if (value.version !== BACKUP_FORMAT_VERSION)
    throw new RestoreRefused(
      `restore: backup format version ${String(value.version)} is not supported (this Coffer reads ${BACKUP_FORMAT_VERSION})`,
    )
  return value as unknown as BackupHeader
}

/**
 * SQLite's fast path: the online backup API copies the live file page by page
 * while the service runs. A write by another connection restarts the copy; after
 * a restart the whole database is copied in one step, under one read lock, so a
 * busy writer (a sync) cannot keep the backup from finishing.
 */
export async function sqliteOnlineBackup(
  path: string,
  file: string,
  progress?: Progress,
): Promise<BackupSummary> {
  const source = new SqliteDatabase(path, { readonly: true, fileMustExist: true })
  // The copy holds everyone's money data: created 0600, as the database is.
  const umask = process.umask(0o077)
  try {
    // SQLite only completes a copy that no other connection wrote to since its
    // last restart, so whatever finishes is one point in time; this makes it finish.
    let last = Number.POSITIVE_INFINITY
    let allAtOnce = false
    await source.backup(file, {
      progress({ totalPages, remainingPages }) {
        progress?.(totalPages - remainingPages, totalPages, 'pages')
        if (remainingPages > last) allAtOnce = true
        last = remainingPages
        return allAtOnce ? SQLITE_BACKUP_ALL_PAGES : SQLITE_BACKUP_STEP_PAGES
      },
    })
    // The copy inherits WAL mode; a rollback journal makes it one self-contained
    // file (no -wal or -shm beside it) that opens read-only from anywhere.
    const copy = new SqliteDatabase(file, { fileMustExist: true })
    try {
      copy.pragma('journal_mode = DELETE')
    } finally {
      copy.close()
    }
  } finally {
    process.umask(umask)
    source.close()
  }
  const copy = openSqliteReader(file)
  try {
    return await summarize(copy, 'sqlite')
  } finally {
    await copy.destroy()
  }
}

/** Pages per step of the online backup (4 KiB each): progress about every 16 MiB. */
const SQLITE_BACKUP_STEP_PAGES = 4096
/** A step that copies every page, under one read lock, after a concurrent write restarted the copy. */
const SQLITE_BACKUP_ALL_PAGES = 0x7fffffff

/** Rows per table and the event head of a database. */
export async function summarize(db: Kysely<Database>, dialect: DialectName) {
  const tables: BackupSummary['tables'] = []
  for (const name of await backupTableNames(db, dialect))
    tables.push({ name, rows: await countRows(db, name) })
  return { tables, event_head: await eventHead(db) }
}

/**
 * Restores `file` into `target`, which must hold no data: it is migrated to the
 * backup's schema, loaded in one transaction (all or nothing), then migrated to
 * the latest schema. A target with data, or a backup of a newer Coffer, is
 * refused before anything is written.
 */
export async function restoreBackup(
  target: Db,
  file: string,
  progress?: Progress,
): Promise<BackupSummary> {
  const db = target.kysely
  // A holder, so that the callbacks' assignment is seen after them.
  const load: { trx: ControlledTransaction<Database> | null } = { trx: null }
  let total = 0
  let done = 0
  try {
    await readBackupFile(file, {
      async header(header) {
        await prepareTarget(target, header)
        total = header.tables.reduce((n, t) => n + t.rows, 0)
        load.trx = await db.startTransaction().execute()
      },
      async rows(table, rows) {
        await insertRowsChunked(
          load.trx!,
          table.name as keyof Database,
          table.columns as never,
          rows,
          (r) => r,
        )
        done += rows.length
        progress?.(done, total, table.name)
      },
    })
    if (!load.trx) throw new RestoreRefused('restore: the backup is empty')
    await afterLoad(load.trx, target.dialect)
    await load.trx.commit().execute()
    load.trx = null
  } catch (error) {
    if (load.trx) await load.trx.rollback().execute()
    throw error
  }
  await migrateToLatest(target)
  return summarize(db, target.dialect)
}

async function prepareTarget(target: Db, header: BackupHeader): Promise<void> {
  const known = knownMigrationNames()
  const ofBackup = header.migrations
  if (!ofBackup.every((name, i) => known[i] === name))
    throw new RestoreRefused(
      `restore: the backup's schema (${ofBackup.at(-1) ?? 'none'}) is newer than this Coffer's (${known.at(-1)}): restore it with a newer Coffer`,
    )
  const applied = await appliedMigrationNames(target.kysely).catch(() => [])
  if (applied.length > ofBackup.length)
    throw new RestoreRefused(
      `restore: the target database's schema (${applied.at(-1)}) is newer than the backup's (${ofBackup.at(-1) ?? 'none'}): restore into a fresh database`,
    )
  await migrateToLatest(target, { through: ofBackup.at(-1) })
  for (const table of await summarize(target.kysely, target.dialect).then((s) => s.tables)) {
    if (table.rows > 0)
      throw new RestoreRefused(
        `restore: the target database is not empty (${table.name} holds ${table.rows} rows); restore only into an empty database`,
      )
  }
  const present = new Set(await backupTableNames(target.kysely, target.dialect))
  for (const table of header.tables) {
    if (!present.has(table.name))
      throw new RestoreRefused(`restore: the target database has no table ${table.name}`)
  }
}

async function afterLoad(db: Kysely<Database>, dialect: DialectName): Promise<void> {
  // A backup older than migration 0016 has none to count: the migration counts them.
  if ((await tableNames(db, dialect)).includes('transaction_counts')) await recountTransactions(db)
  if (dialect === 'postgres') {
    // Serial columns (the event sequence) continue after the restored rows.
    const { rows } = await sql<{ table_name: string; column_name: string }>`
      select table_name, column_name from information_schema.columns
      where table_schema = current_schema() and column_default like 'nextval(%'`.execute(db)
    for (const { table_name, column_name } of rows) {
      await sql`select setval(pg_get_serial_sequence(${table_name}, ${column_name}),
          coalesce(max(${sql.id(column_name)}), 1), max(${sql.id(column_name)}) is not null)
        from ${sql.id(table_name)}`.execute(db)
    }
    return
  }
  // SQLite's derived tables start over from the restored rows, as migrations
  // 0004 and 0008 queue the rows already there (a backup older than those
  // migrations gets the same from them); the service rebuilds them.
  const { rows } = await sql<{ name: string }>`select name from sqlite_master
    where type = 'table' and name in ('search_pending', 'summary_pending')`.execute(db)
  const has = new Set(rows.map((r) => r.name))
  if (has.has('search_pending')) {
    await sql`delete from search_pending`.execute(db)
    await sql`insert into search_pending (transaction_id) select id from transactions`.execute(db)
  }
  if (has.has('summary_pending')) {
    await sql`delete from summary_pending`.execute(db)
    await sql`insert into summary_pending (day, account_id)
      select distinct substr(date, 1, 10), account_id from transactions`.execute(db)
  }
}

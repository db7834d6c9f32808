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
import { normalizeAmount, parseTotal } from '../decimal.js'
import { isCalendarDay } from '../clock.js'
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
  return (await isSqliteFile(file)) ? readSqliteFile(file, sink) : readLogicalFile(file, sink)
}

/** A restore refused for what `file` holds (or lacks), in the words of every such message. */
function notABackup(file: string, reason: string): RestoreRefused {
  return new RestoreRefused(`restore: ${file} is not a Coffer backup: ${reason}`)
}

function incomplete(file: string): RestoreRefused {
  return new RestoreRefused(`restore: ${file} ends early: the backup is incomplete`)
}

async function readSqliteFile(file: string, sink: BackupSink): Promise<BackupSummary> {
  // What the sink throws is the target's own failure; any other SQLite damage is the file's.
  let sinkError: unknown = undefined
  const noted = (step: Promise<void>) =>
    step.catch((error: unknown) => {
      sinkError = error
      throw error
    })
  let reader: Kysely<Database> | null = null
  try {
    reader = openSqliteReader(file)
    return await readSnapshot(reader, 'sqlite', {
      header: (header) => noted(sink.header(header)),
      rows: (table, rows) => noted(sink.rows(table, rows)),
    })
  } catch (error) {
    if (error === sinkError) throw error
    const code = String((error as { code?: unknown }).code)
    // A copy cut short reads as malformed once a page past its end is needed.
    if (code.startsWith('SQLITE_CORRUPT'))
      throw new RestoreRefused(
        `restore: ${file} is damaged or cut short (SQLite: ${(error as Error).message})`,
      )
    if (code === 'SQLITE_NOTADB') throw notABackup(file, (error as Error).message)
    throw error
  } finally {
    await reader?.destroy()
  }
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
        header = checkedHeader(value, file)
        await sink.header(header)
      } else if (Array.isArray(value)) {
        if (!table) throw notABackup(file, 'a row comes before its table')
        const row = counts.get(table.name) ?? 0
        checkRowShape(file, table, row + 1, value)
        batch.push(value)
        counts.set(table.name, row + 1)
        if (batch.length >= READ_CHUNK_ROWS) await flush()
      } else if (isObject(value) && typeof value.table === 'string') {
        await flush()
        const name = value.table
        table = header.tables.find((t) => t.name === name) ?? null
        if (!table) throw notABackup(file, `table ${JSON.stringify(name)} is not in its header`)
      } else if (isObject(value) && value.end === true) {
        await flush()
        for (const t of header.tables) {
          if ((counts.get(t.name) ?? 0) !== t.rows)
            throw notABackup(
              file,
              `table ${t.name} has ${counts.get(t.name) ?? 0} rows, its header says ${t.rows}`,
            )
        }
        return {
          tables: header.tables.map((t) => ({ name: t.name, rows: t.rows })),
          event_head: Number(value.event_head ?? 0),
        }
      } else {
        throw notABackup(file, 'a line of it is not understood')
      }
    }
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === 'Z_BUF_ERROR') throw incomplete(file)
    if (error instanceof SyntaxError || code === 'Z_DATA_ERROR')
      throw notABackup(file, (error as Error).message)
    throw error
  }
  throw incomplete(file)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
}

/** The first line of a portable backup, its shape checked before any of it is used. */
function checkedHeader(value: unknown, file: string): BackupHeader {
  if (!isObject(value) || value.format !== BACKUP_FORMAT)
    throw notABackup(file, 'it has no coffer-backup header')
  if (value.version !== BACKUP_FORMAT_VERSION)
    throw new RestoreRefused(
      `restore: ${file} is in backup format version ${JSON.stringify(value.version)}, which this Coffer cannot read (it reads ${BACKUP_FORMAT_VERSION})`,
    )
  if (!isStringList(value.migrations))
    throw notABackup(file, 'its header has no list of migrations')
  if (!Array.isArray(value.tables)) throw notABackup(file, 'its header has no list of tables')
  const tables = value.tables.map((entry) => checkedHeaderTable(entry, file))
  const twice = tables.find((t, i) => tables.findIndex((u) => u.name === t.name) !== i)
  if (twice) throw notABackup(file, `its header lists table ${JSON.stringify(twice.name)} twice`)
  return {
    format: BACKUP_FORMAT,
    version: BACKUP_FORMAT_VERSION,
    engine: value.engine === 'postgres' ? 'postgres' : 'sqlite',
    created_at: String(value.created_at),
    migrations: value.migrations,
    tables,
  }
}

function checkedHeaderTable(entry: unknown, file: string): BackupTable {
  if (!isObject(entry) || typeof entry.name !== 'string')
    throw notABackup(file, 'its header lists a table without a name')
  const { name, columns, rows } = entry
  const shown = JSON.stringify(name)
  if (!isStringList(columns) || columns.length === 0 || new Set(columns).size !== columns.length)
    throw notABackup(file, `its header gives table ${shown} no list of distinct columns`)
  if (typeof rows !== 'number' || !Number.isSafeInteger(rows) || rows < 0)
    throw notABackup(file, `its header gives table ${shown} no count of rows`)
  return { name, columns, rows }
}

/** What JSON gives a value that no column holds, named without showing the value. */
function wrongKind(value: unknown): string | null {
  if (value === null || typeof value === 'string') return null
  if (typeof value === 'number') return Number.isFinite(value) ? null : 'a number out of range'
  if (Array.isArray(value)) return 'a list'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/**
 * A row of the portable format holds one value per column, each a string, a
 * number or null: rows of a chunk are bound as one list of parameters, so a
 * row one value short would shift the next row's values into the wrong columns.
 */
function checkRowShape(file: string, table: BackupTable, index: number, row: unknown[]) {
  if (row.length !== table.columns.length)
    throw notABackup(
      file,
      `row ${index} of table ${table.name} has ${row.length} values for ${table.columns.length} columns`,
    )
  for (let c = 0; c < row.length; c++) {
    const kind = wrongKind(row[c])
    if (kind !== null)
      throw notABackup(
        file,
        `row ${index} of table ${table.name} holds ${kind} in column ${table.columns[c]}`,
      )
  }
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
 * backup's schema, loaded in one transaction (all or nothing), checked, then
 * migrated to the latest schema. A target with data, a backup of a newer
 * Coffer or one whose tables and columns are not the schema's is refused
 * before anything is written; a row the service could not use is refused
 * before the load commits.
 */
export async function restoreBackup(
  target: Db,
  file: string,
  progress?: Progress,
): Promise<BackupSummary> {
  const db = target.kysely
  // A holder, so that the callbacks' assignment is seen after them.
  const load: { trx: ControlledTransaction<Database> | null } = { trx: null }
  const checkRowValues = rowValueChecker(file)
  let total = 0
  let done = 0
  try {
    await readBackupFile(file, {
      async header(header) {
        await prepareTarget(target, header, file)
        total = header.tables.reduce((n, t) => n + t.rows, 0)
        load.trx = await db.startTransaction().execute()
      },
      async rows(table, rows) {
        checkRowValues(table, rows)
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
    if (!load.trx) throw notABackup(file, 'it is empty')
    await checkReferences(load.trx, file)
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

async function prepareTarget(target: Db, header: BackupHeader, file: string): Promise<void> {
  const known = knownMigrationNames()
  const ofBackup = header.migrations
  // A SQLite file with no coffer_migrations (an empty or another program's database).
  if (ofBackup.length === 0) throw notABackup(file, 'it records no Coffer migrations')
  if (ofBackup.some((name) => !known.includes(name)))
    throw new RestoreRefused(
      `restore: the backup's schema (${ofBackup.at(-1)}) is newer than this Coffer's (${known.at(-1)}): restore it with a newer Coffer`,
    )
  if (!ofBackup.every((name, i) => known[i] === name))
    throw notABackup(file, `its migrations are not ${known[0]} onwards in order`)
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
  await checkSchema(target, header, file)
}

/**
 * The backup's tables and columns must be exactly the schema's at its migration
 * (the target has just been brought there): the loader names them in SQL, and
 * a table or column left out would be restored as missing or empty.
 */
async function checkSchema(target: Db, header: BackupHeader, file: string): Promise<void> {
  const at = `Coffer's schema at ${header.migrations.at(-1)}`
  const expected = await backupTableNames(target.kysely, target.dialect)
  for (const table of header.tables) {
    if (!expected.includes(table.name))
      throw notABackup(file, `it has a table ${JSON.stringify(table.name)}, which ${at} has not`)
  }
  for (const name of expected) {
    const table = header.tables.find((t) => t.name === name)
    if (!table) throw notABackup(file, `it has no table ${name}, which ${at} has`)
    const columns = await columnNames(target.kysely, target.dialect, name)
    const unknown = table.columns.find((c) => !columns.includes(c))
    if (unknown !== undefined)
      throw notABackup(
        file,
        `its table ${name} has a column ${JSON.stringify(unknown)}, which ${at} has not`,
      )
    const missing = columns.find((c) => !table.columns.includes(c))
    if (missing !== undefined)
      throw notABackup(file, `its table ${name} has no column ${missing}, which ${at} has`)
  }
}

interface ValueCheck {
  column: string
  valid: (value: unknown) => boolean
  /** What a valid value is, for the message. */
  is: string
}

/** An instant as ledger/time.ts stores it (YYYY-MM-DDTHH:MM:SSZ), its day captured. */
const STORED_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\dZ$/

/** Whether a value is an instant as Coffer stores it: years 0001-9999, a real day. */
function isStoredInstant(value: unknown): boolean {
  const parts = typeof value === 'string' ? STORED_INSTANT.exec(value) : null
  if (parts === null) return false
  const year = Number(parts[1])
  return year >= 1 && isCalendarDay(year, Number(parts[2]), Number(parts[3]))
}

function isTotal(value: unknown): boolean {
  if (typeof value !== 'string') return false
  try {
    parseTotal(value)
    return true
  } catch {
    return false
  }
}

/** A row the service could not use: named by table and id, the value itself never shown. */
function badRow(file: string, table: string, id: unknown, problem: string): RestoreRefused {
  return new RestoreRefused(
    `restore: ${file} holds a row Coffer cannot use: ${table} ${String(id)}: ${problem}; nothing was restored`,
  )
}

/**
 * Checks, for one restore, the values the service computes with as each chunk of
 * rows is loaded: one it could not have written (an amount it cannot add up, a
 * date it cannot order) would make every later read of it fail (the summary
 * rollups, an export).
 */
function rowValueChecker(file: string): (table: BackupTable, rows: readonly unknown[][]) => void {
  const checks: Readonly<Record<string, readonly ValueCheck[]>> = {
    transactions: [
      {
        column: 'amount',
        valid: (value) => typeof value === 'string' && normalizeAmount(value) === value,
        is: 'a decimal amount such as -12.34 (at most 64 characters)',
      },
      {
        column: 'date',
        valid: isStoredInstant,
        is: 'a UTC date and time as Coffer stores them (YYYY-MM-DDTHH:MM:SSZ)',
      },
    ],
    accounts: [{ column: 'balance', valid: isTotal, is: 'a decimal amount such as -12.34' }],
  }
  return (table, rows) => {
    const id = table.columns.indexOf('id')
    for (const { column, valid, is } of checks[table.name] ?? []) {
      const at = table.columns.indexOf(column)
      for (const row of rows) {
        if (!valid(row[at])) throw badRow(file, table.name, row[id], `${column} is not ${is}`)
      }
    }
  }
}

/** After the load, one pass: every transaction's account is in the backup too. */
async function checkReferences(db: Kysely<Database>, file: string): Promise<void> {
  const { rows } = await sql<{ id: string }>`select t.id from transactions t
    where not exists (select 1 from accounts a where a.id = t.account_id) limit 1`.execute(db)
  if (rows[0]) throw badRow(file, 'transactions', rows[0].id, 'its account is not in the backup')
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

// Multi-row statements for the bulk write paths (sync, history, the event log),
// written as SQL text instead of through Kysely's builder: building and compiling
// a 1000-row insert costs as much CPU as SQLite takes to run it. The text of a
// shape is kept, so the same string comes back for every full chunk and the
// SQLite statement cache (connect.ts) finds its prepared statement. It runs on the
// caller's executor, so inside a unit of work it is part of its transaction.
import { CompiledQuery, sql, type Kysely } from 'kysely'
import { checkpointerOf, SQLITE_CACHE_KIB, SQLITE_WAL_AUTOCHECKPOINT_PAGES } from './connect.js'
import { dialectOf, type Database, type DbExecutor } from './schema.js'

/** SQLite's limit on bound parameters per statement (SQLITE_MAX_VARIABLE_NUMBER). */
const MAX_PARAMETERS = 32766
/**
 * Rows per multi-row INSERT: large enough that a sync writes few statements, and
 * the same for every full chunk, so its prepared statement is reused.
 */
export const INSERT_CHUNK_ROWS = 1000

/**
 * `name` as a double-quoted SQL identifier, any `"` in it doubled, so that a
 * name (a backup's column, say) can never end the identifier and add SQL.
 */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

/** Identifiers quoted and joined by commas. */
function quotedList(names: readonly string[]): string {
  return names.map(quoteIdentifier).join(', ')
}

/** The items in slices of `size` (the last may be shorter), for lookups and writes by the chunk. */
export function* chunksOf<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size)
}

/**
 * Inserts any number of items as multi-row INSERTs of up to INSERT_CHUNK_ROWS rows
 * each (fewer when a row has so many columns that the parameters would pass
 * SQLite's limit), in the caller's transaction; `toRow` turns an item into its
 * values in `columns` order, a chunk at a time. Answers every `returning` row, in order.
 */
export async function insertRowsChunked<T extends keyof Database, I>(
  db: DbExecutor,
  table: T,
  columns: ReadonlyArray<keyof Database[T] & string>,
  items: readonly I[],
  toRow: (item: I) => readonly unknown[],
  returning: ReadonlyArray<keyof Database[T] & string> = [],
): Promise<Array<Record<string, unknown>>> {
  const chunkRows = Math.min(INSERT_CHUNK_ROWS, Math.floor(MAX_PARAMETERS / columns.length))
  const out: Array<Record<string, unknown>> = []
  for (const chunk of chunksOf(items, chunkRows)) {
    const inserted = await insertRows(db, table, columns, chunk.map(toRow), returning)
    for (const row of inserted) out.push(row)
  }
  return out
}

/**
 * SQLite, inside a transaction: `or fail`. A statement of many rows that may stop
 * on a constraint otherwise keeps a statement journal, a copy of every page it
 * changes that the transaction had changed before it, so that it can be undone
 * alone (the default `abort`); into a ledger of a million rows that is thousands
 * of pages of random-key indexes a chunk, and writing them out was 18% of a
 * sync's CPU samples, most of it in the kernel (docs/performance.md, Imports). With
 * `fail` a statement that stops keeps the rows it wrote before the failing one,
 * and the failure rolls back the whole unit of work, so nothing of it stays.
 * Outside a transaction (none of these writers does that) a statement keeps
 * SQLite's default.
 */
function sqliteOrFail(db: DbExecutor): string {
  return db.isTransaction ? 'or fail ' : ''
}

/** The last statement text of each table + columns + returning, with its row count. */
const texts = new Map<string, { rows: number; text: string }>()

/** Inserts rows (each an array in `columns` order) in one statement; returns the `returning` columns. */
export async function insertRows<T extends keyof Database>(
  db: DbExecutor,
  table: T,
  columns: ReadonlyArray<keyof Database[T] & string>,
  rows: ReadonlyArray<readonly unknown[]>,
  returning: ReadonlyArray<keyof Database[T] & string> = [],
): Promise<Array<Record<string, unknown>>> {
  if (rows.length === 0) return []
  const parameters: unknown[] = []
  for (const row of rows) for (const value of row) parameters.push(value)
  const text = statementText(db, table, columns, rows.length, returning)
  const result = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, parameters))
  return result.rows
}

function statementText(
  db: DbExecutor,
  table: string,
  columns: readonly string[],
  rows: number,
  returning: readonly string[],
): string {
  const postgres = dialectOf(db) === 'postgres'
  const conflict = postgres ? '' : sqliteOrFail(db)
  // JSON keeps the names apart whatever they hold (a comma, a space).
  const key = JSON.stringify([postgres, conflict, table, columns, returning])
  const known = texts.get(key)
  if (known?.rows === rows) return known.text
  const width = columns.length
  const tuples: string[] = []
  for (let r = 0; r < rows; r++) {
    const marks: string[] = []
    for (let c = 1; c <= width; c++) marks.push(postgres ? `$${r * width + c}` : '?')
    tuples.push(`(${marks.join(', ')})`)
  }
  let text = `insert ${conflict}into ${quoteIdentifier(table)} (${quotedList(columns)}) values ${tuples.join(', ')}`
  if (returning.length > 0) text += ` returning ${quotedList(returning)}`
  texts.set(key, { rows, text })
  return text
}

/** A column compared by updateRowsMatching: its type (for PostgreSQL's arrays) and whether it may be null. */
export interface MatchColumn {
  name: string
  type: 'text' | 'integer'
  nullable?: boolean
}

/** SQLite statement texts by table, columns and row count (a full chunk repeats, so its statement stays prepared). */
const matchTexts = new Map<string, string>()

/**
 * Sets `column` to `value` on every row of `table` that equals one of `tuples`
 * (each in `columns` order) on all of `columns`, null matching null where the
 * column is nullable, in one UPDATE joined to the tuples; answers how many rows
 * it set. The database compares: nothing is read back.
 */
export async function updateRowsMatching<T extends keyof Database>(
  db: DbExecutor,
  table: T,
  set: { column: keyof Database[T] & string; value: unknown },
  columns: readonly MatchColumn[],
  tuples: ReadonlyArray<readonly unknown[]>,
): Promise<number> {
  if (tuples.length === 0) return 0
  const same = (c: MatchColumn, postgres: boolean, value: string) =>
    `t.${quoteIdentifier(c.name)} ${c.nullable ? (postgres ? 'is not distinct from' : 'is') : '='} ${value}`
  if (dialectOf(db) === 'postgres') {
    // One array a column: as many parameters as columns whatever the count of
    // tuples; the first column leads the table's key, which the join probes.
    const arrays = columns.map((c, i) => `$${i + 2}::${c.type}[]`)
    const text =
      `update ${quoteIdentifier(table)} as t set ${quoteIdentifier(set.column)} = $1 ` +
      `from unnest(${arrays.join(', ')}) as v(${quotedList(columns.map((c) => c.name))}) ` +
      `where ${columns.map((c) => same(c, true, `v.${quoteIdentifier(c.name)}`)).join(' and ')}`
    const result = await asKeyProbes(
      db,
      CompiledQuery.raw(text, [
        set.value,
        ...columns.map((_, i) => tuples.map((tuple) => tuple[i])),
      ]),
    )
    return Number(result.numAffectedRows ?? 0n)
  }
  const orFail = sqliteOrFail(db)
  const key = JSON.stringify([orFail, table, set.column, columns, tuples.length])
  let text = matchTexts.get(key)
  if (text === undefined) {
    const tuple = `(${columns.map(() => '?').join(', ')})`
    // SQLite names the columns of a VALUES list column1, column2, ...
    text =
      `update ${orFail}${quoteIdentifier(table)} as t set ${quoteIdentifier(set.column)} = ? ` +
      `from (values ${Array.from({ length: tuples.length }, () => tuple).join(', ')}) as v ` +
      `where ${columns.map((c, i) => same(c, false, `v.column${i + 1}`)).join(' and ')}`
    matchTexts.set(key, text)
  }
  const width = columns.length
  const parameters = new Array<unknown>(1 + tuples.length * width)
  parameters[0] = set.value
  for (let r = 0; r < tuples.length; r++) {
    const tuple = tuples[r]!
    for (let c = 0; c < width; c++) parameters[1 + r * width + c] = tuple[c]
  }
  const result = await db.executeQuery(CompiledQuery.raw(text, parameters))
  return Number(result.numAffectedRows ?? 0n)
}

/**
 * Inserts any number of items as multi-row upserts (`on conflict (key) do update`
 * setting every other column to the new row's), chunked as insertRowsChunked.
 * No two items may share a key: a statement must not update a row twice.
 */
export async function upsertRowsChunked<T extends keyof Database, I>(
  db: DbExecutor,
  table: T,
  key: ReadonlyArray<keyof Database[T] & string>,
  columns: ReadonlyArray<keyof Database[T] & string>,
  items: readonly I[],
  toRow: (item: I) => readonly unknown[],
): Promise<void> {
  const chunkRows = Math.min(INSERT_CHUNK_ROWS, Math.floor(MAX_PARAMETERS / columns.length))
  const updated = columns.filter((c) => !key.includes(c))
  const conflict =
    ` on conflict (${quotedList(key)}) do ` +
    (updated.length === 0
      ? 'nothing'
      : `update set ${updated.map((c) => `${quoteIdentifier(c)} = excluded.${quoteIdentifier(c)}`).join(', ')}`)
  for (const chunk of chunksOf(items, chunkRows)) {
    const parameters: unknown[] = []
    for (const item of chunk) for (const value of toRow(item)) parameters.push(value)
    const text = statementText(db, table, columns, chunk.length, []) + conflict
    await db.executeQuery(CompiledQuery.raw(text, parameters))
  }
}

/**
 * PostgreSQL: runs `query`, a join of a batch's tuples to a table on a key that
 * leads an index, as a nested loop of index probes. Costed alone, the planner
 * hashes the whole table instead once a batch is a few percent of it, so every
 * chunk of a re-sync read every row (measured at 200,000 rows: a 5,000-row
 * chunk's join 157 ms hashed, 30 ms probed; an unchanged re-sync of 100,000
 * rows about 1.2× as fast). Both settings are the transaction's own (SET LOCAL)
 * and put back at once; a failed statement rolls them back with the unit.
 */
async function asKeyProbes(db: DbExecutor, query: CompiledQuery) {
  await db.executeQuery(CompiledQuery.raw(KEY_PROBES_ON))
  const result = await db.executeQuery(query)
  await db.executeQuery(CompiledQuery.raw(KEY_PROBES_OFF))
  return result
}
const KEY_PROBES_ON = 'set local enable_hashjoin = off; set local enable_mergejoin = off'
const KEY_PROBES_OFF = 'set local enable_hashjoin to default; set local enable_mergejoin to default'

/** SQLite statement texts of deleteRowsMatching by table, columns and row count. */
const deleteTexts = new Map<string, string>()
/** Tuples per DELETE of deleteRowsMatching on SQLite. */
const DELETE_CHUNK_TUPLES = 1000

/**
 * Deletes every row of `table` that equals one of `tuples` (each in `columns`
 * order, none null) on all of `columns`, in as few statements as the parameter
 * limit allows; answers how many rows went.
 */
export async function deleteRowsMatching<T extends keyof Database>(
  db: DbExecutor,
  table: T,
  columns: readonly MatchColumn[],
  tuples: ReadonlyArray<readonly unknown[]>,
): Promise<number> {
  if (tuples.length === 0) return 0
  const names = quotedList(columns.map((c) => c.name))
  let deleted = 0
  if (dialectOf(db) === 'postgres') {
    // One array a column, as updateRowsMatching: one statement whatever the count.
    const arrays = columns.map((c, i) => `$${i + 1}::${c.type}[]`)
    const text =
      `delete from ${quoteIdentifier(table)} as t using unnest(${arrays.join(', ')}) as v(${names}) ` +
      `where ${columns.map((c) => `t.${quoteIdentifier(c.name)} = v.${quoteIdentifier(c.name)}`).join(' and ')}`
    const result = await asKeyProbes(
      db,
      CompiledQuery.raw(
        text,
        columns.map((_, i) => tuples.map((tuple) => tuple[i])),
      ),
    )
    return Number(result.numAffectedRows ?? 0n)
  }
  const width = columns.length
  const rows = Math.min(DELETE_CHUNK_TUPLES, Math.floor(MAX_PARAMETERS / width))
  for (const chunk of chunksOf(tuples, rows)) {
    const key = JSON.stringify([table, names, chunk.length])
    let text = deleteTexts.get(key)
    if (text === undefined) {
      const tuple = `(${columns.map(() => '?').join(', ')})`
      text = `delete from ${quoteIdentifier(table)} where (${names}) in (values ${Array.from({ length: chunk.length }, () => tuple).join(', ')})`
      deleteTexts.set(key, text)
    }
    const parameters: unknown[] = []
    for (const tuple of chunk) for (const value of tuple) parameters.push(value)
    const result = await db.executeQuery(CompiledQuery.raw(text, parameters))
    deleted += Number(result.numAffectedRows ?? 0n)
  }
  return deleted
}

/** SQLite while a sync writes: the page cache, in KiB (connect.ts keeps SQLITE_CACHE_KIB otherwise). */
export const BULK_CACHE_KIB = 64 * 1024
/**
 * SQLite while a sync writes: WAL pages before a checkpoint (256 MiB; SQLite's
 * default is 1000). A unit of thousands of random-key index entries dirties
 * tens of megabytes of pages, so the default checkpoints after every unit and
 * copies the same hot index pages into the database file again and again.
 */
const BULK_WAL_AUTOCHECKPOINT_PAGES = 65_536

/** Bulk stretches open per database handle: the settings hold while any is open. */
const openBulkStretches = new WeakMap<object, number>()
/** A restore waiting out its settle delay, per handle. */
const pendingRestores = new WeakMap<object, NodeJS.Timeout>()

/**
 * Runs `work` (many large units of work in a row: a sync) with the SQLite
 * connection set for bulk writes: a larger page cache and checkpoints deferred
 * until the WAL holds BULK_WAL_AUTOCHECKPOINT_PAGES; afterwards the usual
 * settings come back and the WAL is checkpointed once. Every unit still commits
 * on its own (all-or-nothing, durable as before). PostgreSQL: just `work`.
 */
export async function duringBulkWrites<T>(
  db: Kysely<Database>,
  work: () => Promise<T>,
): Promise<T> {
  const end = await startBulkWrites(db)
  try {
    return await work()
  } finally {
    await end()
  }
}

/** Whether bulk writes go on on `db`: a stretch is open, or one ended moments ago and settles. */
export function bulkWritesUnderway(db: Kysely<Database>): boolean {
  return (openBulkStretches.get(db) ?? 0) > 0 || pendingRestores.has(db)
}

/**
 * duringBulkWrites as a stretch with no fixed extent (a plugin working through a
 * backlog): starts it, answers the function that ends it. Stretches may overlap
 * (a sync and a plugin's backlog): the usual settings come back when the last ends,
 * after `settleMs` if the stretch asks for it. A backlog that pauses for a moment
 * (a plugin that caught up with a sync, waiting for its next unit) would otherwise
 * shrink the page cache and checkpoint the whole WAL at every pause, and start
 * again cold: measured in the plugins bench, a checkpoint of 120–280 ms on the
 * event loop about once a second. `end(true)` restores at once (a stop).
 */
export async function startBulkWrites(
  db: Kysely<Database>,
  { settleMs = 0 }: { settleMs?: number } = {},
): Promise<(immediately?: boolean) => Promise<void>> {
  if (dialectOf(db) !== 'sqlite') return () => Promise.resolve()
  const open = openBulkStretches.get(db) ?? 0
  openBulkStretches.set(db, open + 1)
  const pending = pendingRestores.get(db)
  if (pending) {
    clearTimeout(pending)
    pendingRestores.delete(db)
  }
  // A restore still waiting out its settle delay left the bulk settings in place.
  if (open === 0 && !pending) {
    await sql.raw(`pragma cache_size = -${Math.max(BULK_CACHE_KIB, SQLITE_CACHE_KIB)}`).execute(db)
    await sql.raw(`pragma wal_autocheckpoint = ${BULK_WAL_AUTOCHECKPOINT_PAGES}`).execute(db)
  }
  let ended = false
  return async (immediately = false) => {
    if (ended) return
    ended = true
    const left = (openBulkStretches.get(db) ?? 1) - 1
    openBulkStretches.set(db, left)
    if (left > 0) return
    if (settleMs > 0 && !immediately) {
      const timer = setTimeout(() => {
        pendingRestores.delete(db)
        // A handle closed meanwhile has nothing to restore: its close checkpointed.
        restoreUsualSettings(db).catch(() => undefined)
      }, settleMs)
      timer.unref()
      pendingRestores.set(db, timer)
      return
    }
    await restoreUsualSettings(db)
  }
}

/** The connection's usual page cache and checkpoints, and one checkpoint now, unless a stretch started meanwhile. */
async function restoreUsualSettings(db: Kysely<Database>): Promise<void> {
  const stretchOpen = () => (openBulkStretches.get(db) ?? 0) > 0
  // The background thread copies what the stretch left, off the event loop.
  const copied = (await checkpointerOf(db)?.caughtUp()) ?? false
  // Each step only while no stretch has started since (one may, between them).
  const restore = [
    `pragma wal_autocheckpoint = ${SQLITE_WAL_AUTOCHECKPOINT_PAGES}`,
    `pragma cache_size = -${SQLITE_CACHE_KIB}`,
    // Passive: never waits for readers; what it cannot copy now, the next commit's does.
    ...(copied ? [] : ['pragma wal_checkpoint(passive)']),
  ]
  for (const statement of restore) {
    if (stretchOpen()) return
    await sql.raw(statement).execute(db)
  }
}

// Multi-row INSERTs for the bulk write paths (sync, history, the event log),
// written as SQL text instead of through Kysely's builder: building and compiling
// a 1000-row insert costs as much CPU as SQLite takes to run it. The text of a
// shape is kept, so the same string comes back for every full chunk and the
// SQLite statement cache (connect.ts) finds its prepared statement. It runs on the
// caller's executor, so inside a unit of work it is part of its transaction.
import { CompiledQuery } from 'kysely'
import { dialectOf, type Database, type DbExecutor } from './schema.js'

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
  const postgres = dialectOf(db) === 'postgres'
  const parameters: unknown[] = []
  for (const row of rows) for (const value of row) parameters.push(value)
  const text = statementText(postgres, table, columns, rows.length, returning)
  const result = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, parameters))
  return result.rows
}

function statementText(
  postgres: boolean,
  table: string,
  columns: readonly string[],
  rows: number,
  returning: readonly string[],
): string {
  const key = `${postgres ? 'pg' : 'sqlite'} ${table} ${columns.join(',')} ${returning.join(',')}`
  const known = texts.get(key)
  if (known?.rows === rows) return known.text
  const width = columns.length
  const tuples: string[] = []
  for (let r = 0; r < rows; r++) {
    const marks: string[] = []
    for (let c = 1; c <= width; c++) marks.push(postgres ? `$${r * width + c}` : '?')
    tuples.push(`(${marks.join(', ')})`)
  }
  const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ')
  let text = `insert into "${table}" (${quoted(columns)}) values ${tuples.join(', ')}`
  if (returning.length > 0) text += ` returning ${quoted(returning)}`
  texts.set(key, { rows, text })
  return text
}

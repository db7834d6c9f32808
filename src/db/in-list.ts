// `column IN <list>` with the whole list as one parameter: a JSON array read by
// json_each on SQLite, a text array on PostgreSQL. SQLite plans a list of N
// placeholders by sorting them into a temporary index first, which costs more
// than the lookups themselves (about 2× for 500 ids); one parameter also keeps
// a single statement text, and so a single prepared statement, for every size.
import { sql, type RawBuilder, type SqlBool } from 'kysely'
import { dialectOf, type DbExecutor } from './schema.js'

export function inList(
  db: DbExecutor,
  column: string,
  values: readonly string[],
): RawBuilder<SqlBool> {
  return dialectOf(db) === 'postgres'
    ? sql<SqlBool>`${sql.ref(column)} = any(${values}::text[])`
    : sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${JSON.stringify(values)}))`
}

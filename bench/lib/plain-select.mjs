// The export benchmark's baseline (bench/export.ts): every transaction row read
// with a plain SELECT, oldest first, and written to stdout as tab-separated
// text, with flat memory (SQLite: the statement's iterator; PostgreSQL: keyset
// pages of 1000). No labels, no extensions, no formatting: what reading the
// table costs. Plain JavaScript, so no compiler runs in the measured process.
// The database comes from the same SERVICE_* variables `coffer` reads.
import { writeSync } from 'node:fs'

const PAGE_ROWS = 1000
const COLUMNS = ['id', 'account_id', 'amount', 'date', 'description', 'payee', 'memo', 'pending']

function line(row) {
  return COLUMNS.map((c) => row[c] ?? '').join('\t') + '\n'
}

let rows = 0
if (process.env.SERVICE_DATABASE_DRIVER === 'postgres') {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: process.env.SERVICE_DATABASE_DSN })
  await client.connect()
  let last = null
  for (;;) {
    const page = await client.query(
      last
        ? 'select * from transactions where (date, id) > ($1, $2) order by date, id limit $3'
        : 'select * from transactions order by date, id limit $1',
      last ? [last.date, last.id, PAGE_ROWS] : [PAGE_ROWS],
    )
    if (page.rows.length > 0) writeSync(1, page.rows.map(line).join(''))
    rows += page.rows.length
    if (page.rows.length < PAGE_ROWS) break
    last = page.rows[page.rows.length - 1]
  }
  await client.end()
} else {
  const { default: Sqlite } = await import('better-sqlite3')
  const db = new Sqlite(process.env.SERVICE_DATABASE_PATH, { readonly: true })
  let chunk = []
  for (const row of db.prepare('select * from transactions order by date, id').iterate()) {
    chunk.push(line(row))
    rows++
    if (chunk.length === PAGE_ROWS) {
      writeSync(1, chunk.join(''))
      chunk = []
    }
  }
  if (chunk.length > 0) writeSync(1, chunk.join(''))
  db.close()
}
process.stderr.write(`COFFER_BENCH_ROWS=${rows}\n`)

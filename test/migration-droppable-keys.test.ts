// Migration 0014 turns the history's key (and on SQLite the search documents'
// transaction id) from table constraints into unique indexes a first import can
// drop: a ledger migrated from the schema before it keeps every version and
// document, in order, and the keys still refuse a duplicate.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { sql } from 'kysely'
import { openDatabase, type Db } from '../src/db/connect.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { createSchema, dropSchema, dsnWithSchema, POSTGRES_DSN } from './helpers/app.js'

const BEFORE = '0013-deferred-indexes'

/** A database of the engine under test, migrated through `BEFORE`. */
async function databaseBefore(t: import('node:test').TestContext): Promise<Db> {
  let db: Db
  let removeDatabase: () => Promise<void>
  if (POSTGRES_DSN) {
    const schema = await createSchema()
    db = openDatabase({ driver: 'postgres', path: '', dsn: dsnWithSchema(schema) })
    removeDatabase = () => dropSchema(schema)
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'coffer-0014-'))
    db = openDatabase({ driver: 'sqlite', path: join(dir, 'c.db'), dsn: null })
    removeDatabase = async () => rmSync(dir, { recursive: true, force: true })
  }
  t.after(async () => {
    await db.close()
    await removeDatabase()
  })
  await migrateToLatest(db, { through: BEFORE })
  return db
}

const VERSIONS = [
  ['csv:b', 1, 'imported'],
  ['csv:a', 1, 'imported'],
  ['csv:b', 2, 'labeled'],
  ['man_c', 1, 'imported'],
  ['csv:a', 2, 'edited'],
] as const

test('a ledger migrated through 0014 keeps its versions and search documents, and the keys stay unique', async (t) => {
  const db = await databaseBefore(t)
  const k = db.kysely
  for (const [id, version, kind] of VERSIONS) {
    await sql`insert into transaction_versions (transaction_id, version, kind, occurred_at, snapshot, diff, actor)
      values (${id}, ${version}, ${kind}, '2024-05-01T00:00:00Z', ${`{"id":"${id}"}`}, '{}', ${kind === 'labeled' ? 'plugin:x' : null})`.execute(
      k,
    )
  }
  const sqlite = db.dialect === 'sqlite'
  if (sqlite) {
    await sql`insert into search_documents (n, transaction_id) values (3, 'csv:b'), (7, 'csv:a'), (9, 'man_c')`.execute(
      k,
    )
  }

  await migrateToLatest(db)

  const versions = await sql<{ transaction_id: string; version: number; kind: string }>`
    select transaction_id, version, kind, actor from transaction_versions order by transaction_id, version`.execute(
    k,
  )
  assert.deepEqual(
    versions.rows.map((r) => [r.transaction_id, Number(r.version), r.kind]),
    [...VERSIONS].sort((a, b) => (a[0] === b[0] ? a[1] - b[1] : a[0] < b[0] ? -1 : 1)),
  )
  await assert.rejects(
    sql`insert into transaction_versions (transaction_id, version, kind, occurred_at, snapshot, diff)
      values ('csv:a', 2, 'edited', '2024-05-02T00:00:00Z', '{}', '{}')`.execute(k),
    /unique|duplicate/i,
  )
  if (sqlite) {
    // Still written in the order they were: the history reads a transaction's versions by the key.
    const order = await sql<{
      transaction_id: string
    }>`select transaction_id from transaction_versions order by rowid`.execute(k)
    assert.deepEqual(
      order.rows.map((r) => r.transaction_id),
      VERSIONS.map((v) => v[0]),
    )
    const documents = await sql<{ n: number; transaction_id: string }>`
      select n, transaction_id from search_documents order by n`.execute(k)
    assert.deepEqual(
      documents.rows.map((r) => [r.n, r.transaction_id]),
      [
        [3, 'csv:b'],
        [7, 'csv:a'],
        [9, 'man_c'],
      ],
    )
    await assert.rejects(
      sql`insert into search_documents (n, transaction_id) values (10, 'csv:a')`.execute(k),
      /unique/i,
    )
  }
})

// SQLite's bulk-write settings (a larger page cache, checkpoints deferred) hold
// while any stretch is open; a stretch that asks to settle keeps them through a
// short pause, so a plugin catching up with a sync does not shrink the cache and
// checkpoint the WAL at every short batch.
import assert from 'node:assert/strict'
import { statSync } from 'node:fs'
import { test } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import { sql } from 'kysely'
import { bareContext } from '../../test/helpers/context.js'
import {
  BULK_CACHE_KIB,
  deleteRowsMatching,
  insertRows,
  startBulkWrites,
  upsertRowsChunked,
} from './bulk.js'
import { checkpointerOf, SQLITE_CACHE_KIB, SQLITE_WAL_AUTOCHECKPOINT_PAGES } from './connect.js'

test('bulk-write settings: held while a stretch is open, through a settling pause, and restored after', async (t) => {
  const ctx = await bareContext(t)
  const db = ctx.db.kysely
  const cacheKib = async () =>
    -(await sql<{ cache_size: number }>`pragma cache_size`.execute(db)).rows[0]!.cache_size
  const autocheckpoint = async () =>
    (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db)).rows[0]!
      .wal_autocheckpoint
  const usual = { cache: SQLITE_CACHE_KIB, checkpoint: SQLITE_WAL_AUTOCHECKPOINT_PAGES }
  assert.deepEqual({ cache: await cacheKib(), checkpoint: await autocheckpoint() }, usual)

  // A stretch with no settle delay: the usual settings come back when it ends.
  const endSync = await startBulkWrites(db)
  assert.equal(await cacheKib(), BULK_CACHE_KIB)
  assert.ok((await autocheckpoint()) > SQLITE_WAL_AUTOCHECKPOINT_PAGES)
  await endSync()
  assert.deepEqual({ cache: await cacheKib(), checkpoint: await autocheckpoint() }, usual)

  // A settling stretch: still bulk right after it ends, and a new stretch within
  // the delay carries on with them; restored once the delay passes unbroken.
  const settleMs = 150
  let end = await startBulkWrites(db, { settleMs })
  await end()
  assert.equal(await cacheKib(), BULK_CACHE_KIB)
  await delay(settleMs / 3)
  end = await startBulkWrites(db, { settleMs })
  await delay(settleMs * 1.5)
  assert.equal(await cacheKib(), BULK_CACHE_KIB, 'the pending restore was cancelled')
  await end()
  assert.equal(await cacheKib(), BULK_CACHE_KIB)
  await delay(settleMs * 3)
  assert.deepEqual({ cache: await cacheKib(), checkpoint: await autocheckpoint() }, usual)

  // Overlapping stretches: the last to end decides; `end(true)` skips the delay.
  const endA = await startBulkWrites(db, { settleMs })
  const endB = await startBulkWrites(db)
  await endB()
  assert.equal(await cacheKib(), BULK_CACHE_KIB, 'another stretch is still open')
  await endA(true)
  assert.deepEqual({ cache: await cacheKib(), checkpoint: await autocheckpoint() }, usual)
})

test('bulk writes on a SQLite file: a background thread checkpoints after each commit, so the writer never has to', async (t) => {
  const ctx = await bareContext(t)
  const db = ctx.db.kysely
  const checkpointer = checkpointerOf(db)
  assert.ok(checkpointer, 'a SQLite file gets a checkpoint thread')
  const path = ctx.config.database.path
  await sql`create table scratch (payload blob not null)`.execute(db)
  const end = await startBulkWrites(db)
  const before = statSync(path).size
  // 4 units of 1 MiB each, far below the writer's bulk autocheckpoint (65,536 pages):
  // their pages reach the database file only if the thread copies them.
  const payload = Buffer.alloc(4096, 7)
  for (let unit = 0; unit < 4; unit++) {
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < 256; i++) await sql`insert into scratch values (${payload})`.execute(trx)
    })
  }
  await checkpointer.settled()
  const grown = statSync(path).size - before
  assert.ok(grown >= 4 * 1024 * 1024, `the database file grew by ${grown} bytes`)
  await end()
  // The usual settings are back, and the data reads back whole.
  const { rows } = await sql<{ n: number }>`select count(*) as n from scratch`.execute(db)
  assert.equal(rows[0]!.n, 1024)
})

test("outside a bulk stretch too, the thread checkpoints after commits, below the writer's own threshold", async (t) => {
  const ctx = await bareContext(t)
  const db = ctx.db.kysely
  const checkpointer = checkpointerOf(db)
  assert.ok(checkpointer)
  await sql`create table scratch (payload blob not null)`.execute(db)
  const before = statSync(ctx.config.database.path).size
  // 1 MiB in manual-sized units, far below SQLITE_WAL_AUTOCHECKPOINT_PAGES (32 MiB):
  // the pages reach the database file only if the thread copies them.
  const payload = Buffer.alloc(4096, 7)
  for (let i = 0; i < 256; i++) await sql`insert into scratch values (${payload})`.execute(db)
  await checkpointer.settled()
  const grown = statSync(ctx.config.database.path).size - before
  assert.ok(grown >= 1024 * 1024, `the database file grew by ${grown} bytes`)
})

test('an in-memory SQLite has no checkpoint thread', async (t) => {
  const ctx = await bareContext(t, { env: { SERVICE_DATABASE_PATH: ':memory:' } })
  assert.equal(checkpointerOf(ctx.db.kysely), null)
})

test("a bulk stretch's end waits for its own last checkpoint, not for another stretch that keeps committing", async (t) => {
  const ctx = await bareContext(t)
  const db = ctx.db.kysely
  await sql`create table scratch (payload blob not null)`.execute(db)
  const payload = Buffer.alloc(4096, 7)
  const unit = () =>
    db.transaction().execute(async (trx) => {
      for (let i = 0; i < 64; i++) await sql`insert into scratch values (${payload})`.execute(trx)
    })
  // A sync's stretch ends while a plugin's backlog starts one and commits on and on.
  const endSync = await startBulkWrites(db)
  await unit()
  let ended = false
  const ending = endSync().then(() => (ended = true))
  const endPlugin = await startBulkWrites(db, { settleMs: 50 })
  let units = 0
  while (!ended && units < 400) {
    await unit()
    units++
    // A plugin's batches come from its worker thread: the event loop turns between them.
    await new Promise((resolve) => setImmediate(resolve))
  }
  await ending
  await endPlugin(true)
  assert.ok(units < 400, `the sync's end waited for all ${units} of the plugin's units`)
})

test('SQLite, a multi-row insert that fails: in a transaction the rollback takes its earlier rows, outside one it leaves none', async (t) => {
  const ctx = await bareContext(t)
  const db = ctx.db.kysely
  // `or fail` (no statement journal) inside a transaction: the rows before the
  // failing one stay until the transaction rolls back, which takes them all.
  await sql`insert into organizations (id, name, source, created_at, updated_at)
    values ('org', 'Org', 'manual', '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z')`.execute(db)
  const columns = ['id', 'name', 'source', 'created_at', 'updated_at'] as const
  const at = '2024-01-01T00:00:00Z'
  const rows = [
    ['a', 'A', 'manual', at, at],
    ['b', null, 'manual', at, at], // name is NOT NULL
  ]
  const count = async () =>
    Number(
      (await sql<{ n: number }>`select count(*) as n from organizations`.execute(db)).rows[0]!.n,
    )
  let partial = -1
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      try {
        await insertRows(trx, 'organizations', columns, rows)
      } finally {
        partial = Number(
          (await sql<{ n: number }>`select count(*) as n from organizations`.execute(trx)).rows[0]!
            .n,
        )
      }
    }),
    /NOT NULL/,
  )
  assert.equal(partial, 2, 'inside the transaction the failing statement kept the row before it')
  assert.equal(await count(), 1, 'the rollback took it')
  // Outside a transaction a statement is all-or-nothing on its own.
  await assert.rejects(insertRows(db, 'organizations', columns, rows), /NOT NULL/)
  assert.equal(await count(), 1)
})

test('identifiers are quoted whole: a name holding a double quote stays one name, never SQL', async (t) => {
  const ctx = await bareContext(t)
  const db = ctx.db.kysely
  // A column name that would close the identifier and add a SELECT if quoted naively.
  const column = `name") select 'injected', ? --`
  await sql`create table ${sql.id('odd "table')} (id text primary key, ${sql.id(column)} text)`.execute(
    db,
  )
  const table = 'odd "table' as never
  await insertRows(db, table, ['id', column] as never, [['a', 'first']])
  await upsertRowsChunked(
    db,
    table,
    ['id'] as never,
    ['id', column] as never,
    [['a', 'second']],
    (r) => r,
  )
  await deleteRowsMatching(db, table, [{ name: column, type: 'text' }], [['nothing']])
  const { rows } = await sql<Record<string, string>>`select * from ${sql.id('odd "table')}`.execute(
    db,
  )
  assert.deepEqual(rows, [{ id: 'a', [column]: 'second' }])
})

// SQLite's bulk-write settings (a larger page cache, checkpoints deferred) hold
// while any stretch is open; a stretch that asks to settle keeps them through a
// short pause, so a plugin catching up with a sync does not shrink the cache and
// checkpoint the WAL at every short batch.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import { sql } from 'kysely'
import { bareContext } from '../../test/helpers/context.js'
import { BULK_CACHE_KIB, startBulkWrites } from './bulk.js'
import { SQLITE_CACHE_KIB } from './connect.js'

test('bulk-write settings: held while a stretch is open, through a settling pause, and restored after', async (t) => {
  const ctx = await bareContext(t)
  const db = ctx.db.kysely
  const cacheKib = async () =>
    -(await sql<{ cache_size: number }>`pragma cache_size`.execute(db)).rows[0]!.cache_size
  const autocheckpoint = async () =>
    (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db)).rows[0]!
      .wal_autocheckpoint
  const usual = { cache: SQLITE_CACHE_KIB, checkpoint: 1000 }
  assert.deepEqual({ cache: await cacheKib(), checkpoint: await autocheckpoint() }, usual)

  // A stretch with no settle delay: the usual settings come back when it ends.
  const endSync = await startBulkWrites(db)
  assert.equal(await cacheKib(), BULK_CACHE_KIB)
  assert.ok((await autocheckpoint()) > 1000)
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

// PostgreSQL: an unchanged re-sync rewrites `synced_at` on every row it reads
// again (SPEC 1.4). Migration 0017 leaves half of each page of `transactions`
// free, so that each new row version stays on its page as a HOT update, which
// writes no index entry (docs/performance.md, "Re-syncs on PostgreSQL: room on
// each page"). Counted in the re-sync's own transaction, where PostgreSQL's
// per-transaction statistics count every update.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { ingestBatchInUnit } from '../src/ledger/ingest.js'
import { POSTGRES_DSN, startTestApp } from './helpers/app.js'
import { csvBatch, ingest } from './helpers/ledger.js'

const ROWS = 1_000

test(
  'an unchanged re-sync updates its rows in place (HOT), writing no index entries',
  { skip: !POSTGRES_DSN && 'PostgreSQL only (COFFER_TEST_POSTGRES_DSN not set)' },
  async (t) => {
    const app = await startTestApp(t)
    const batch = csvBatch(
      Array.from({ length: ROWS }, (_, i) => ({
        id: `csv:row-${String(i).padStart(5, '0')}`,
        account_id: 'csv:checking',
        amount: `-${(i % 97) + 1}.25`,
        date: `2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
        description: `Card purchase at a shop on the corner of a long street #${i}`,
        payee: `Shop ${i % 40}`,
      })),
    )
    assert.equal((await ingest(app, batch)).inserted, ROWS)
    // The re-sync, counted in its own transaction. One pass: a second needs the
    // first's old versions pruned, which waits for every older snapshot of the
    // database (other tests' too); the bench shows the steady state (62,965
    // rows/s the second time).
    const { counts, updated, hot } = await app.ctx.ledger.mutate(async (uow) => {
      // The backend's counts not yet flushed to the shared statistics include
      // earlier transactions': the re-sync's are the difference.
      const stats = async () => {
        const { rows } = await sql<{ updated: string; hot: string }>`
          select pg_stat_get_xact_tuples_updated('transactions'::regclass) as updated,
                 pg_stat_get_xact_tuples_hot_updated('transactions'::regclass) as hot`.execute(
          uow.trx,
        )
        return { updated: Number(rows[0]!.updated), hot: Number(rows[0]!.hot) }
      }
      const before = await stats()
      const counts = await ingestBatchInUnit(uow, batch)
      const after = await stats()
      return { counts, updated: after.updated - before.updated, hot: after.hot - before.hot }
    })
    assert.deepEqual(counts, { inserted: 0, updated: 0, unchanged: ROWS })
    assert.equal(updated, ROWS, 'rows updated')
    // With full pages, none of the 1,000 was.
    assert.equal(hot, ROWS, `of ${updated} updates, ${hot} HOT`)
  },
)

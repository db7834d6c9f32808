// Migration 0015 (SQLite) moves each search document's number from
// search_documents onto its transaction's row. A ledger upgraded from the
// schema before it (by the service, as it starts) finds what it found before,
// drops the document of a row deleted before the upgrade by the number the
// queue now keeps, and numbers new rows after every number still in use.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../src/db/schema.js'
import { openDatabase } from '../src/db/connect.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { indexAllQueuedDocuments } from '../src/search/indexer.js'
import { processSandbox, startTestApp, type ProcessSandbox } from './helpers/app.js'
import { ledgerAtSchema } from './helpers/older-schema.js'

const BEFORE = '0014-droppable-keys'

/** id, description, document number; the last row is deleted before the upgrade. */
const ROWS = [
  ['csv:b', 'Coffee at the harbour', 3],
  ['csv:a', 'Coffee and a bun', 7],
  ['man_c', 'Rent for May', 9],
  ['man_d', 'Coffee beans, returned', 11],
] as const

/** A sandbox database at the schema before 0015 with ROWS and their documents, man_d deleted since. */
async function ledgerBefore(sandbox: ProcessSandbox): Promise<void> {
  const rows = ROWS.map(([id, description]) => ({ id, amount: '-4.50', description }))
  await ledgerAtSchema(sandbox, BEFORE, rows, async (k) => {
    for (const [id, description, n] of ROWS) {
      await sql`insert into search_documents (n, transaction_id) values (${n}, ${id})`.execute(k)
      await sql`insert into search_text (rowid, description, id) values (${n}, ${description}, ${id})`.execute(
        k,
      )
    }
    // Deleted, its document not dropped yet: the trigger of 0004 queued it.
    await sql`delete from transactions where id = 'man_d'`.execute(k)
  })
}

test('a ledger upgraded through 0015 keeps its documents by number, and drops a deleted row’s by the number queued', async (t) => {
  const sandbox = await processSandbox(t, 'upgrade-0015')
  if (sandbox.schema) return t.skip('SQLite only: PostgreSQL has no search documents')
  await ledgerBefore(sandbox)

  // Upgraded here first, so that the queue is seen before the service's indexer drains it.
  const db = openDatabase({ driver: 'sqlite', path: sandbox.dbPath, dsn: null })
  try {
    await migrateToLatest(db)
    await upgraded(db.kysely)
  } finally {
    await db.close()
  }

  const app = await startTestApp(t, { reuse: { dir: sandbox.dir, schema: sandbox.schema } })
  const k = app.ctx.db.kysely
  const search = async (q: string) => {
    const res = await app.request('GET', `/api/v1/transactions/search?q=${encodeURIComponent(q)}`)
    assert.equal(res.status, 200, res.text)
    return (res.body.transactions as Array<{ id: string }>).map((tx) => tx.id).sort()
  }
  const created = await app.request('POST', '/api/v1/transactions', {
    body: {
      account_id: 'man_acct',
      amount: '-3.00',
      date: '2024-05-02',
      description: 'Coffee, iced',
    },
  })
  assert.equal(created.status, 201, created.text)
  const newId = created.body.id as string
  // Migration 0016 counted the rows already there; the new one is counted as it is written.
  const list = await app.request('GET', '/api/v1/transactions?limit=0')
  assert.equal(list.body.total, 4, list.text)
  const newNumber = await sql<{ search_n: number }>`
    select search_n from transactions where id = ${newId}`.execute(k)
  // After every number in use: man_d's 11 too, until its document is dropped.
  const n = newNumber.rows[0]!.search_n
  assert.ok(n === 10 || n === 12, `numbered ${n}`)

  for (const state of ['as started', 'indexed']) {
    assert.deepEqual(await search('coffee'), ['csv:a', 'csv:b', newId].sort(), state)
    assert.deepEqual(await search('rent'), ['man_c'], state)
    await indexAllQueuedDocuments(app.ctx.ledger)
  }
  const documents = await sql<{
    rowid: number
  }>`select rowid from search_text order by rowid`.execute(k)
  assert.deepEqual(
    documents.rows.map((r) => r.rowid),
    [3, 7, 9, n],
  )
})

/** What 0015 leaves: the numbers on the rows, the deleted row's kept by its queue entry, no search_documents. */
async function upgraded(k: Kysely<Database>): Promise<void> {
  const numbers = await sql<{ id: string; search_n: number }>`
    select id, search_n from transactions order by search_n`.execute(k)
  assert.deepEqual(
    numbers.rows.map((r) => [r.id, r.search_n]),
    [
      ['csv:b', 3],
      ['csv:a', 7],
      ['man_c', 9],
    ],
  )
  const queued = await sql<{ transaction_id: string; n: number | null }>`
    select transaction_id, n from search_pending`.execute(k)
  assert.deepEqual(queued.rows, [{ transaction_id: 'man_d', n: 11 }])
  const tables = await sql<{ name: string }>`
    select name from sqlite_master where name = 'search_documents'`.execute(k)
  assert.deepEqual(tables.rows, [])
}

// Migration 0014 turns the history's key (and on SQLite the search documents'
// transaction id) from table constraints into unique indexes a first import can
// drop: a ledger upgraded from the schema before it (by the service, as it
// starts) keeps every version, in order, and the key still refuses a duplicate.
// (The search documents' table is gone since 0015: test/migration-document-numbers.test.ts.)
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { openDatabase } from '../src/db/connect.js'
import { knownMigrationNames, migrateToLatest } from '../src/db/migrate.js'
import { processSandbox, startTestApp, type ProcessSandbox } from './helpers/app.js'

const BEFORE = '0013-deferred-indexes'

const VERSIONS = [
  ['csv:b', 1, 'imported'],
  ['csv:a', 1, 'imported'],
  ['csv:b', 2, 'labeled'],
  ['man_c', 1, 'imported'],
  ['csv:a', 2, 'edited'],
] as const

/** A transaction as a version records it. */
function snapshot(id: string) {
  return {
    id,
    account_id: 'csv:checking',
    amount: '-4.50',
    date: '2024-05-01T00:00:00Z',
    description: `Coffee ${id}`,
    payee: null,
    memo: null,
    pending: false,
    source: 'csv',
    labels: {},
    extensions: {},
    synced_at: null,
  }
}

/** A sandbox database at the schema before 0014, holding VERSIONS. */
async function ledgerBefore(sandbox: ProcessSandbox): Promise<void> {
  const db = openDatabase({
    driver: sandbox.schema ? 'postgres' : 'sqlite',
    path: sandbox.dbPath,
    dsn: sandbox.env.SERVICE_DATABASE_DSN ?? null,
  })
  try {
    await migrateToLatest(db, { through: BEFORE })
    for (const [id, version, kind] of VERSIONS) {
      await sql`insert into transaction_versions (transaction_id, version, kind, occurred_at, snapshot, diff, actor)
        values (${id}, ${version}, ${kind}, '2024-05-01T00:00:00Z', ${JSON.stringify(snapshot(id))}, '{}', ${kind === 'labeled' ? 'plugin:x' : null})`.execute(
        db.kysely,
      )
    }
  } finally {
    await db.close()
  }
}

test('a ledger upgraded through 0014 keeps its versions, and their key stays unique', async (t) => {
  const sandbox = await processSandbox(t, 'upgrade-0014')
  await ledgerBefore(sandbox)

  // The service upgrades the schema as it starts, and says so.
  const app = await startTestApp(t, { reuse: { dir: sandbox.dir, schema: sandbox.schema } })
  const upgraded = app.logs
    .map((line) => JSON.parse(line) as { msg: string; migrations?: string[] })
    .filter((entry) => entry.msg === 'db: schema upgraded')
  assert.deepEqual(
    upgraded.map((entry) => entry.migrations),
    [knownMigrationNames().slice(knownMigrationNames().indexOf(BEFORE) + 1)],
  )

  // The history answers from the copied rows, in version order.
  const history = await app.request('GET', '/api/v1/transactions/csv:a/history')
  assert.equal(history.status, 200, history.text)
  assert.deepEqual(
    history.body.versions.map((v: { version: number; kind: string }) => [v.version, v.kind]),
    [
      [1, 'imported'],
      [2, 'edited'],
    ],
  )

  const k = app.ctx.db.kysely
  const versions = await sql<{ transaction_id: string; version: number; kind: string }>`
    select transaction_id, version, kind from transaction_versions order by transaction_id, version`.execute(
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
  if (app.ctx.db.dialect !== 'sqlite') return
  // Copied in the order they were written.
  const order = await sql<{
    transaction_id: string
  }>`select transaction_id from transaction_versions order by rowid`.execute(k)
  assert.deepEqual(
    order.rows.map((r) => r.transaction_id),
    VERSIONS.map((v) => v[0]),
  )
})

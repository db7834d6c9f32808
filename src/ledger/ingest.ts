// Merges rows fetched by a source into the ledger (SPEC 1.1, DESIGN "A source"):
// dedupe by id, `source` stamped at insert and never rewritten, labels,
// extensions and relationships untouched, `synced_at` refreshed on every row
// the batch touches, and an update event + `synced` version only when a
// source-owned field really changed. The sync engine calls this in its unit of work.
import { CompiledQuery } from 'kysely'
import { dialectOf } from '../db/schema.js'
import { appendVersions, CORE_FIELDS, diffCore, type NewVersion } from './history.js'
import { toAccountJson, toTransactionJson } from './json.js'
import type { UnitOfWork } from './unit-of-work.js'
import { upsertOrganizations } from './organizations.js'
import { toTransactionsJson } from './snapshots.js'
import type { AccountRow, TransactionRow } from './tables.js'
import { insertTransactionsInUnit } from './transactions.js'
import { inList } from '../db/in-list.js'

export interface IngestOrganization {
  id: string
  name: string
  domain?: string | null
}

export interface IngestAccount {
  id: string
  org_id: string
  name: string
  currency: string
  balance: string
}

export interface IngestTransaction {
  id: string
  account_id: string
  amount: string
  date: string
  description?: string | null
  payee?: string | null
  memo?: string | null
  pending?: boolean
}

export interface IngestBatch {
  source: string
  organizations?: IngestOrganization[]
  accounts?: IngestAccount[]
  transactions?: IngestTransaction[]
}

export interface IngestCounts {
  inserted: number
  updated: number
  unchanged: number
}

/**
 * Carried from one unit of a sync to the next: whether the last chunk found its
 * rows already there, so that the next one tries the re-sync fast path first.
 */
export interface IngestHint {
  mostlyExisting: boolean
}

// Ids per lookup: fewer, larger statements (SQLite allows 32766 parameters).
const LOOKUP_CHUNK = 1000

export async function ingestBatchInUnit(
  uow: UnitOfWork,
  batch: IngestBatch,
  hint: IngestHint = { mostlyExisting: false },
): Promise<IngestCounts> {
  const { trx, now } = uow
  await upsertOrganizations(
    uow,
    (batch.organizations ?? []).map((o) => ({
      id: o.id,
      name: o.name,
      domain: o.domain ?? null,
      source: batch.source,
    })),
  )

  for (const account of batch.accounts ?? []) {
    const existing = await trx
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', account.id)
      .executeTakeFirst()
    if (!existing) {
      const row: AccountRow = {
        ...account,
        source: batch.source,
        created_at: now,
        updated_at: now,
        synced_at: now,
      }
      await trx.insertInto('accounts').values(row).execute()
      uow.emit({
        type: 'account.created',
        entity_type: 'account',
        entity_id: row.id,
        data: toAccountJson(row),
      })
      continue
    }
    const changed =
      existing.name !== account.name ||
      existing.currency !== account.currency ||
      existing.balance !== account.balance ||
      existing.org_id !== account.org_id
    const next: AccountRow = { ...existing, ...account, source: existing.source, synced_at: now }
    if (changed) next.updated_at = now
    await trx
      .updateTable('accounts')
      .set({
        name: next.name,
        currency: next.currency,
        balance: next.balance,
        org_id: next.org_id,
        synced_at: now,
        updated_at: next.updated_at,
      })
      .where('id', '=', account.id)
      .execute()
    if (changed) {
      uow.emit({
        type: 'account.updated',
        entity_type: 'account',
        entity_id: next.id,
        data: toAccountJson(next),
      })
    }
  }

  const counts: IngestCounts = { inserted: 0, updated: 0, unchanged: 0 }
  // Identical ids within one batch collapse to the last occurrence.
  const incoming = [...new Map((batch.transactions ?? []).map((t) => [t.id, t])).values()]
  for (let i = 0; i < incoming.length; i += LOOKUP_CHUNK) {
    const chunk = incoming.slice(i, i + LOOKUP_CHUNK)
    // A re-sync mostly finds its rows unchanged: one statement refreshes every row
    // of the chunk that is still identical, and when that is all of them, done.
    if (hint.mostlyExisting && (await refreshUnchanged(uow, chunk)) === chunk.length) {
      counts.unchanged += chunk.length
      continue
    }
    // Only the compared columns (a re-sync mostly finds nothing to change), with
    // the ids sorted so that the lookups walk the primary key in order.
    const existingRows = await trx
      .selectFrom('transactions')
      .select(['id', ...CORE_FIELDS])
      .where(inList(trx, 'id', chunk.map((t) => t.id).sort()))
      .execute()
    const existing = new Map(existingRows.map((r) => [r.id, r]))
    const fresh: TransactionRow[] = []
    const changed: TransactionRow[] = []
    const unchangedIds: string[] = []
    for (const t of chunk) {
      const row = newTransactionRow(t, batch.source, now)
      const old = existing.get(t.id)
      if (!old) fresh.push(row)
      // Compared on the rows (the core fields are columns of the same name): an
      // unchanged re-sync builds no JSON at all.
      else if (CORE_FIELDS.some((field) => old[field] !== row[field])) changed.push(row)
      else unchangedIds.push(t.id)
    }
    await insertTransactionsInUnit(uow, fresh)
    counts.inserted += fresh.length
    hint.mostlyExisting = existing.size * 2 >= chunk.length

    if (changed.length > 0) {
      // The whole rows for the snapshots before the change (the lookup read only some columns).
      const fullRows = await trx
        .selectFrom('transactions')
        .selectAll()
        .where(inList(trx, 'id', changed.map((r) => r.id).sort()))
        .execute()
      const full = new Map(fullRows.map((r) => [r.id, r]))
      const olds = changed.map((r) => full.get(r.id)!)
      const changedRows = changed.map((row, index) => ({
        ...row,
        source: olds[index]!.source,
        created_at: olds[index]!.created_at,
      }))
      const befores = await toTransactionsJson(trx, olds)
      const versions: NewVersion[] = []
      for (const [index, row] of changedRows.entries()) {
        const before = befores[index]!
        const after = toTransactionJson(row, before.labels, before.extensions)
        await trx
          .updateTable('transactions')
          .set({
            account_id: row.account_id,
            amount: row.amount,
            date: row.date,
            description: row.description,
            payee: row.payee,
            memo: row.memo,
            pending: row.pending,
            updated_at: now,
            synced_at: now,
          })
          .where('id', '=', row.id)
          .execute()
        versions.push({
          transaction_id: row.id,
          kind: 'synced',
          snapshot: after,
          diff: diffCore(before, after),
        })
        uow.emit({
          type: 'transaction.updated',
          entity_type: 'transaction',
          entity_id: row.id,
          data: after,
        })
      }
      await appendVersions(uow, versions)
      counts.updated += changedRows.length
    }

    // An unchanged row only has its synced_at refreshed, in one statement.
    if (unchangedIds.length > 0) {
      await trx
        .updateTable('transactions')
        .set({ synced_at: now })
        .where(inList(trx, 'id', unchangedIds.sort()))
        .execute()
      counts.unchanged += unchangedIds.length
    }
  }
  return counts
}

function newTransactionRow(t: IngestTransaction, source: string, now: string): TransactionRow {
  return {
    id: t.id,
    account_id: t.account_id,
    amount: t.amount,
    date: t.date,
    description: t.description ?? null,
    payee: t.payee ?? null,
    memo: t.memo ?? null,
    pending: t.pending ? 1 : 0,
    source,
    created_at: now,
    updated_at: now,
    synced_at: now,
  }
}

/** The incoming columns refreshUnchanged compares, in order; only the texts may be null. */
const COMPARED = ['id', ...CORE_FIELDS] as const
const NULLABLE = new Set<string>(['description', 'payee', 'memo'])

/** SQLite statement texts by row count (a full chunk repeats, so its statement stays prepared). */
const sqliteRefreshTexts = new Map<number, string>()

/**
 * Sets synced_at on the rows of `chunk` whose source-owned fields all still hold
 * the incoming values, in one UPDATE joined to the incoming rows, and returns
 * how many it refreshed: the database compares, nothing is read back.
 */
async function refreshUnchanged(
  uow: UnitOfWork,
  chunk: readonly IngestTransaction[],
): Promise<number> {
  const fields = (t: IngestTransaction) => [
    t.id,
    t.account_id,
    t.amount,
    t.date,
    t.description ?? null,
    t.payee ?? null,
    t.memo ?? null,
    t.pending ? 1 : 0,
  ]
  const same = (column: string, postgres: boolean, value: string) =>
    `t."${column}" ${NULLABLE.has(column) ? (postgres ? 'is not distinct from' : 'is') : '='} ${value}`
  let query: CompiledQuery
  if (dialectOf(uow.trx) === 'postgres') {
    // One array a column: nine parameters whatever the chunk's size, and a plan
    // that probes the primary key once the table is large.
    const arrays = COMPARED.map(
      (column, i) => `$${i + 2}::${column === 'pending' ? 'integer' : 'text'}[]`,
    )
    const text =
      `update "transactions" as t set "synced_at" = $1 from unnest(${arrays.join(', ')}) ` +
      `as v(${COMPARED.map((c) => `"${c}"`).join(', ')}) ` +
      `where ${COMPARED.map((c) => same(c, true, `v."${c}"`)).join(' and ')}`
    const incoming = chunk.map(fields)
    query = CompiledQuery.raw(text, [
      uow.now,
      ...COMPARED.map((_, i) => incoming.map((row) => row[i])),
    ])
  } else {
    let text = sqliteRefreshTexts.get(chunk.length)
    if (text === undefined) {
      const tuple = `(${COMPARED.map(() => '?').join(', ')})`
      // SQLite names the columns of a VALUES list column1, column2, ...
      text =
        `update "transactions" as t set "synced_at" = ? ` +
        `from (values ${Array.from({ length: chunk.length }, () => tuple).join(', ')}) as v ` +
        `where ${COMPARED.map((c, i) => same(c, false, `v.column${i + 1}`)).join(' and ')}`
      sqliteRefreshTexts.set(chunk.length, text)
    }
    const parameters: unknown[] = [uow.now]
    for (const t of chunk) for (const value of fields(t)) parameters.push(value)
    query = CompiledQuery.raw(text, parameters)
  }
  const result = await uow.trx.executeQuery(query)
  return Number(result.numAffectedRows ?? 0n)
}

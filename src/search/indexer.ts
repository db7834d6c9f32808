// Builds the SQLite search documents (migration 0004). A new transaction gets
// its document in the unit of work that inserts it (the ledger's insert step, in
// bulk), so an import is searchable the moment it commits and leaves nothing
// behind. What is not an insert is queued in search_pending and rebuilt here in
// batches, like PostgreSQL's GIN "fastupdate" pending list: a label or extension
// change by the same step, in bulk (afterKeyedChange); an edit of the text and a
// delete by triggers (migration 0004); the backfill by migration 0004. The narrowing counts every queued transaction as a candidate
// (narrow.ts), so a backlog makes some searches slower for a while, never wrong;
// the queue only holds what was edited in the last moments. PostgreSQL needs
// none of this: its trigram indexes are maintained by the database.
import { sql } from 'kysely'
import type { ServiceContext } from '../context.js'
import { chunksOf } from '../db/bulk.js'
import { buildsSearchDocuments } from '../db/dialect.js'
import type { DbExecutor } from '../db/schema.js'
import type { JsonValue, TransactionJson } from '../ledger/json.js'
import { fixedBatches, QueueDrainer } from './drainer.js'
import { extensionText } from './match.js'
import type { Ledger } from '../ledger/mutate.js'
import type { WriteStep } from '../ledger/unit-of-work.js'

/** Documents rebuilt per write transaction: short, so that ledger writes interleave. */
export const SEARCH_INDEX_BATCH = 2000

/**
 * The write step (ledger/unit-of-work.ts) that writes the documents of new
 * transactions in the unit that inserts them, and queues those of transactions
 * whose labels or extensions changed, one statement per batch (migration 0011:
 * a trigger per row cost a rules run or a plugin's writes about twice as
 * much). Edits of the text and deletes are queued by triggers (0004-search).
 */
export const searchDocumentsStep: WriteStep = {
  name: 'search documents',
  afterInsert: (uow, created) => insertNewDocuments(uow.trx, created),
  afterKeyedChange: (uow, _field, changed) => queueDocuments(uow.trx, changed),
}

/** Queues the documents of `changed` for a rebuild, once each. */
async function queueDocuments(
  db: DbExecutor,
  changed: ReadonlyArray<{ id: string }>,
): Promise<void> {
  if (!buildsSearchDocuments(db)) return
  for (const chunk of chunksOf(changed, NEW_DOCUMENTS_CHUNK)) {
    const ids = JSON.stringify(chunk.map((tx) => tx.id))
    await sql`insert into search_pending (transaction_id)
      select value from json_each(${ids}) where true on conflict do nothing`.execute(db)
  }
}

/** Documents per statement: one JSON parameter each, whatever the count. */
const NEW_DOCUMENTS_CHUNK = 5000

/**
 * Characters a search document holds rewritten, so that a trigram phrase of
 * printable ASCII matches a document exactly where the matcher's
 * toLowerCase().includes() matches the text (narrow.ts exactText): U+0130
 * lower-cases to "i̇" in JS but stays itself in FTS5, and U+017F folds to "s"
 * in FTS5 but stays itself in JS (U+02E2 folds to nothing in ASCII).
 */
const DOCUMENT_TEXT_REWRITES: ReadonlyArray<readonly [string, string]> = [
  ['\u0130', 'i\u0307'],
  ['\u017F', '\u02E2'],
]

/** A text as its search document holds it. */
function documentText(text: string): string {
  let out = text
  for (const [from, to] of DOCUMENT_TEXT_REWRITES) out = out.replaceAll(from, to)
  return out
}

/** The same rewrite in SQL, for documents rebuilt from the tables. */
function documentTextSql(expression: string): string {
  let out = expression
  for (const [from, to] of DOCUMENT_TEXT_REWRITES) out = `replace(${out}, '${from}', '${to}')`
  return out
}

/** A text that may be null, as its document holds it. */
function documentTextOrNull(text: string | null): string | null {
  return text === null ? null : documentText(text)
}

/**
 * A document's labels: a `key:value` line each (the matcher reads the key, the
 * value and `key:value`).
 */
function labelLines(labels: Readonly<Record<string, string>>): string | null {
  const lines: string[] = []
  for (const key in labels) lines.push(documentText(`${key}:${labels[key]}`))
  return lines.length === 0 ? null : lines.join('\n')
}

/**
 * A document's extensions: the key and the value's text (extensionText: a
 * string's own text, anything else its JSON) on lines of their own, as the
 * matcher reads them apart.
 */
function extensionLines(extensions: Readonly<Record<string, JsonValue>>): string | null {
  const lines: string[] = []
  for (const key in extensions) lines.push(key, extensionText(extensions[key]!))
  return lines.length === 0 ? null : documentText(lines.join('\n'))
}

// The same lines built in SQL (a stored extension value is compact JSON).
const LABEL_LINES_SQL = `(select group_concat(${documentTextSql("key || ':' || value")}, char(10)) from transaction_labels where transaction_id = t.id)`
const EXTENSION_LINES_SQL = `(select group_concat(${documentTextSql(
  "key || char(10) || (case when json_type(value) = 'text' then value ->> '$' else value end)",
)}, char(10)) from transaction_extensions where transaction_id = t.id)`

/**
 * Writes the search documents of transactions just inserted (with their labels
 * and extensions), in bulk, in the caller's transaction: nothing is queued. The
 * documents are numbered after the highest one, so they go at the end of
 * search_documents in order. None is written where the database indexes by itself.
 */
export async function insertNewDocuments(
  db: DbExecutor,
  created: readonly TransactionJson[],
): Promise<void> {
  if (created.length === 0 || !buildsSearchDocuments(db)) return
  await dropStaleDocuments(
    db,
    created.map((tx) => tx.id),
  )
  for (const chunk of chunksOf(created, NEW_DOCUMENTS_CHUNK)) {
    const top = await sql<{ n: number | null }>`select max(n) as n from search_documents`.execute(
      db,
    )
    const after = Number(top.rows[0]?.n ?? 0)
    const documents = JSON.stringify(
      chunk.map((tx) => [
        tx.id,
        documentTextOrNull(tx.description),
        documentTextOrNull(tx.payee),
        documentTextOrNull(tx.memo),
        labelLines(tx.labels),
        extensionLines(tx.extensions),
      ]),
    )
    await sql`insert into search_documents (n, transaction_id)
      select ${after} + key + 1, value ->> 0 from json_each(${documents})`.execute(db)
    await sql`insert into search_text (rowid, description, payee, memo, id, labels, extensions)
      select ${after} + key + 1, value ->> 1, value ->> 2, value ->> 3, ${sql.raw(documentTextSql('value ->> 0'))}, value ->> 4, value ->> 5
      from json_each(${documents})`.execute(db)
  }
}

/**
 * A transaction deleted and created again may still have its old document,
 * until the queue entry its delete left is processed: drop both first. The
 * queue is short, so this costs a probe of it per id.
 */
async function dropStaleDocuments(db: DbExecutor, ids: readonly string[]): Promise<void> {
  const stale = await sql<{ transaction_id: string }>`
    delete from search_pending where transaction_id in (select value from json_each(${JSON.stringify(ids)}))
    returning transaction_id`.execute(db)
  if (stale.rows.length === 0) return
  const staleIds = sql`(select value from json_each(${JSON.stringify(stale.rows.map((r) => r.transaction_id))}))`
  await sql`delete from search_text where rowid in
    (select n from search_documents where transaction_id in ${staleIds})`.execute(db)
  await sql`delete from search_documents where transaction_id in ${staleIds}`.execute(db)
}

/**
 * Rebuilds up to `batch` queued documents in one unit of the one mutation path
 * (it emits no event: a document is derived data, not a ledger change); returns
 * how many were queued.
 */
export async function indexQueuedDocuments(
  ledger: Pick<Ledger, 'mutate'>,
  batch = SEARCH_INDEX_BATCH,
): Promise<number> {
  return ledger.mutate(async ({ trx }) => {
    const queued = await sql<{ transaction_id: string }>`
      select transaction_id from search_pending limit ${batch}`.execute(trx)
    if (queued.rows.length === 0) return 0
    // One JSON parameter for the whole batch, whatever its size.
    const ids = JSON.stringify(queued.rows.map((r) => r.transaction_id))
    const batchIds = sql`(select value from json_each(${ids}))`
    await sql`delete from search_text where rowid in
      (select n from search_documents where transaction_id in ${batchIds})`.execute(trx)
    await sql`delete from search_documents where transaction_id in ${batchIds}`.execute(trx)
    // A deleted transaction only loses its document.
    await sql`insert into search_documents (transaction_id)
      select id from transactions where id in ${batchIds}`.execute(trx)
    await sql`insert into search_text (rowid, description, payee, memo, id, labels, extensions)
      select d.n, ${sql.raw(documentTextSql('t.description'))}, ${sql.raw(documentTextSql('t.payee'))},
        ${sql.raw(documentTextSql('t.memo'))}, ${sql.raw(documentTextSql('t.id'))},
        ${sql.raw(LABEL_LINES_SQL)}, ${sql.raw(EXTENSION_LINES_SQL)}
      from search_documents d join transactions t on t.id = d.transaction_id
      where d.transaction_id in ${batchIds}`.execute(trx)
    await sql`delete from search_pending where transaction_id in ${batchIds}`.execute(trx)
    return queued.rows.length
  })
}

/** Rebuilds queued documents until none is left; returns how many. */
export function indexAllQueuedDocuments(ledger: Pick<Ledger, 'mutate'>): Promise<number> {
  const drainOnce = fixedBatches(SEARCH_INDEX_BATCH, (batch) => indexQueuedDocuments(ledger, batch))
  return QueueDrainer.drainAll(drainOnce).then((drained) => drained.taken)
}

/** In `coffer serve` on SQLite: drains the queue whenever it holds something. */
export function searchIndexer(ctx: ServiceContext): QueueDrainer {
  return new QueueDrainer(ctx, {
    name: 'search',
    enabled: buildsSearchDocuments(ctx.db.kysely),
    drainOnce: fixedBatches(SEARCH_INDEX_BATCH, (batch) => indexQueuedDocuments(ctx.ledger, batch)),
    logged: 'search: indexed queued documents',
    unit: 'documents',
  })
}

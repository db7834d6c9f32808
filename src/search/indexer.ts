// Builds the SQLite search documents (migrations 0004 and 0012): per transaction,
// one of its text (search_text) and, when it has labels or extensions, one of
// those (search_keys), both numbered by the transaction's `search_n` (migration
// 0015). A new transaction gets its number with its row and its documents in the
// unit of work that inserts it (the ledger's insert step, in bulk), so an import
// is searchable the moment it commits and leaves nothing behind. What is not an
// insert is queued and rebuilt here in batches, like PostgreSQL's GIN
// "fastupdate" pending list: an edit of the text and a delete by
// triggers (migration 0004) and backfills (0007, 0012) in search_pending, which
// rebuilds both documents. A label or extension change gets its new keys
// document in its own unit too, from the snapshots the same step is handed
// (afterKeyedChange), up to KEYS_DOCUMENTS_PER_UNIT a unit; beyond that (a large
// rules run) in search_keys_pending, which rebuilds the small keys document
// alone. The narrowing counts every queued transaction as a candidate
// (narrow.ts), so a backlog makes some searches slower for a while, never wrong;
// the queues only hold what was edited in the last moments. PostgreSQL needs
// none of this: its trigram indexes are maintained by the database.
import { sql, type RawBuilder } from 'kysely'
import type { ServiceContext } from '../context.js'
import { chunksOf } from '../db/bulk.js'
import { buildsSearchDocuments } from '../db/dialect.js'
import type { DbExecutor } from '../db/schema.js'
import type { JsonValue, TransactionJson } from '../ledger/json.js'
import { fixedBatches, QueueDrainer, type DrainedBatch } from './drainer.js'
import { extensionText } from './match.js'
import { ROW_HASH_ID_GLOB } from './row-hash-ids.js'
import type { Ledger } from '../ledger/mutate.js'
import type { UnitOfWork, WriteStep } from '../ledger/unit-of-work.js'

/** Documents rebuilt per write transaction: short, so that ledger writes interleave. */
export const SEARCH_INDEX_BATCH = 2000

/**
 * The write step (ledger/unit-of-work.ts) that writes the documents of new
 * transactions in the unit that inserts them, and the keys documents of
 * transactions whose labels or extensions changed in the unit that changes
 * them (a unit with more queues the rest), in bulk as the unit ends (migration
 * 0011: a trigger per row cost a rules run or a plugin's writes about twice as
 * much). Edits of the text and deletes are queued by triggers (0004-search).
 */
export const searchDocumentsStep: WriteStep = {
  name: 'search documents',
  rowColumns: async (uow, born) => {
    if (born.length === 0 || !buildsSearchDocuments(uow.trx)) return null
    const first = (await highestDocumentNumber(uow.trx)) + 1
    firstNumbers(uow).set(born, first)
    return { names: ['search_n'], values: born.map((_, i) => [first + i]) }
  },
  afterInsert: async (uow, created) => {
    if (created.length === 0 || !buildsSearchDocuments(uow.trx)) return
    const first = firstNumbers(uow).get(created)
    if (first === undefined)
      throw new Error('search documents: new rows came without their numbers')
    await dropStaleDocuments(
      uow.trx,
      created.map((tx) => tx.id),
    )
    const documents = uow.memo(NEW_DOCUMENTS, () => [] as NumberedTransaction[])
    for (const [i, tx] of created.entries()) documents.push({ n: first + i, tx })
  },
  beforeCommit: async (uow) => {
    await insertNewDocuments(
      uow.trx,
      uow.memo(NEW_DOCUMENTS, () => []),
    )
    // After the new ones: a row born in this unit and labelled since has its number now.
    await writeKeysDocuments(uow.trx, [...uow.memo(CHANGED_KEYS, () => new Map()).values()])
  },
  afterKeyedChange: async (uow, _field, changed) => {
    if (!buildsSearchDocuments(uow.trx)) return
    const gathered = uow.memo(CHANGED_KEYS, () => new Map<string, TransactionJson>())
    if (gathered.size + changed.length > KEYS_DOCUMENTS_PER_UNIT) {
      await queueDocuments(uow.trx, changed)
      return
    }
    // Each transaction as it stands after the unit's last change of it.
    for (const tx of changed) gathered.set(tx.id, tx)
  },
}

/** A new transaction and its document number. */
interface NumberedTransaction {
  n: number
  tx: TransactionJson
}

/** The first document number of each batch of new rows (rowColumns), for afterInsert. */
const FIRST_NUMBERS = Symbol('first document numbers')
const firstNumbers = (uow: UnitOfWork) =>
  uow.memo(FIRST_NUMBERS, () => new Map<readonly TransactionJson[], number>())

/**
 * The highest document number in use: a live row's, or a dropped row's whose
 * documents are still to be removed (search_pending), so that no new document
 * takes the number of one that is still there. Both are indexed (the queue holds
 * a million entries after a restore or an upgrade's backfill).
 */
async function highestDocumentNumber(db: DbExecutor): Promise<number> {
  const { rows } = await sql<{ n: number | null }>`select max(n) as n from (
      select max(search_n) as n from transactions where search_n is not null
      union all select max(n) from search_pending where n is not null)`.execute(db)
  return Number(rows[0]?.n ?? 0)
}

/** The transactions whose labels or extensions the unit changed, by id, for writeKeysDocuments. */
const CHANGED_KEYS = Symbol('changed keys documents')

/**
 * Keys documents a unit writes itself, from its snapshots; past this, its
 * changes are queued for the indexer. A manual write, and up to half of a
 * plugin's batch (4,096, plugins/hooks.ts), is searchable as it commits, and
 * costs less than a queue entry and a rebuild from the tables would (in the
 * labelling bench the rebuilds were a fifth of a plugin's writes). A unit that
 * changes more (a rules run) queues the rest, and keeps its unit, which holds
 * every writer, short: at 10,000, a run over a million rows that changed 24,736
 * spent about a second of its 4.2 s unit writing keys documents; at 4,096
 * instead of 2,048 the plugin drained an import's labels about 2.5% sooner and
 * that run's unit held the writer about 10% longer (docs/performance.md,
 * "Rules runs and concurrent writes").
 */
export const KEYS_DOCUMENTS_PER_UNIT = 2_048

/**
 * The document numbers of the transactions `ids` (those that have one), each
 * with its place in `ids`. The plan is pinned, the ids outer and each looked up
 * by id: with statistics taken while few rows had a number (the benchmarks'
 * ledgers are analysed before their documents are built), SQLite walked every
 * numbered row of the number's index and scanned the ids for each, 32 s for
 * the 7,418 rows a rules run changed in a 300k-row ledger.
 */
export function documentNumbersOf(ids: readonly string[]) {
  return sql<{ n: number; at: number }>`select t.search_n as n, j.key as at
    from json_each(${JSON.stringify(ids)}) j
    cross join transactions t on t.id = j.value where +t.search_n is not null`
}

/**
 * Replaces the keys documents of `changed` (snapshots after their change) with
 * ones built from them; a transaction left without keys keeps none, and one
 * without a document number (its whole rebuild is queued) gets none here.
 */
async function writeKeysDocuments(
  db: DbExecutor,
  changed: readonly TransactionJson[],
): Promise<void> {
  if (changed.length === 0) return
  // Each number looked up once, not once to delete and again to insert: a
  // lookup by transaction id lands on a random page of a large index.
  const { rows: numbered } = await documentNumbersOf(changed.map((tx) => tx.id)).execute(db)
  if (numbered.length === 0) return
  const numbers = JSON.stringify(numbered.map(({ n }) => n))
  await sql`delete from search_keys where rowid in (select value from json_each(${numbers}))`.execute(
    db,
  )
  const documents: Array<[number, string | null, string | null]> = []
  for (const { n, at } of numbered) {
    const tx = changed[at]!
    const labels = labelLines(tx.labels)
    const extensions = extensionLines(tx.extensions)
    if (labels !== null || extensions !== null) documents.push([n, labels, extensions])
  }
  if (documents.length === 0) return
  await sql`insert into search_keys (rowid, labels, extensions)
    select value ->> 0, value ->> 1, value ->> 2 from json_each(${JSON.stringify(documents)})`.execute(
    db,
  )
}

/**
 * The unit's new transactions, whose documents are written as it ends: FTS5
 * writes what it holds in memory to disk whenever a later statement of the
 * transaction opens a savepoint, so documents written batch by batch were
 * flushed as small segments several times a unit (5 s of a million-row import,
 * charged to whichever statement came next); written last, once.
 */
const NEW_DOCUMENTS = Symbol('new search documents')

/** Queues the keys documents of `changed` for a rebuild, once each. */
async function queueDocuments(
  db: DbExecutor,
  changed: ReadonlyArray<{ id: string }>,
): Promise<void> {
  if (!buildsSearchDocuments(db)) return
  for (const chunk of chunksOf(changed, NEW_DOCUMENTS_CHUNK)) {
    const ids = JSON.stringify(chunk.map((tx) => tx.id))
    await sql`insert into search_keys_pending (transaction_id)
      select value from json_each(${ids}) where true on conflict do nothing`.execute(db)
  }
}

/** Documents per statement: one JSON parameter each, whatever the count (a sync's unit is 5,000 rows). */
const NEW_DOCUMENTS_CHUNK = 10_000

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

/** SQL: a transaction id as its text document holds it: none for a row hash id (row-hash-ids.ts). */
function documentIdSql(expression: string): string {
  return `(case when ${expression} glob '${ROW_HASH_ID_GLOB}' then null else ${documentTextSql(expression)} end)`
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
 * and extensions, as they were born), in bulk, in the caller's transaction:
 * nothing is queued. Any stale document of theirs was dropped as they were
 * inserted; their numbers came with their rows (rowColumns).
 */
async function insertNewDocuments(
  db: DbExecutor,
  created: readonly NumberedTransaction[],
): Promise<void> {
  if (created.length === 0) return
  for (const chunk of chunksOf(created, NEW_DOCUMENTS_CHUNK)) {
    const rows = chunk.map(({ n, tx }) => [
      n,
      tx.id,
      documentTextOrNull(tx.description),
      documentTextOrNull(tx.payee),
      documentTextOrNull(tx.memo),
      labelLines(tx.labels),
      extensionLines(tx.extensions),
    ])
    const documents = JSON.stringify(rows)
    await sql`insert into search_text (rowid, description, payee, memo, id)
      select value ->> 0, value ->> 2, value ->> 3, value ->> 4, ${sql.raw(documentIdSql('value ->> 1'))}
      from json_each(${documents})`.execute(db)
    // Most imported rows have no keys: they get no keys document, and a chunk
    // without any skips the statement (reading the chunk's JSON again for
    // nothing cost 7 s of a million-row import).
    if (!rows.some((row) => row[5] !== null || row[6] !== null)) continue
    await sql`insert into search_keys (rowid, labels, extensions)
      select value ->> 0, value ->> 5, value ->> 6 from json_each(${documents})
      where value ->> 5 is not null or value ->> 6 is not null`.execute(db)
  }
}

/**
 * A transaction deleted and created again may still have its old document,
 * until the queue entry its delete left is processed: drop both first. The
 * queue is short, so this costs a probe of it per id. A keys entry left queued
 * for such an id only rebuilds its keys document once more.
 */
async function dropStaleDocuments(db: DbExecutor, ids: readonly string[]): Promise<void> {
  const stale = await sql<{ n: number | null }>`
    delete from search_pending where transaction_id in (select value from json_each(${JSON.stringify(ids)}))
    returning n`.execute(db)
  const numbers = stale.rows.flatMap(({ n }) => (n === null ? [] : [n]))
  if (numbers.length === 0) return
  await deleteDocumentsNumbered(db, sql`(select value from json_each(${JSON.stringify(numbers)}))`)
}

/** Drops the documents (text and keys) whose numbers `numbers` selects. */
async function deleteDocumentsNumbered(
  db: DbExecutor,
  numbers: RawBuilder<unknown>,
): Promise<void> {
  await sql`delete from search_text where rowid in ${numbers}`.execute(db)
  await sql`delete from search_keys where rowid in ${numbers}`.execute(db)
}

/**
 * The rows of `transactions` (as `t`) that `ids` selects and that have a
 * document number. `+search_n` keeps the number's index out of the plan (see
 * documentNumbersOf): with stale statistics SQLite walked the whole index for
 * each statement instead of looking the ids up.
 */
const numberedAmong = (ids: RawBuilder<unknown>) => sql`t.id in ${ids} and +t.search_n is not null`

/**
 * The document numbers of the queued transactions `ids` selects: the one their
 * row holds and, for a row deleted (or renumbered) since it was queued, the one
 * the queue kept.
 */
const queuedDocumentNumbers = (ids: RawBuilder<unknown>) =>
  sql`(select t.search_n from transactions t where ${numberedAmong(ids)}
    union select n from search_pending where transaction_id in ${ids} and n is not null)`

/** Drops the keys documents of the transactions `ids` selects. */
async function deleteKeysDocuments(db: DbExecutor, ids: RawBuilder<unknown>): Promise<void> {
  await sql`delete from search_keys where rowid in (select t.search_n from transactions t where ${numberedAmong(ids)})`.execute(
    db,
  )
}

/** Writes the keys documents of the transactions `ids` selects that have a number and keys. */
async function insertKeysDocuments(db: DbExecutor, ids: RawBuilder<unknown>): Promise<void> {
  await sql`insert into search_keys (rowid, labels, extensions)
    select n, labels, extensions from (
      select t.search_n as n, ${sql.raw(LABEL_LINES_SQL)} as labels, ${sql.raw(EXTENSION_LINES_SQL)} as extensions
      from transactions t where ${numberedAmong(ids)})
    where labels is not null or extensions is not null`.execute(db)
}

/**
 * Numbers the transactions `ids` selects that have no document number (rows
 * restored from a backup), after the highest in use.
 */
async function numberUnnumbered(db: DbExecutor, ids: RawBuilder<unknown>): Promise<void> {
  const { rows } = await sql<{ id: string }>`
    select id from transactions where id in ${ids} and search_n is null`.execute(db)
  if (rows.length === 0) return
  const after = await highestDocumentNumber(db)
  await sql`update transactions set search_n = j.n
    from (select ${after} + key + 1 as n, value as id from json_each(${JSON.stringify(rows.map((r) => r.id))})) j
    where transactions.id = j.id`.execute(db)
}

/**
 * Takes up to `batch` transactions queued in `queue` and rebuilds their
 * documents with `rebuild`, in one unit of the one mutation path (it emits no
 * event: a document is derived data, not a ledger change); returns how many
 * were queued.
 */
function rebuildQueued(
  ledger: Pick<Ledger, 'mutate'>,
  queue: 'search_pending' | 'search_keys_pending',
  batch: number,
  rebuild: (trx: DbExecutor, batchIds: RawBuilder<unknown>) => Promise<void>,
): Promise<number> {
  return ledger.mutate(async ({ trx }) => {
    const queued = await sql<{ transaction_id: string }>`
      select transaction_id from ${sql.table(queue)} limit ${batch}`.execute(trx)
    if (queued.rows.length === 0) return 0
    // One JSON parameter for the whole batch, whatever its size.
    const ids = JSON.stringify(queued.rows.map((r) => r.transaction_id))
    const batchIds = sql`(select value from json_each(${ids}))`
    await rebuild(trx, batchIds)
    await sql`delete from ${sql.table(queue)} where transaction_id in ${batchIds}`.execute(trx)
    return queued.rows.length
  })
}

/** Rebuilds up to `batch` queued whole documents (text and keys); returns how many were queued. */
export function indexQueuedDocuments(
  ledger: Pick<Ledger, 'mutate'>,
  batch = SEARCH_INDEX_BATCH,
): Promise<number> {
  return rebuildQueued(ledger, 'search_pending', batch, async (trx, batchIds) => {
    await deleteDocumentsNumbered(trx, queuedDocumentNumbers(batchIds))
    // A deleted transaction only loses its documents; a live one keeps its number.
    await numberUnnumbered(trx, batchIds)
    await sql`insert into search_text (rowid, description, payee, memo, id)
      select t.search_n, ${sql.raw(documentTextSql('t.description'))}, ${sql.raw(documentTextSql('t.payee'))},
        ${sql.raw(documentTextSql('t.memo'))}, ${sql.raw(documentIdSql('t.id'))}
      from transactions t where ${numberedAmong(batchIds)}`.execute(trx)
    await insertKeysDocuments(trx, batchIds)
    // Their keys documents are new too.
    await sql`delete from search_keys_pending where transaction_id in ${batchIds}`.execute(trx)
  })
}

/**
 * Rebuilds up to `batch` queued keys documents (label and extension changes);
 * returns how many were queued. A transaction with no document (its whole
 * rebuild is queued, or it is gone) gets none here: search_pending sees to it.
 */
export function indexQueuedKeys(
  ledger: Pick<Ledger, 'mutate'>,
  batch = SEARCH_INDEX_BATCH,
): Promise<number> {
  return rebuildQueued(ledger, 'search_keys_pending', batch, async (trx, batchIds) => {
    await deleteKeysDocuments(trx, batchIds)
    await insertKeysDocuments(trx, batchIds)
  })
}

/**
 * One batch of either queue: whole documents first, then keys documents once
 * none of those is left.
 */
function drainBothQueues(ledger: Pick<Ledger, 'mutate'>): () => Promise<DrainedBatch> {
  const documents = fixedBatches(SEARCH_INDEX_BATCH, (batch) => indexQueuedDocuments(ledger, batch))
  const keys = fixedBatches(SEARCH_INDEX_BATCH, (batch) => indexQueuedKeys(ledger, batch))
  return async () => {
    const whole = await documents()
    if (whole.full) return whole
    const rest = await keys()
    return { taken: whole.taken + rest.taken, full: rest.full }
  }
}

/** Rebuilds queued documents (both queues) until none is left; returns how many. */
export function indexAllQueuedDocuments(ledger: Pick<Ledger, 'mutate'>): Promise<number> {
  return QueueDrainer.drainAll(drainBothQueues(ledger)).then((drained) => drained.taken)
}

/** In `coffer serve` on SQLite: drains the queue whenever it holds something. */
export function searchIndexer(ctx: ServiceContext): QueueDrainer {
  return new QueueDrainer(ctx, {
    name: 'search',
    enabled: buildsSearchDocuments(ctx.db.kysely),
    drainOnce: drainBothQueues(ctx.ledger),
    logged: 'search: indexed queued documents',
    unit: 'documents',
  })
}

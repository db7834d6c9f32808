// What free text needs decided in JS before its SQL can be exact (narrow.ts
// TextContext): the accounts whose name holds a needle, and the transactions
// whose search document is queued for a rebuild (src/search/indexer.ts). The
// matcher decides both, so the database never has to agree with it on them.
import { sql } from 'kysely'
import { buildsSearchDocuments } from '../db/dialect.js'
import type { DbExecutor } from '../db/schema.js'
import type { QueryNode } from './ast.js'
import { contains, matches } from './match.js'
import {
  isDocumentPhrase,
  ownTextHolds,
  QUEUED_IDS,
  type TextContext,
  type TextNode,
} from './narrow.js'
import { searchTuning } from './tuning.js'
import { loadSubjects } from './subjects.js'
import { inList } from '../db/in-list.js'

/**
 * The most queued documents decided here per search. The queue holds what was
 * edited in the last moments (about half a second); a longer one (a migration's
 * rebuild, a large rules run) leaves free text to narrow only until it drains.
 */
export const QUEUED_DECIDED_MAX = 2000

function textNodes(query: QueryNode): TextNode[] {
  const found: TextNode[] = []
  const stack: QueryNode[] = [query]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.kind === 'and' || node.kind === 'or') stack.push(...node.items)
    else if (node.kind === 'not') stack.push(node.item)
    else if (node.kind === 'text' || node.kind === 'field_text') found.push(node)
  }
  return found
}

/**
 * The text context of `query`; undefined when it has no text term. A stream
 * that reads pages over a long time (an export, a rules run) passes
 * `decideQueued: false`: the documents queued meanwhile then stay candidates as
 * they are queued, where a decision taken at the start would miss them, and
 * free text only narrows unless it is broad (a row test reads no document).
 */
export async function loadTextContext(
  db: DbExecutor,
  query: QueryNode,
  { decideQueued = true }: { decideQueued?: boolean } = {},
): Promise<TextContext | undefined> {
  const nodes = textNodes(query)
  if (nodes.length === 0) return undefined
  const accounts = await db.selectFrom('accounts').select(['id', 'name']).execute()
  const documents = buildsSearchDocuments(db)
  const queued = !decideQueued
    ? null
    : documents
      ? await queuedDecisions(db, nodes)
      : new Map<TextNode, string[]>()
  const broad = documents ? await broadTexts(db, nodes) : new Set<TextNode>()
  return {
    accountsMatching: (needle) => accounts.filter((a) => contains(a.name, needle)).map((a) => a.id),
    queuedMatching: (node) => (queued === null ? null : (queued.get(node) ?? [])),
    broadText: (node) => broad.has(node),
  }
}

/** Rows sampled to tell a broad needle: windows of WINDOW_ROWS spread over the table. */
const SAMPLE_WINDOWS = 4
const WINDOW_ROWS = 500

/**
 * SQLite: the text nodes (free, or of a field) whose needle the rows' own text
 * holds in at least searchTuning.broadTextShare of the rows, estimated from a
 * sample: a few windows of rows spread over the table (by rowid, each read in
 * order, every node tested on each row), about 2,000 rows tested in a
 * millisecond or two whether one row holds the needle or all of them. A table
 * of up to 2,000 rows is read whole.
 */
async function broadTexts(db: DbExecutor, nodes: readonly TextNode[]): Promise<Set<TextNode>> {
  // Free text, and a field of the row's own (`account:` is decided apart).
  const free = nodes.filter(
    (node) => isDocumentPhrase(node.needle) && (node.kind === 'text' || node.field !== 'account'),
  )
  const share = searchTuning.broadTextShare
  if (free.length === 0 || share === 0) return new Set(free)
  const { rows: last } = await sql<{
    n: number | null
  }>`select max(rowid) as n from transactions`.execute(db)
  let rows = 0
  const holding = free.map(() => 0)
  const sums = free.map((node, i) => sql`sum(${ownTextHolds(node)}) as ${sql.ref(`h${i}`)}`)
  for (const [from, to] of sampleWindows(Number(last[0]?.n ?? 0))) {
    const { rows: counted } = await sql<Record<string, number | null>>`select count(*) as rows,
      ${sql.join(sums)} from transactions where transactions.rowid between ${from} and ${to}`.execute(
      db,
    )
    rows += Number(counted[0]!.rows)
    free.forEach((_, i) => (holding[i]! += Number(counted[0]![`h${i}`] ?? 0)))
  }
  return new Set(free.filter((_, i) => rows > 0 && holding[i]! >= share * rows))
}

/** The windows of rowids (first, last) that broadTexts samples, out of 1..last. */
function sampleWindows(last: number): Array<[number, number]> {
  if (last <= SAMPLE_WINDOWS * WINDOW_ROWS) return last > 0 ? [[1, last]] : []
  const step = Math.floor(last / SAMPLE_WINDOWS)
  return Array.from({ length: SAMPLE_WINDOWS }, (_, i): [number, number] => {
    const from = i * step + 1
    return [from, from + WINDOW_ROWS - 1]
  })
}

/** Per text node, the queued transactions it matches; null when the queue is too long. */
async function queuedDecisions(
  db: DbExecutor,
  nodes: readonly TextNode[],
): Promise<Map<TextNode, string[]> | null> {
  const queued = await sql<{ transaction_id: string }>`
    ${QUEUED_IDS} limit ${QUEUED_DECIDED_MAX + 1}`.execute(db)
  if (queued.rows.length > QUEUED_DECIDED_MAX) return null
  const decided = new Map<TextNode, string[]>(nodes.map((node) => [node, []]))
  if (queued.rows.length === 0) return decided
  // A deleted transaction stays queued until its document is dropped: no row, no match.
  const rows = await db
    .selectFrom('transactions')
    .selectAll()
    .where(
      inList(
        db,
        'id',
        queued.rows.map((r) => r.transaction_id),
      ),
    )
    .execute()
  const subjects = await loadSubjects(db, rows, {
    labels: true,
    extensions: true,
    account: true,
    relationships: false,
  })
  for (const subject of subjects) {
    for (const node of nodes) {
      if (matches(node, subject)) decided.get(node)!.push(subject.transaction.id)
    }
  }
  return decided
}

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
  documentPhrase,
  isDocumentPhrase,
  QUEUED_IDS,
  type TextContext,
  type TextNode,
} from './narrow.js'
import { searchTuning } from './stream.js'
import { keptTransactionCount } from '../ledger/transaction-counts.js'
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

/** The text context of `query`; undefined when it has no text term. */
export async function loadTextContext(
  db: DbExecutor,
  query: QueryNode,
): Promise<TextContext | undefined> {
  const nodes = textNodes(query)
  if (nodes.length === 0) return undefined
  const accounts = await db.selectFrom('accounts').select(['id', 'name']).execute()
  const queued = buildsSearchDocuments(db)
    ? await queuedDecisions(db, nodes)
    : new Map<TextNode, string[]>()
  const broad = buildsSearchDocuments(db) ? await broadTexts(db, nodes) : new Set<TextNode>()
  return {
    accountsMatching: (needle) => accounts.filter((a) => contains(a.name, needle)).map((a) => a.id),
    queuedMatching: (node) => (queued === null ? null : (queued.get(node) ?? [])),
    broadText: (node) => broad.has(node),
  }
}

/**
 * SQLite: the free-text nodes whose needle is in the text documents of at least
 * searchTuning.broadTextShare of the ledger's rows. Counting stops at that
 * share, so a broad needle costs a fraction of what gathering its matches
 * would, and a rare one next to nothing.
 */
async function broadTexts(db: DbExecutor, nodes: readonly TextNode[]): Promise<Set<TextNode>> {
  const broad = new Set<TextNode>()
  const free = nodes.filter((node) => node.kind === 'text' && isDocumentPhrase(node.needle))
  if (free.length === 0) return broad
  const enough = Math.ceil(searchTuning.broadTextShare * (await keptTransactionCount(db)))
  for (const node of free) {
    if (enough === 0) {
      broad.add(node)
      continue
    }
    const { rows } = await sql<{ n: number }>`select count(*) as n from (select 1 from search_text
      where search_text match ${documentPhrase(node.needle)} limit ${enough})`.execute(db)
    if (Number(rows[0]!.n) >= enough) broad.add(node)
  }
  return broad
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

// The parsed form of a search query (CONTRACT 7). Values are normalized at parse
// time (needles lower-cased, periods turned into instant bounds, amounts checked)
// so that the matcher and the database pre-filter never re-interpret text.

/** One end of an interval; `inclusive` says whether the bound value itself is inside. */
export interface Bound {
  value: string
  inclusive: boolean
}

/** `min..max` (either side open); `outside` flips it (the `!=` operator). */
export interface Interval {
  min?: Bound
  max?: Bound
  outside: boolean
}

export type TextField = 'description' | 'payee' | 'memo' | 'account' | 'id'
export type ExactField = 'account_id' | 'source'
export type InstantField = 'date' | 'synced_at'
export type KeyedOp = 'has' | 'eq' | 'ne' | 'contains'

export type QueryNode =
  | { kind: 'all' }
  | { kind: 'and'; items: QueryNode[] }
  | { kind: 'or'; items: QueryNode[] }
  | { kind: 'not'; item: QueryNode }
  /** Free text; `needle` is lower-cased. */
  | { kind: 'text'; needle: string }
  | { kind: 'field_text'; field: TextField; needle: string }
  | { kind: 'exact'; field: ExactField; value: string }
  /** Bounds are amounts as accepted by decimal.ts. */
  | { kind: 'amount'; interval: Interval }
  /** Bounds are fixed-width UTC instants (time.ts), compared as text. */
  | { kind: 'instant'; field: InstantField; interval: Interval }
  | { kind: 'pending'; value: boolean }
  /** Labels: `key` lower-cased. `value` lower-cased (absent for `has`). */
  | { kind: 'label'; key: string; op: KeyedOp; value?: string }
  /** Extensions: `key` case-preserved. `value` lower-cased (absent for `has`). */
  | { kind: 'ext'; key: string; op: KeyedOp; value?: string }
  | { kind: 'rel'; relKind: string; target?: string }
  | { kind: 'related'; id: string }

const isNot = (node: QueryNode): node is Extract<QueryNode, { kind: 'not' }> => node.kind === 'not'

/**
 * What a query is the NOT of: `NOT x` of x, and an AND of NOTs (`-coffee
 * -seattle`) of the OR of what each negates; null for any other query. Counts
 * and sums of such a query are those of every filtered row less those of this
 * part, which its indexes find (search/service.ts, search/summary.ts), where
 * the query itself is a test of every row.
 */
export function negatedPart(query: QueryNode): QueryNode | null {
  if (query.kind === 'not') return query.item
  if (query.kind === 'and' && query.items.every(isNot))
    return { kind: 'or', items: query.items.map((item) => item.item) }
  return null
}

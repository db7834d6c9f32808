// The search language (CONTRACT 7) as one module shared by REST, MCP, rules,
// plugins and the dashboard: parse once, match with one evaluator, and let the
// database narrow the candidates without ever deciding an answer.
import type { QueryNode } from './ast.js'
import { parseQueryText } from './parse.js'

export { QueryError } from './query-error.js'
export { printQuery } from './print.js'
export { matches, extensionText, type MatchSubject } from './match.js'
export { matchingTransactions } from './stream.js'
export { searchTransactions, type SearchInput, type SearchResult } from './service.js'

/** A parsed query. Opaque to callers: pass it to `matches` or `matchingTransactions`. */
export type Query = QueryNode

/** Parses query text; throws QueryError (400) naming the problem and its offset. */
export function parseQuery(text: string): Query {
  return parseQueryText(text)
}

/**
 * A query read back from storage (a rule's): parsed without the bound on terms,
 * which new queries must meet but a rule stored before it existed may not. Such
 * a query is matched without SQL narrowing (narrow.ts), so it runs, slower.
 */
export function parseStoredQuery(text: string): Query {
  return parseQueryText(text, Number.POSITIVE_INFINITY)
}

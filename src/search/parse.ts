// Recursive-descent parser for the search language (CONTRACT 7):
//
//   query   := or?
//   or      := and (('OR' | '|') and)*
//   and     := unary (('AND' | '&')? unary)*
//   unary   := ('NOT' | '-') unary | primary
//   primary := '(' or ')' | term
//
// NOT binds tighter than AND, AND tighter than OR. Lists are loops; only
// parentheses and NOT recurse, and their depth is capped so no query can
// exhaust the stack. The number of terms is capped too, so every part of the
// engine that walks or compiles the tree (match.ts, narrow.ts) stays small.
import type { QueryNode } from './ast.js'
import { parseTerm } from './parse-term.js'
import { QueryError } from './query-error.js'
import { tokenize, type Token } from './tokenize.js'

/** Parentheses plus NOTs, nested; deeper is a QueryError. */
export const MAX_QUERY_DEPTH = 100

/** Terms (words, phrases, fields) in one query; more is a QueryError. */
export const MAX_QUERY_TERMS = 100

class Parser {
  private position = 0
  private depth = 0
  private terms = 0

  constructor(
    private readonly tokens: Token[],
    private readonly length: number,
    private readonly maxTerms: number,
  ) {}

  parseQuery(): QueryNode {
    if (this.tokens.length === 0) return { kind: 'all' }
    const node = this.parseOr()
    const next = this.peek()
    if (next) {
      // parseOr stops only at a ')' it did not open.
      throw new QueryError("unbalanced parenthesis: ')' without '('", next.offset)
    }
    return node
  }

  private peek(): Token | undefined {
    return this.tokens[this.position]
  }

  private parseOr(): QueryNode {
    const items = [this.parseAnd()]
    while (this.peek()?.type === 'or') {
      this.position++
      items.push(this.parseAnd())
    }
    return items.length === 1 ? items[0]! : { kind: 'or', items }
  }

  private parseAnd(): QueryNode {
    const items = [this.parseUnary()]
    for (;;) {
      const next = this.peek()
      if (!next || next.type === 'or' || next.type === ')') break
      if (next.type === 'and') this.position++
      items.push(this.parseUnary())
    }
    return items.length === 1 ? items[0]! : { kind: 'and', items }
  }

  private parseUnary(): QueryNode {
    const token = this.peek()
    if (token?.type === 'not') {
      this.position++
      this.enter(token.offset)
      const item = this.parseUnary()
      this.depth--
      return { kind: 'not', item }
    }
    return this.parsePrimary()
  }

  private parsePrimary(): QueryNode {
    const token = this.peek()
    if (!token) throw new QueryError('expected a term, found the end of the query', this.length)
    switch (token.type) {
      case '(': {
        this.position++
        this.enter(token.offset)
        if (this.peek()?.type === ')') throw new QueryError('empty parentheses', token.offset)
        const inner = this.parseOr()
        if (this.peek()?.type !== ')') {
          throw new QueryError("unbalanced parenthesis: '(' is never closed", token.offset)
        }
        this.position++
        this.depth--
        return inner
      }
      case 'term':
        if (++this.terms > this.maxTerms) {
          throw new QueryError(`a query has at most ${this.maxTerms} terms`, token.offset)
        }
        this.position++
        return parseTerm(token.pieces, token.offset)
      case ')':
        throw new QueryError("unbalanced parenthesis: ')' without '('", token.offset)
      default:
        throw new QueryError(`expected a term, found ${token.type.toUpperCase()}`, token.offset)
    }
  }

  private enter(offset: number): void {
    if (++this.depth > MAX_QUERY_DEPTH) {
      throw new QueryError(`query nests deeper than ${MAX_QUERY_DEPTH} levels`, offset)
    }
  }
}

/**
 * `maxTerms`: MAX_QUERY_TERMS for every query a client sends. Only a query that
 * was accepted before the bound existed (a stored rule) is parsed with more, so
 * that it keeps running: narrow.ts then leaves it to the matcher.
 */
export function parseQueryText(text: string, maxTerms = MAX_QUERY_TERMS): QueryNode {
  return new Parser(tokenize(text), text.length, maxTerms).parseQuery()
}

// Query text → tokens. A term token keeps its pieces (quoted or not) so that the
// parser can tell `"ref:123"` (a phrase) from `ref:123` (a field) and
// `label:note="a b"` (a quoted value) from the operators around it.
import { QueryError } from './query-error.js'

export interface Piece {
  text: string
  quoted: boolean
  /** Offset of the piece's first character (after the opening quote, if quoted). */
  offset: number
}

export type Token =
  | { type: '(' | ')' | 'and' | 'or' | 'not'; offset: number }
  | { type: 'term'; offset: number; pieces: Piece[] }

// Blanks between terms, as a character class's body (print.ts quotes a value
// holding one): what JavaScript's trim() removes (so a pasted no-break space,
// U+3000 or U+FEFF separates words as a space does), but the vertical tab and
// form feed, which are refused as control characters.
export const BLANKS =
  ' \\t\\n\\r\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff'
const BLANK = new RegExp(`^[${BLANKS}]$`)
const isBlank = (ch: string): boolean => BLANK.test(ch)
// Characters that end an unquoted word, besides blanks.
const DELIMITERS = new Set(['(', ')', '"', '&', '|'])
// Characters after which a leading '-' is not a negation, besides blanks.
const ENDS_NEGATION = new Set([')', '&', '|'])

function checkControl(text: string, index: number): void {
  const code = text.charCodeAt(index)
  if ((code < 0x20 && !isBlank(text[index]!)) || code === 0x7f) {
    throw new QueryError(`control character U+${code.toString(16).padStart(4, '0')}`, index)
  }
}

const endsNegation = (ch: string): boolean => isBlank(ch) || ENDS_NEGATION.has(ch)

export function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const ch = text[i]!
    checkControl(text, i)
    if (isBlank(ch)) {
      i++
    } else if (ch === '(' || ch === ')') {
      tokens.push({ type: ch, offset: i++ })
    } else if (ch === '&') {
      tokens.push({ type: 'and', offset: i++ })
    } else if (ch === '|') {
      tokens.push({ type: 'or', offset: i++ })
    } else if (ch === '-' && i + 1 < text.length && !endsNegation(text[i + 1]!)) {
      // A leading '-' negates what follows it directly (a word, a phrase, a
      // parenthesis, another '-'); a lone '-' is a word.
      tokens.push({ type: 'not', offset: i++ })
    } else {
      i = readTerm(text, i, tokens)
    }
  }
  return tokens
}

// Reads adjacent unquoted runs and quoted strings as one term; returns the next index.
function readTerm(text: string, start: number, tokens: Token[]): number {
  const pieces: Piece[] = []
  let i = start
  while (i < text.length) {
    const ch = text[i]!
    if (ch === '"') {
      const close = text.indexOf('"', i + 1)
      if (close < 0) throw new QueryError('unterminated quote', i)
      for (let j = i + 1; j < close; j++) checkControl(text, j)
      pieces.push({ text: text.slice(i + 1, close), quoted: true, offset: i + 1 })
      i = close + 1
    } else if (isBlank(ch) || DELIMITERS.has(ch)) {
      break
    } else {
      const from = i
      while (i < text.length && !isBlank(text[i]!) && !DELIMITERS.has(text[i]!))
        checkControl(text, i++)
      pieces.push({ text: text.slice(from, i), quoted: false, offset: from })
    }
  }
  const only = pieces.length === 1 ? pieces[0]! : undefined
  if (only && !only.quoted) {
    const keyword = only.text.toLowerCase()
    if (keyword === 'and' || keyword === 'or' || keyword === 'not') {
      tokens.push({ type: keyword, offset: start })
      return i
    }
  }
  tokens.push({ type: 'term', offset: start, pieces })
  return i
}

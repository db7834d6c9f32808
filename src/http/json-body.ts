// Parses JSON request bodies. Two guards beyond JSON.parse: prototype-poisoning
// keys (`__proto__`, `constructor.prototype`) are refused, and so is any number
// that a double cannot hold without changing its value (12345678901234567890,
// 1e400): such a value could not be stored verbatim, so the client is asked to
// send it as a string instead of having it silently rounded. A third guard runs
// first: JSON nested deeper than MAX_JSON_DEPTH (schemas/json-depth.ts) is
// refused by a scan of the text, before anything recursive walks the value.
// A fourth runs last: a string or key holding a lone UTF-16 surrogate (`"\ud800"`,
// valid JSON) is refused, since neither database can store it: it would be kept
// as U+FFFD while the response and the event echoed what was sent.
import secureJson from 'secure-json-parse'
import { closingQuote, JSON_DEPTH_DETAIL, jsonTextTooDeep } from '../schemas/json-depth.js'
import { loneSurrogateIn, wellFormed } from '../schemas/unicode.js'

export class JsonBodyError extends SyntaxError {}

/** JSON that parses (or would) but cannot be accepted as sent; its message is the problem detail. */
export class UnusableJsonError extends Error {
  readonly statusCode = 400
}

/** Valid JSON, but a number in it cannot be kept exactly. */
export class InexactNumberError extends UnusableJsonError {}

/** Valid or not, the text nests arrays and objects deeper than MAX_JSON_DEPTH. */
export class JsonDepthError extends UnusableJsonError {
  constructor() {
    super(JSON_DEPTH_DETAIL)
  }
}

/** Valid JSON, but a string or key in it is not well-formed Unicode. */
export class LoneSurrogateError extends UnusableJsonError {}

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined
  if (jsonTextTooDeep(text)) throw new JsonDepthError()
  let value: unknown
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' })
  } catch (error) {
    throw new JsonBodyError(error instanceof Error ? error.message : 'invalid JSON')
  }
  const inexact = findInexactNumber(text)
  if (inexact !== null) {
    throw new InexactNumberError(
      `the number ${inexact.length > 40 ? inexact.slice(0, 40) + '…' : inexact} cannot be kept exactly; send it as a string`,
    )
  }
  const malformed = findLoneSurrogate(value)
  if (malformed !== null) {
    // The path may itself hold the surrogate (a key): it is shown as U+FFFD.
    const where = malformed.path === '' ? 'the body' : wellFormed(malformed.path)
    throw new LoneSurrogateError(
      `${where} holds a lone UTF-16 surrogate (U+${malformed.unit}); send well-formed Unicode`,
    )
  }
  return value
}

/** The first string or key (by its dotted path) holding a lone surrogate. A loop: depth is bounded already, but nothing here recurses. */
function findLoneSurrogate(value: unknown): { path: string; unit: string } | null {
  const stack: Array<{ item: unknown; path: string }> = [{ item: value, path: '' }]
  const check = (text: string, path: string) => {
    const unit = loneSurrogateIn(text)
    return unit === null ? null : { path, unit }
  }
  while (stack.length > 0) {
    const { item, path } = stack.pop()!
    if (typeof item === 'string') {
      const found = check(item, path)
      if (found) return found
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        const childPath = Array.isArray(item)
          ? `${path}[${key}]`
          : path === ''
            ? key
            : `${path}.${key}`
        const found = check(key, childPath)
        if (found) return found
        stack.push({ item: child, path: childPath })
      }
    }
  }
  return null
}

const NUMBER_TOKEN = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y

/** The first number literal outside strings whose value a double would change. */
function findInexactNumber(text: string): string | null {
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    if (ch === 0x22 /* " */) {
      i = closingQuote(text, i)
      continue
    }
    if (ch === 0x2d /* - */ || (ch >= 0x30 && ch <= 0x39)) {
      NUMBER_TOKEN.lastIndex = i
      const match = NUMBER_TOKEN.exec(text)
      if (!match) continue
      const token = match[0]
      i += token.length - 1
      // Up to 15 digits and no exponent always survive a double (16 digits,
      // as in 9007199254740993, may not).
      if (token.replace(/[-.]/g, '').length <= 15 && !/[eE]/.test(token)) continue
      if (!sameDecimal(token, String(Number(token)))) return token
    }
  }
  return null
}

/** Canonical (sign, digits, exponent) of a decimal literal, for value comparison. */
function canonical(literal: string): string | null {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(literal)
  if (!m) return null
  const digits = (m[2] ?? '') + (m[3] ?? '')
  let exponent = Number(m[4] ?? 0) - (m[3] ?? '').length
  const trimmed = digits.replace(/^0+/, '')
  if (trimmed === '') return '0'
  const noTrailing = trimmed.replace(/0+$/, '')
  exponent += trimmed.length - noTrailing.length
  return `${m[1]}${noTrailing}e${exponent}`
}

function sameDecimal(a: string, b: string): boolean {
  const left = canonical(a)
  const right = canonical(b)
  return left !== null && left === right
}

// Parses JSON request bodies. Two guards beyond JSON.parse: prototype-poisoning
// keys (`__proto__`, `constructor.prototype`) are refused, and so is any number
// that a double cannot hold without changing its value (12345678901234567890,
// 1e400): such a value could not be stored verbatim, so the client is asked to
// send it as a string instead of having it silently rounded. A third guard runs
// first: JSON nested deeper than MAX_JSON_DEPTH (schemas/json-depth.ts) is
// refused by a scan of the text, before anything recursive walks the value.
import secureJson from 'secure-json-parse'
import { closingQuote, JSON_DEPTH_DETAIL, jsonTextTooDeep } from '../schemas/json-depth.js'

export class JsonBodyError extends SyntaxError {}

/** Valid JSON, but a number in it cannot be kept exactly. */
export class InexactNumberError extends Error {
  readonly statusCode = 400
}

/** Valid or not, the text nests arrays and objects deeper than MAX_JSON_DEPTH. */
export class JsonDepthError extends Error {
  readonly statusCode = 400
  constructor() {
    super(JSON_DEPTH_DETAIL)
  }
}

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
  return value
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

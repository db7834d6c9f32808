// Checks one configuration value against its table entry. The same check serves the
// TOML file, the environment (after parseEnvText) and stored settings.

import { checkCsvFolders } from './csv-folders.js'
import { parseDuration } from './duration.js'
import { typeName, ValueProblem } from './problem.js'
import { isNullable, type ConfigKeySpec } from './schema.js'

// Structured ("json") keys validate with their own checker.
const JSON_CHECKERS: Record<string, (value: unknown) => unknown> = {
  'csv.folders': checkCsvFolders,
}

/**
 * Returns the normalized value (an empty string of a nullable string key becomes null,
 * string lists drop blank entries) or throws a ValueProblem.
 */
export function checkValue(spec: ConfigKeySpec, value: unknown): unknown {
  const wrongType = (expected: string): ValueProblem =>
    new ValueProblem(`expected ${expected}, got ${typeName(value)}`)

  switch (spec.kind) {
    case 'bool':
      if (typeof value !== 'boolean') throw wrongType('a boolean')
      return value
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw wrongType('an integer')
      // Past 2^53 an integer is no longer exact: out of range whatever the key's bounds.
      if (!Number.isSafeInteger(value)) {
        const [bound, limit] =
          value > 0
            ? ['most', spec.max ?? Number.MAX_SAFE_INTEGER]
            : ['least', spec.min ?? Number.MIN_SAFE_INTEGER]
        throw new ValueProblem(`must be at ${bound} ${limit}, got ${value}`)
      }
      if (spec.min !== undefined && value < spec.min) {
        throw new ValueProblem(`must be at least ${spec.min}, got ${value}`)
      }
      if (spec.max !== undefined && value > spec.max) {
        throw new ValueProblem(`must be at most ${spec.max}, got ${value}`)
      }
      return value
    case 'string':
      if (value === null && isNullable(spec)) return null
      if (typeof value !== 'string') throw wrongType('a string')
      if (value === '') {
        if (isNullable(spec)) return null
        throw new ValueProblem('must not be empty')
      }
      if (spec.fetched) checkFetchedUrl(value)
      return value
    case 'duration': {
      if (typeof value !== 'string') throw wrongType('a duration string such as "10s"')
      let ms: number
      try {
        ms = parseDuration(value)
      } catch (error) {
        throw new ValueProblem((error as Error).message)
      }
      if (spec.min !== undefined && ms < spec.min && !(ms === 0 && spec.zeroTurnsOff)) {
        throw new ValueProblem(`must be at least ${spec.min}ms, got ${JSON.stringify(value)}`)
      }
      if (spec.max !== undefined && ms > spec.max) {
        throw new ValueProblem(
          `must be at most ${spec.max / 60_000}m, got ${JSON.stringify(value)}`,
        )
      }
      return value
    }
    case 'enum': {
      const allowed = spec.enum ?? []
      if (typeof value !== 'string' || !allowed.includes(value)) {
        const got = typeof value === 'string' ? JSON.stringify(value) : typeName(value)
        throw new ValueProblem(`expected one of ${allowed.join(', ')}, got ${got}`)
      }
      return value
    }
    case 'string_list': {
      if (!Array.isArray(value)) throw wrongType('an array of strings')
      const list: string[] = []
      for (const [i, item] of value.entries()) {
        if (typeof item !== 'string') {
          throw new ValueProblem(`expected a string, got ${typeName(item)}`, `[${i}]`)
        }
        if (item.trim() !== '') list.push(item.trim())
      }
      return list
    }
    case 'json': {
      const checker = JSON_CHECKERS[spec.key]
      return checker ? checker(value) : value
    }
  }
}

/** An address to fetch; the problem never repeats the value, which may hold a password. */
function checkFetchedUrl(value: string): void {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ValueProblem('expected an absolute http(s) URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ValueProblem(
      `expected an http(s) URL, got the scheme ${JSON.stringify(url.protocol)}`,
    )
  if (url.username !== '' || url.password !== '')
    throw new ValueProblem(
      'must not carry a user name or password (user:password@host): fetch cannot send them',
    )
}

/** Turns an environment variable's text into the value checkValue expects. */
export function parseEnvText(spec: ConfigKeySpec, text: string): unknown {
  switch (spec.kind) {
    case 'bool': {
      const word = text.trim().toLowerCase()
      if (['true', '1', 'yes'].includes(word)) return true
      if (['false', '0', 'no'].includes(word)) return false
      throw new ValueProblem(
        `expected a boolean (true/false, 1/0, yes/no), got ${JSON.stringify(text)}`,
      )
    }
    case 'int':
      if (!/^[+-]?\d+$/.test(text.trim())) {
        throw new ValueProblem(`expected an integer, got ${JSON.stringify(text)}`)
      }
      return Number(text.trim())
    case 'string_list':
      // A JSON array, or the friendlier comma-separated form.
      if (text.trim().startsWith('[')) return parseJson(text)
      return text.split(',')
    case 'json':
      return parseJson(text)
    default:
      return text
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new ValueProblem(`invalid JSON: ${(error as Error).message}`)
  }
}

// The checks of label and extension values (SPEC 2.3) on their own, with no
// database behind them: the plugin sandbox's worker answers a plugin's writes
// with them (plugins/sandbox/worker.ts) as the ledger checks every other write.
import { Invalid } from '../errors.js'
import { JSON_DEPTH_DETAIL, MAX_JSON_DEPTH, jsonValueTooDeep } from '../schemas/json-depth.js'
import type { JsonValue } from './json.js'

export const LABEL_KEYS_MAX = 50
export const LABEL_KEY_MAX = 64
export const LABEL_VALUE_MAX = 256

// Letters and digits of any script, then also their combining marks and `_ . - /`;
// no spaces, `:` or `=`, which the search language uses as separators. Marks
// matter for lower-casing: "İ" lower-cases to "i" + U+0307 (combining dot above).
const LABEL_KEY_PATTERN = /^[\p{L}\p{N}][\p{L}\p{M}\p{N}_./-]*$/u
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/

/**
 * Canonical form of a label key: trimmed and lower-cased by Unicode's default
 * case mapping (String.prototype.toLowerCase), which is the same whatever the
 * server's locale: "İstanbul" is "i̇stanbul" everywhere, never Turkish-specific.
 */
export function canonicalLabelKey(key: string): string {
  return key.trim().toLowerCase()
}

export function validateLabels(input: Record<string, string>): Record<string, string> {
  const entries = Object.entries(input)
  if (entries.length > LABEL_KEYS_MAX) {
    throw Invalid.field('labels', `at most ${LABEL_KEYS_MAX} keys per transaction`)
  }
  const out: Record<string, string> = {}
  for (const [rawKey, value] of entries) {
    const key = canonicalLabelKey(rawKey)
    const field = `labels.${rawKey}`
    if (key.length === 0 || key.length > LABEL_KEY_MAX || !LABEL_KEY_PATTERN.test(key)) {
      throw Invalid.field(
        field,
        `a label key is 1 to ${LABEL_KEY_MAX} letters (any script), digits, "_", ".", "-" or "/", starting with a letter or digit`,
      )
    }
    if (Object.hasOwn(out, key))
      throw Invalid.field(field, `duplicates the key "${key}" once lower-cased`)
    if (value.length > LABEL_VALUE_MAX) {
      throw Invalid.field(field, `a label value is at most ${LABEL_VALUE_MAX} characters`)
    }
    if (CONTROL_CHARS.test(value)) throw Invalid.field(field, 'must not contain control characters')
    out[key] = value
  }
  return out
}

export const EXTENSION_KEYS_MAX = 50
export const EXTENSION_KEY_MAX = 100
export const EXTENSION_VALUE_MAX_BYTES = 8 * 1024

// Dot-separated segments of letters (of any script, with their combining marks),
// digits, `_` and `-`: `tax.deductible`, `custom.app.id`, `custom.ünï.κλειδί`.
// Kept verbatim (SPEC 2.3): no case folding, no normalisation.
const EXTENSION_KEY_PATTERN = /^[\p{L}\p{M}\p{N}_-]+(\.[\p{L}\p{M}\p{N}_-]+)*$/u

export function validateExtensions(input: Record<string, unknown>): Record<string, JsonValue> {
  const entries = Object.entries(input)
  if (entries.length > EXTENSION_KEYS_MAX) {
    throw Invalid.field('extensions', `at most ${EXTENSION_KEYS_MAX} keys per transaction`)
  }
  const out: Record<string, JsonValue> = {}
  for (const [key, value] of entries) {
    const field = `extensions.${key}`
    if (key.length > EXTENSION_KEY_MAX || !EXTENSION_KEY_PATTERN.test(key)) {
      throw Invalid.field(
        field,
        `an extension key is 1 to ${EXTENSION_KEY_MAX} characters: dot-separated segments of letters (any script), digits, "_" or "-"`,
      )
    }
    // The pattern allows it, but set on a plain object it sets the prototype and
    // the key vanishes. The HTTP body parser refuses it; a plugin's call gets here.
    if (key === '__proto__') throw Invalid.field(field, 'the key "__proto__" is reserved')
    // Before JSON.stringify, which recurses: a value from any caller is bounded
    // as the doors bound client JSON (schemas/json-depth.ts).
    if (jsonValueTooDeep(value, MAX_JSON_DEPTH)) throw Invalid.field(field, JSON_DEPTH_DETAIL)
    if (Buffer.byteLength(JSON.stringify(value)) > EXTENSION_VALUE_MAX_BYTES) {
      throw Invalid.field(field, `a value is at most ${EXTENSION_VALUE_MAX_BYTES} bytes of JSON`)
    }
    out[key] = value as JsonValue
  }
  return out
}

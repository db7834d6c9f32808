// What applying or unapplying rules does to one transaction's labels and
// extensions (CONTRACT 8), as pure functions over the JSON of SPEC 2.2. A rule
// sets its own keys and leaves other keys alone; rules apply in order, so a later
// rule wins a key that two rules set.
import { canonicalJson, type JsonValue, type TransactionJson } from '../ledger/json.js'
import { EXTENSION_KEYS_MAX } from '../ledger/extensions.js'
import { LABEL_KEYS_MAX } from '../ledger/labels.js'
import type { RuleEffect } from './store.js'

export interface KeyedValues {
  labels: Record<string, string>
  extensions: Record<string, JsonValue>
}

function sameJson(a: JsonValue | undefined, b: JsonValue): boolean {
  return a !== undefined && canonicalJson(a) === canonicalJson(b)
}

/** True when every key of the effect already holds the effect's value. */
export function effectHolds(tx: KeyedValues, effect: RuleEffect): boolean {
  for (const [key, value] of Object.entries(effect.labels)) {
    if (tx.labels[key] !== value) return false
  }
  for (const [key, value] of Object.entries(effect.extensions)) {
    if (!sameJson(tx.extensions[key], value)) return false
  }
  return true
}

/**
 * The maps after applying the effects in order: the net result of every rule.
 * A transaction holds at most 50 label and 50 extension keys (CONTRACT 6): a key
 * it does not have yet is added only while there is room; existing keys always
 * take the new value.
 */
export function withEffects(tx: KeyedValues, effects: readonly RuleEffect[]): KeyedValues {
  const labels = { ...tx.labels }
  const extensions = { ...tx.extensions }
  for (const effect of effects) {
    setWithin(labels, effect.labels, LABEL_KEYS_MAX)
    setWithin(extensions, effect.extensions, EXTENSION_KEYS_MAX)
  }
  return { labels, extensions }
}

function setWithin<V>(target: Record<string, V>, values: Record<string, V>, maxKeys: number): void {
  let size = Object.keys(target).length
  for (const [key, value] of Object.entries(values)) {
    if (Object.hasOwn(target, key)) target[key] = value
    else if (size < maxKeys) {
      target[key] = value
      size++
    }
  }
}

/** True when some key of the effect still holds the effect's value (so unapply removes it). */
export function effectPresent(tx: KeyedValues, effect: RuleEffect): boolean {
  return (
    Object.entries(effect.labels).some(([key, value]) => tx.labels[key] === value) ||
    Object.entries(effect.extensions).some(([key, value]) => sameJson(tx.extensions[key], value))
  )
}

/** The maps without the effect's keys where they still hold its values; other keys stay. */
export function withoutEffect(tx: TransactionJson, effect: RuleEffect): KeyedValues {
  const labels = { ...tx.labels }
  const extensions = { ...tx.extensions }
  for (const [key, value] of Object.entries(effect.labels)) {
    if (labels[key] === value) delete labels[key]
  }
  for (const [key, value] of Object.entries(effect.extensions)) {
    if (sameJson(extensions[key], value)) delete extensions[key]
  }
  return { labels, extensions }
}

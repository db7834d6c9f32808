// What applying or unapplying rules does to one transaction's labels and
// extensions (CONTRACT 8), as pure functions over the JSON of SPEC 2.2. A rule
// sets its own keys and leaves other keys alone; rules apply in order, so a later
// rule wins a key that two rules set.
import { canonicalJson, type JsonValue, type TransactionJson } from '../ledger/json.js'
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

/** The maps after applying the effects in order: the net result of every rule. */
export function withEffects(tx: KeyedValues, effects: readonly RuleEffect[]): KeyedValues {
  const labels = { ...tx.labels }
  const extensions = { ...tx.extensions }
  for (const effect of effects) {
    Object.assign(labels, effect.labels)
    Object.assign(extensions, effect.extensions)
  }
  return { labels, extensions }
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

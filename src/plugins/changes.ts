// A plugin's label and extension writes as values, with no database behind
// them: what a write call asks for (changeOf), the transaction with the changes
// kept so far over it (PendingChanges), and what the call answers. The host
// (host.ts, writes.ts) and the sandbox's worker, which answers writes to the
// transactions of the events it was handed without a round trip to the main
// thread (sandbox/worker.ts), both use these, so the two answer alike.
import type { JsonValue, TransactionJson } from '../ledger/json.js'
import { canonicalLabelKey, validateExtensions, validateLabels } from '../ledger/keyed-checks.js'

/** One call's change: keys set (or, with null, removed) in labels or extensions. */
export interface KeyedChange {
  field: 'labels' | 'extensions'
  keys: Record<string, JsonValue | null>
}

/** The host methods that write, and the capability each needs. */
export const WRITE_METHODS = {
  applyLabels: 'labels:write',
  removeLabels: 'labels:write',
  setExtension: 'extensions:write',
  removeExtension: 'extensions:write',
} as const

export type WriteMethod = keyof typeof WRITE_METHODS

export function isWriteMethod(method: string): method is WriteMethod {
  return Object.hasOwn(WRITE_METHODS, method)
}

export function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`${what}: expected a string`)
  return value
}

export function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${what}: expected an object`)
  return value as Record<string, unknown>
}

/** The keyed change a write call asks for (validated as far as it can be alone). */
export function changeOf(method: WriteMethod, args: unknown[]): KeyedChange {
  switch (method) {
    case 'applyLabels':
      return {
        field: 'labels',
        keys: validateLabels(stringValues(record(args[1], 'applyLabels(id, labels)'))),
      }
    case 'removeLabels':
      return {
        field: 'labels',
        keys: Object.fromEntries(
          keysOf(args[1], 'removeLabels(id, keys)').map((key) => [canonicalLabelKey(key), null]),
        ),
      }
    case 'setExtension': {
      const key = text(args[1], 'setExtension(id, key, value)')
      // A null value removes the key, as removeExtension does (docs/plugins.md).
      return { field: 'extensions', keys: validateExtensions({ [key]: args[2] }) }
    }
    case 'removeExtension':
      return { field: 'extensions', keys: { [text(args[1], 'removeExtension(id, key)')]: null } }
  }
}

/** What a write call answers: the field it wrote, as it stands after the call. */
export function writeAnswer(change: KeyedChange, after: TransactionJson): unknown {
  return change.field === 'labels'
    ? { id: after.id, labels: after.labels }
    : { id: after.id, extensions: after.extensions }
}

/** `before`'s labels and extensions with `changes` applied in order, checked as REST checks them. */
export function applied(
  before: TransactionJson,
  changes: readonly KeyedChange[],
): Pick<TransactionJson, 'labels' | 'extensions'> {
  const labels: Record<string, JsonValue> = { ...before.labels }
  const extensions: Record<string, JsonValue> = { ...before.extensions }
  for (const change of changes) {
    const target = change.field === 'labels' ? labels : extensions
    for (const [key, value] of Object.entries(change.keys)) {
      if (value === null) delete target[key]
      else target[key] = value
    }
  }
  return {
    labels: validateLabels(labels as Record<string, string>),
    extensions: validateExtensions(extensions),
  }
}

/** Changes kept per transaction, not yet written, in the order they were made. */
export class PendingChanges {
  private readonly changes = new Map<string, KeyedChange[]>()

  get size(): number {
    return this.changes.size
  }

  /** `tx` with the changes kept for it over it. */
  overlay(tx: TransactionJson): TransactionJson {
    const pending = this.changes.get(tx.id)
    return pending ? { ...tx, ...applied(tx, pending) } : tx
  }

  /** Checks `change` on `current` with the earlier ones, keeps it; answers the transaction after it. */
  add(current: TransactionJson, change: KeyedChange): TransactionJson {
    const pending = [...(this.changes.get(current.id) ?? []), change]
    const after = { ...current, ...applied(current, pending) }
    this.changes.set(current.id, pending)
    return after
  }

  /** Keeps changes already checked (by the sandbox's worker). */
  keep(id: string, change: KeyedChange): void {
    const pending = this.changes.get(id)
    if (pending) pending.push(change)
    else this.changes.set(id, [change])
  }

  /** Every kept change, by transaction (copies). */
  entries(): Array<[id: string, changes: KeyedChange[]]> {
    return [...this.changes].map(([id, changes]) => [id, [...changes]])
  }

  /** Every kept change, leaving none. */
  take(): Array<[id: string, changes: KeyedChange[]]> {
    const all = [...this.changes]
    this.changes.clear()
    return all
  }
}

function stringValues(labels: Record<string, unknown>): Record<string, string> {
  for (const [key, value] of Object.entries(labels))
    if (typeof value !== 'string')
      throw new Error(`applyLabels: the value of ${JSON.stringify(key)} must be a string`)
  return labels as Record<string, string>
}

function keysOf(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || value.some((k) => typeof k !== 'string'))
    throw new Error(`${what}: expected an array of keys`)
  return value as string[]
}

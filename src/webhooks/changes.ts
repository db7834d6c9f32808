// Tells the dispatcher of a service context that the registry changed, so that a
// webhook created, edited, rotated or deleted applies to the very next event.
// Keyed by the context (not a global list) so that several services in one
// process, as in the tests, stay apart.
import type { ServiceContext } from '../context.js'

const listeners = new WeakMap<ServiceContext, Set<() => void>>()

export function onWebhooksChanged(ctx: ServiceContext, listener: () => void): () => void {
  let set = listeners.get(ctx)
  if (!set) {
    set = new Set()
    listeners.set(ctx, set)
  }
  set.add(listener)
  return () => set.delete(listener)
}

export function webhooksChanged(ctx: ServiceContext): void {
  for (const listener of listeners.get(ctx) ?? []) listener()
}

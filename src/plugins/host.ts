// The host side of the `coffer` global (CONTRACT 9): each method checks the
// plugin's capability, then calls the same service a REST route would. Writes go
// through the one mutation path with `plugin:<name>` as the actor (writes.ts), so
// events and history record them like any other change and provenance names the
// plugin.
// Whatever is thrown here is thrown in the plugin, with its message only.
import type { Logger } from 'pino'
import type { ServiceContext } from '../context.js'
import { NotFound, ServiceError } from '../errors.js'
import { getTransaction } from '../ledger/transactions.js'
import type { SearchInput, SearchResult } from '../search/index.js'
import type { EgressPolicy, EgressRequest, PluginEgress } from './egress.js'
import type { Capability, ConfigValue, Manifest } from './manifest.js'
import { changeOf, isWriteMethod, record, text, WRITE_METHODS, writeAnswer } from './changes.js'
import { writeNow, type WriteBatch } from './writes.js'

const SEARCH_LIMIT_MAX = 100
const LOG_LEVELS = new Set(['debug', 'info', 'warn', 'error'])

export interface HostDeps {
  ctx: ServiceContext
  /** Searches as the REST door runs them (off the main thread on SQLite). */
  search: (input: SearchInput) => Promise<SearchResult>
  egress: PluginEgress
}

export interface PluginHostState {
  manifest: Manifest
  grants: string[]
  log: Logger
  /** The effective config (defaults with the stored changes over them). */
  config(): Record<string, ConfigValue>
  /** The write batch of the hooks running now, or null to write each change at once. */
  batch(): WriteBatch | null
  /** Stores the plugin's config changes (already checked); answers the effective config. */
  saveConfig(changes: Record<string, ConfigValue>): Promise<Record<string, ConfigValue>>
}

export class CapabilityError extends Error {
  override name = 'CapabilityError'
}

function need(state: PluginHostState, capability: Capability, method: string): void {
  if (!state.manifest.capabilities.includes(capability))
    throw new CapabilityError(
      `coffer.${method} needs the "${capability}" capability in plugin.toml`,
    )
}

/** Checks changes against the manifest's [config] defaults: known keys, the default's type. */
export function checkConfigChanges(
  defaults: Record<string, ConfigValue>,
  changes: Record<string, unknown>,
): Record<string, ConfigValue> {
  const out: Record<string, ConfigValue> = {}
  for (const [key, value] of Object.entries(changes)) {
    if (!Object.hasOwn(defaults, key))
      throw new Error(`setConfig: unknown key ${JSON.stringify(key)} (not in plugin.toml [config])`)
    const expected = typeof defaults[key]
    if (typeof value !== expected)
      throw new Error(`setConfig: ${key} must be a ${expected}, like its default`)
    if (typeof value === 'string' && value.length > 10_000)
      throw new Error(`setConfig: ${key} is longer than 10,000 characters`)
    out[key] = value as ConfigValue
  }
  return out
}

/** Answers one `coffer.<method>(...args)` of a plugin. */
export async function callHost(
  deps: HostDeps,
  state: PluginHostState,
  method: string,
  args: unknown[],
): Promise<unknown> {
  const { ctx } = deps
  const name = state.manifest.name
  const actor = `plugin:${name}`
  try {
    if (isWriteMethod(method)) {
      need(state, WRITE_METHODS[method], method)
      const id = text(args[0], `${method}(id)`)
      const change = changeOf(method, args)
      const batch = state.batch()
      const after = batch
        ? await batch.add(ctx, id, change)
        : await writeNow(ctx, id, change, actor)
      return writeAnswer(change, after)
    }
    switch (method) {
      case 'log': {
        const [level, message, fields] = args
        const lvl = typeof level === 'string' && LOG_LEVELS.has(level) ? level : 'info'
        const extra = typeof fields === 'object' && fields !== null ? { fields } : {}
        state.log[lvl as 'info'](extra, String(message).slice(0, 2000))
        return undefined
      }
      case 'setConfig':
        return await state.saveConfig(
          checkConfigChanges(state.manifest.config, record(args[0], 'setConfig')),
        )
      case 'getTransaction': {
        need(state, 'transactions:read', method)
        try {
          const tx = await getTransaction(ctx, text(args[0], 'getTransaction(id)'))
          // The hook's own writes of this batch are read back, though not yet written.
          return state.batch()?.overlay(tx) ?? tx
        } catch (error) {
          if (error instanceof NotFound) return null
          throw error
        }
      }
      case 'search': {
        need(state, 'transactions:read', method)
        const options = args[1] === undefined ? {} : record(args[1], 'search options')
        const limit =
          typeof options.limit === 'number' && Number.isInteger(options.limit)
            ? Math.min(Math.max(options.limit, 1), SEARCH_LIMIT_MAX)
            : 20
        // As REST: an empty query matches every transaction.
        if (typeof args[0] !== 'string') throw new Error('search(query): expected a string')
        const result = await deps.search({ q: args[0], limit })
        return { total: result.total, transactions: result.transactions }
      }
      case 'fetch': {
        need(state, 'net:fetch', method)
        const policy: EgressPolicy = { allow: state.manifest.net.allow, grants: state.grants }
        const request = record(args[0], 'fetch(request)') as unknown as EgressRequest
        return await deps.egress.fetch(name, policy, request)
      }
      default:
        throw new Error(`coffer.${method} is not a host function`)
    }
  } catch (error) {
    // The plugin sees the message of what it can fix; an internal failure is logged here.
    if (error instanceof ServiceError || error instanceof CapabilityError) throw error
    if (error instanceof Error && !(error instanceof TypeError)) throw new Error(error.message)
    state.log.error({ err: error }, `plugin ${name}: coffer.${method} failed`)
    throw new Error(`coffer.${method} failed`)
  }
}

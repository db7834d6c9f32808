// plugin.toml (CONTRACT 9): read and checked key by key, so that a mistake names
// the key it is in. A manifest that does not pass leaves its plugin in state
// "error" with this message; nothing of it runs.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import semver from 'semver'
import { parse as parseToml, TomlError } from 'smol-toml'

export const PLUGIN_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/

export const HOOKS = [
  'onTransactionCreate',
  'onTransactionUpdate',
  'onTransactionDelete',
  'onSyncComplete',
  'onPageRender',
  'onPageAction',
  'onUninstall',
] as const
export type HookName = (typeof HOOKS)[number]

export const CAPABILITIES = [
  'transactions:read',
  'labels:write',
  'extensions:write',
  'net:fetch',
  'ui:page',
] as const
export type Capability = (typeof CAPABILITIES)[number]

export const NET_ALLOW_MAX = 32
const TEXT_MAX = 500

/** A `[config]` value: the defaults' types are the only types a plugin's config takes. */
export type ConfigValue = string | number | boolean

export interface Manifest {
  name: string
  version: string
  description: string
  author: string
  runtime: 'js'
  entrypoint: string
  hooks: HookName[]
  capabilities: Capability[]
  config: Record<string, ConfigValue>
  ui: { title: string; icon: string | null }
  net: { allow: string[] }
}

export class ManifestError extends Error {
  override name = 'ManifestError'
}

const KNOWN_KEYS = new Set([
  'name',
  'version',
  'description',
  'author',
  'runtime',
  'entrypoint',
  'hooks',
  'capabilities',
  'config',
  'ui',
  'net',
])

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function text(doc: Record<string, unknown>, key: string, fallback?: string): string {
  const value = doc[key] ?? fallback
  if (typeof value !== 'string') throw new ManifestError(`${key}: expected a string`)
  if (value.length > TEXT_MAX) throw new ManifestError(`${key}: at most ${TEXT_MAX} characters`)
  return value
}

function names<T extends string>(
  doc: Record<string, unknown>,
  key: string,
  known: readonly T[],
  what: string,
): T[] {
  const value = doc[key] ?? []
  if (!Array.isArray(value)) throw new ManifestError(`${key}: expected an array of strings`)
  const out: T[] = []
  for (const item of value) {
    if (typeof item !== 'string' || !known.includes(item as T))
      throw new ManifestError(
        `${key}: unknown ${what} ${JSON.stringify(item)} (known: ${known.join(', ')})`,
      )
    if (!out.includes(item as T)) out.push(item as T)
  }
  return out
}

/** Checks a parsed plugin.toml; `folder` is the name of the folder it was found in. */
export function checkManifest(doc: unknown, folder: string): Manifest {
  if (!isTable(doc)) throw new ManifestError('plugin.toml: expected a table')
  for (const key of Object.keys(doc))
    if (!KNOWN_KEYS.has(key)) throw new ManifestError(`${key}: unknown key`)
  const name = text(doc, 'name')
  if (!PLUGIN_NAME.test(name))
    throw new ManifestError('name: must match ^[a-z0-9][a-z0-9_-]{0,63}$')
  if (name !== folder)
    throw new ManifestError(
      `name: ${JSON.stringify(name)} differs from its folder ${JSON.stringify(folder)}`,
    )
  const version = text(doc, 'version')
  if (semver.valid(version) === null)
    throw new ManifestError('version: expected a semver version such as 1.0.0')
  const runtime = text(doc, 'runtime', 'js')
  if (runtime !== 'js') throw new ManifestError('runtime: only "js" is supported')
  const entrypoint = text(doc, 'entrypoint', 'main.js')
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*\.(js|mjs|ts|mts)$/.test(entrypoint))
    throw new ManifestError('entrypoint: expected a .js or .ts file name beside plugin.toml')
  const hooks = names(doc, 'hooks', HOOKS, 'hook')
  if (hooks.length === 0) throw new ManifestError('hooks: name at least one hook')
  const capabilities = names(doc, 'capabilities', CAPABILITIES, 'capability')

  const config: Record<string, ConfigValue> = {}
  const rawConfig = doc.config ?? {}
  if (!isTable(rawConfig)) throw new ManifestError('config: expected a table')
  for (const [key, value] of Object.entries(rawConfig)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(key))
      throw new ManifestError(`config.${key}: expected a simple key`)
    if (typeof value === 'bigint') {
      if (!Number.isSafeInteger(Number(value)))
        throw new ManifestError(`config.${key}: the number is too large`)
      config[key] = Number(value)
    } else if (
      typeof value === 'string' ||
      typeof value === 'number' ||
      typeof value === 'boolean'
    ) {
      config[key] = value
    } else {
      throw new ManifestError(`config.${key}: expected a string, number or boolean default`)
    }
  }

  const rawUi = doc.ui ?? {}
  if (!isTable(rawUi)) throw new ManifestError('ui: expected a table')
  for (const key of Object.keys(rawUi))
    if (key !== 'title' && key !== 'icon') throw new ManifestError(`ui.${key}: unknown key`)
  const ui = {
    title: rawUi.title === undefined ? name : text(rawUi, 'title'),
    icon: rawUi.icon === undefined ? null : text(rawUi, 'icon'),
  }

  const rawNet = doc.net ?? {}
  if (!isTable(rawNet)) throw new ManifestError('net: expected a table')
  for (const key of Object.keys(rawNet))
    if (key !== 'allow') throw new ManifestError(`net.${key}: unknown key`)
  const allow = rawNet.allow ?? []
  if (!Array.isArray(allow)) throw new ManifestError('net.allow: expected an array of host names')
  if (allow.length > NET_ALLOW_MAX)
    throw new ManifestError(`net.allow: at most ${NET_ALLOW_MAX} hosts`)
  for (const host of allow)
    if (typeof host !== 'string' || !isBareHost(host))
      throw new ManifestError(
        `net.allow: ${JSON.stringify(host)} is not a bare host name or IP address`,
      )

  return {
    name,
    version,
    description: text(doc, 'description', ''),
    author: text(doc, 'author', ''),
    runtime: 'js',
    entrypoint,
    hooks,
    capabilities,
    config,
    ui,
    net: { allow: (allow as string[]).map((h) => h.toLowerCase()) },
  }
}

/** A host name or IP literal, without a scheme, port, path or wildcard. */
export function isBareHost(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false
  if (/^\[?[0-9a-f:.]+\]?$/i.test(host) && host.includes(':')) return true // IPv6 literal
  return /^[a-z0-9]([a-z0-9-]{0,62})(\.[a-z0-9]([a-z0-9-]{0,62}))*$/i.test(host)
}

/** Reads and checks `<dir>/plugin.toml`. */
export async function readManifest(dir: string, folder: string): Promise<Manifest> {
  let source: string
  try {
    source = await readFile(join(dir, 'plugin.toml'), 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new ManifestError(
      code === 'ENOENT' ? 'plugin.toml is missing' : `plugin.toml cannot be read (${code})`,
    )
  }
  let doc: unknown
  try {
    doc = parseToml(source, { integersAsBigInt: 'asNeeded' })
  } catch (error) {
    const where = error instanceof TomlError ? ` at line ${error.line}` : ''
    throw new ManifestError(`plugin.toml is not valid TOML${where}`)
  }
  return checkManifest(doc, folder)
}

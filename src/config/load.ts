// Builds the effective configuration: table defaults, then the TOML file, then SERVICE_*
// environment variables, then stored settings; each value is checked against schema.ts.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse, TomlError } from 'smol-toml'
import { splitHostPort } from './addr.js'
import type { CsvFolder } from './csv-folders.js'
import { isTable, typeName, ValueProblem } from './problem.js'
import { CONFIG_KEYS, envName, findConfigKey, isNullable, splitKey } from './schema.js'
import type { ConfigKeySpec } from './schema.js'
import { checkValue, parseEnvText } from './value.js'

export { isLoopbackAddr, splitHostPort } from './addr.js'
export type { CsvColumn, CsvFolder, CsvMapping } from './csv-folders.js'

export type DatabaseDriver = 'sqlite' | 'postgres'
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error'
export type LogFormat = 'text' | 'json'

/** The effective configuration, one property per key of schema.ts. Durations stay strings. */
export interface Config {
  server: {
    addr: string
    base_url: string
    allow_unauthenticated: boolean
    allowed_hosts: string[]
    allowed_origins: string[]
    request_timeout: string
  }
  database: { driver: DatabaseDriver; path: string; dsn: string | null }
  data: { dir: string }
  dashboard: { token: string | null }
  auth: { max_failures: number; failure_window: string }
  events: {
    enabled: boolean
    retention_days: number
    max_streams: number
    max_streams_per_client: number
  }
  webhooks: { enabled: boolean; max_attempts: number; timeout: string }
  sync: { interval: string; lookback_days: number }
  /** Search worker threads (SQLite); 0: in the request's thread. */
  search: { workers: number }
  aggregator: { access_url: string | null; setup_token: string | null }
  ethereum: {
    api_key: string | null
    chain_id: number
    address: string | null
    addresses: string[]
    api_url: string
    /** Explorer requests per second (client-side limit). */
    rate_limit: number
  }
  csv: {
    drive_client_id: string | null
    drive_client_secret: string | null
    drive_redirect_url: string | null
    drive_api_url: string
    drive_auth_url: string
    drive_token_url: string
    folders: CsvFolder[]
  }
  mcp: { enabled: boolean }
  plugins: {
    enabled: boolean
    dir: string
    registry_url: string | null
    hook_timeout: string
    memory_mib: number
    queue_size: number
  }
  update: { check: boolean; allow_apply: boolean; url: string | null }
  log: { level: LogLevel; format: LogFormat; access: boolean }
}

/** Where a key's effective value came from (CONTRACT 10 shows it per setting). */
export type ConfigOrigin = 'default' | 'file' | 'env' | 'stored'

export class ConfigError extends Error {
  /** The dotted key at fault, when there is one. */
  readonly key: string | null

  constructor(message: string, key: string | null = null) {
    super(message)
    this.name = 'ConfigError'
    this.key = key
  }
}

export interface LoadOptions {
  /** TOML file to read; null or omitted means no file. */
  file?: string | null
  /** Environment to read SERVICE_* variables from; defaults to process.env. */
  env?: Record<string, string | undefined>
  /** Stored settings (dotted key → JSON value), applied last. */
  stored?: Record<string, unknown>
}

/** Where a configuration was read from: loading it again with stored settings gives the same base. */
export interface ConfigSource {
  file: string | null
  env: Record<string, string | undefined>
}

export interface LoadResult {
  config: Config
  /** The file and environment read, to load again with stored settings (settings/). */
  source: ConfigSource
  /** Non-fatal findings, e.g. SERVICE_* variables that match no key. */
  warnings: string[]
  /** Origin of every dotted key. */
  origins: Record<string, ConfigOrigin>
}

/** `<cwd>/coffer.toml` when it exists, else null (CONTRACT 1: the default --config). */
export function defaultConfigPath(cwd: string): string | null {
  const path = join(cwd, 'coffer.toml')
  return existsSync(path) ? path : null
}

/** Loads, validates and completes the configuration; throws ConfigError naming the key. */
export function loadConfig(options: LoadOptions = {}): LoadResult {
  const values = new Map<string, unknown>()
  const origins: Record<string, ConfigOrigin> = {}
  const warnings: string[] = []
  for (const spec of CONFIG_KEYS) {
    values.set(spec.key, structuredClone(spec.default))
    origins[spec.key] = 'default'
  }
  const set = (spec: ConfigKeySpec, value: unknown, origin: ConfigOrigin): void => {
    values.set(spec.key, value)
    origins[spec.key] = origin
  }

  if (options.file) {
    for (const [spec, value] of readFileValues(options.file)) set(spec, value, 'file')
  }

  const env = options.env ?? process.env
  const envNames = new Set<string>()
  for (const spec of CONFIG_KEYS) {
    const name = envName(spec.key)
    envNames.add(name)
    const text = env[name]
    if (text !== undefined) set(spec, envValue(spec, name, text), 'env')
  }
  // Container platforms inject SERVICE_* names of their own; those are not our keys.
  for (const name of Object.keys(env).sort()) {
    if (name.startsWith('SERVICE_') && !envNames.has(name)) {
      warnings.push(`${name}: not a configuration key; ignored`)
    }
  }

  for (const [key, value] of Object.entries(options.stored ?? {})) {
    const spec = findConfigKey(key)
    if (!spec) {
      warnings.push(`stored setting ${key}: not a configuration key; ignored`)
      continue
    }
    set(
      spec,
      checked(spec, value, (path) => `stored setting ${spec.key}${path}`),
      'stored',
    )
  }

  const config = nest(values)
  completeConfig(config, (key) => describeSource(key, origins[key] ?? 'default'))
  return { config, source: { file: options.file ?? null, env }, warnings, origins }
}

/**
 * Checks one value as the config file would (used by PUT /settings/{key}); returns the
 * normalized value. Cross-key rules need a full loadConfig with the value stored.
 */
export function validateConfigValue(key: string, value: unknown): unknown {
  const spec = findConfigKey(key)
  if (!spec) throw new ConfigError(`${key}: unknown key`, key)
  return checked(spec, value, (path) => `${key}${path}`)
}

function readFileValues(file: string): [ConfigKeySpec, unknown][] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new ConfigError(`config file not found: ${file}`)
    throw new ConfigError(`cannot read config file ${file}: ${(error as Error).message}`)
  }

  let doc: Record<string, unknown>
  try {
    doc = parse(text)
  } catch (error) {
    if (!(error instanceof TomlError)) throw error
    // The parser's message continues with a code excerpt that could show a secret.
    const reason = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '')
    throw new ConfigError(`config: ${file}:${error.line}:${error.column}: ${reason}`)
  }

  const sections = new Set(CONFIG_KEYS.map((spec) => splitKey(spec.key)[0]))
  const out: [ConfigKeySpec, unknown][] = []
  for (const [section, body] of Object.entries(doc)) {
    if (!sections.has(section))
      throw new ConfigError(`config: ${section}: unknown section`, section)
    if (!isTable(body)) {
      throw new ConfigError(`config: ${section}: expected a table, got ${typeName(body)}`, section)
    }
    for (const [name, value] of Object.entries(body)) {
      const key = `${section}.${name}`
      const spec = findConfigKey(key)
      if (!spec) throw new ConfigError(`config: ${key}: unknown key`, key)
      out.push([spec, checked(spec, value, (path) => `config: ${key}${path}`)])
    }
  }
  return out
}

function envValue(spec: ConfigKeySpec, name: string, text: string): unknown {
  // An empty variable is how platforms say "unset" for an optional string.
  if (text === '' && spec.kind === 'string' && isNullable(spec)) return null
  return checked(spec, text, (path) => (path ? `${name}: ${spec.key}${path}` : name), true)
}

/** Runs checkValue, turning a ValueProblem into a ConfigError labelled by `where`. */
function checked(
  spec: ConfigKeySpec,
  value: unknown,
  where: (path: string) => string,
  fromEnv = false,
): unknown {
  try {
    return checkValue(spec, fromEnv ? parseEnvText(spec, value as string) : value)
  } catch (error) {
    if (!(error instanceof ValueProblem)) throw error
    throw new ConfigError(`${where(error.path)}: ${error.message}`, spec.key)
  }
}

function describeSource(key: string, origin: ConfigOrigin): string {
  if (origin === 'env') return envName(key)
  if (origin === 'stored') return `stored setting ${key}`
  return `config: ${key}`
}

// The flat key → value map as the nested Config. The table and the Config interface
// are kept in step by a test that compares their keys.
function nest(values: Map<string, unknown>): Config {
  const tree: Record<string, Record<string, unknown>> = {}
  for (const [key, value] of values) {
    const [section, name] = splitKey(key)
    tree[section] ??= {}
    tree[section][name] = value
  }
  return tree as unknown as Config
}

/** Rules that span keys or need more than a type check; resolves server.base_url. */
function completeConfig(config: Config, where: (key: string) => string): void {
  function fail(key: string, message: string): never {
    throw new ConfigError(`${where(key)}: ${message}`, key)
  }

  try {
    splitHostPort(config.server.addr)
  } catch (error) {
    fail(
      'server.addr',
      `invalid address ${JSON.stringify(config.server.addr)}: ${(error as Error).message}`,
    )
  }

  // base_url stays null in values until here, when server.addr is known.
  const baseUrl = config.server.base_url as string | null
  if (baseUrl === null) {
    config.server.base_url = `http://${config.server.addr}`
  } else {
    let url: URL | null = null
    try {
      url = new URL(baseUrl)
    } catch {
      // reported below
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      fail('server.base_url', `expected an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`)
    }
    config.server.base_url = baseUrl.replace(/\/+$/, '')
  }

  for (const name of config.server.allowed_hosts) {
    if (!/^(\[[0-9a-f:.]+\]|[^\s/?#@\\:[\]]+)(:\d{1,5})?$/i.test(name)) {
      fail('server.allowed_hosts', `expected a host name, got ${JSON.stringify(name)}`)
    }
  }
  config.server.allowed_origins = config.server.allowed_origins.map((origin) => {
    let url: URL | null = null
    try {
      url = new URL(origin)
    } catch {
      // reported below
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin === 'null') {
      fail('server.allowed_origins', `expected an http(s) origin, got ${JSON.stringify(origin)}`)
    }
    if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
      fail(
        'server.allowed_origins',
        `an origin is scheme://host[:port] with no path, got ${JSON.stringify(origin)}`,
      )
    }
    return url.origin
  })

  if (config.database.driver === 'postgres' && config.database.dsn === null) {
    fail('database.dsn', 'required when database.driver is "postgres"')
  }
}

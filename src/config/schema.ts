// Every configuration key of CONTRACT 2 in one table: the loader, the redactor and the
// editable-settings feature all read it, so a key is added here and nowhere else.

export type ConfigKind = 'bool' | 'int' | 'string' | 'duration' | 'enum' | 'string_list' | 'json'

export interface ConfigKeySpec {
  /** Dotted name, e.g. 'server.addr'. */
  key: string
  kind: ConfigKind
  /** Value when neither file nor environment sets it; null means unset. */
  default: unknown
  /** Never shown: redacted in GET /config, value hidden in settings. */
  secret: boolean
  /** Allowed values of an 'enum' key. */
  enum?: readonly string[]
  title: string
  /** Lower bound of an 'int' key, or of a 'duration' key in milliseconds. */
  min?: number
  /**
   * Upper bound, likewise: where a larger value would break what runs on it (a
   * timer past setTimeout's 24.8 days fires at once; the sandbox's heap is 32-bit).
   */
  max?: number
  /**
   * Not a setting (CONTRACT 10): set only in the file or the environment, so
   * GET /settings leaves it out and PUT or DELETE of it is 404.
   */
  settable?: false
  /** A stored setting applies at once, without a restart (CONTRACT 10). */
  live?: true
  /** A 'duration' key whose "0" turns its work off: `min` bounds every other value. */
  zeroTurnsOff?: true
  /**
   * An address the service fetches: an absolute http(s) URL without a user or
   * password, which fetch refuses to send (and would print in its error).
   */
  fetched?: true
}

// One line per key reads as a table, so prettier leaves it alone.
// prettier-ignore
export const CONFIG_KEYS: readonly ConfigKeySpec[] = [
  { key: 'server.addr', kind: 'string', default: '127.0.0.1:8080', secret: false, settable: false, title: 'Listen address (host:port)' },
  { key: 'server.base_url', kind: 'string', default: null, secret: false, settable: false, title: 'Public base URL (default: http://<server.addr>)' },
  { key: 'server.allow_unauthenticated', kind: 'bool', default: false, secret: false, settable: false, title: 'Allow binding beyond loopback without a dashboard token' },
  { key: 'server.allowed_hosts', kind: 'string_list', default: [], secret: false, settable: false, title: 'Extra host names the Host header may carry; IP addresses, localhost and the hosts of server.addr and server.base_url always pass (docs/security.md)' },
  { key: 'server.request_timeout', kind: 'duration', default: '30s', min: 1000, secret: false, settable: false, title: 'Longest a client may take to send a whole request (headers within 10s of it); slower is 408 (docs/security.md)' },
  { key: 'server.allowed_origins', kind: 'string_list', default: [], secret: false, settable: false, title: 'Extra browser origins (scheme://host[:port]) that may send state-changing requests (docs/security.md)' },

  { key: 'database.driver', kind: 'enum', enum: ['sqlite', 'postgres'], default: 'sqlite', secret: false, settable: false, title: 'Database driver' },
  { key: 'database.path', kind: 'string', default: 'data/coffer.db', secret: false, settable: false, title: 'SQLite database file' },
  // Secret only for its password; redact.ts masks just that part.
  { key: 'database.dsn', kind: 'string', default: null, secret: true, settable: false, title: 'PostgreSQL connection string' },

  { key: 'data.dir', kind: 'string', default: 'data', secret: false, settable: false, title: 'Data directory (secret store, plugin files)' },

  { key: 'dashboard.token', kind: 'string', default: null, secret: true, settable: false, title: 'Dashboard token' },

  { key: 'auth.max_failures', kind: 'int', default: 10, min: 1, secret: false, title: 'Failed authentications from one client address per auth.failure_window; beyond it, requests carrying a credential are 429 (docs/security.md)' },
  { key: 'auth.failure_window', kind: 'duration', default: '1m', min: 1000, max: 24 * 3_600_000, secret: false, title: 'Window in which auth.max_failures is counted, and how long the address then waits (at most 24h)' },

  { key: 'events.enabled', kind: 'bool', default: true, secret: false, title: 'Record events' },
  { key: 'events.retention_days', kind: 'int', default: 0, min: 0, max: 36_500, secret: false, title: 'Event retention in days (0 keeps all; at most 36500)' },
  { key: 'events.max_streams', kind: 'int', default: 100, min: 1, secret: false, title: 'Open event streams (SSE) in all; one more is 429 (docs/security.md)' },
  { key: 'events.max_streams_per_client', kind: 'int', default: 10, min: 1, secret: false, title: 'Open event streams per credential (API key, dashboard token, or client address without one); one more is 429' },

  { key: 'webhooks.enabled', kind: 'bool', default: true, secret: false, title: 'Deliver webhooks' },
  { key: 'webhooks.max_attempts', kind: 'int', default: 5, min: 1, secret: false, live: true, title: 'Webhook delivery attempts' },
  { key: 'webhooks.timeout', kind: 'duration', default: '10s', min: 1, max: 600_000, secret: false, live: true, title: 'Webhook request timeout (at most 10m)' },

  { key: 'sync.interval', kind: 'duration', default: '6h', min: 60_000, zeroTurnsOff: true, secret: false, live: true, title: 'Scheduled sync interval, at least 1m ("0" turns it off)' },
  { key: 'sync.lookback_days', kind: 'int', default: 90, min: 0, secret: false, live: true, title: 'Sync history window in days (0 means all)' },

  { key: 'search.workers', kind: 'int', default: 4, min: 0, secret: false, title: 'Worker threads that run searches on SQLite, each with its own read-only connection, at most the CPU cores; 0 runs them on the main thread, as PostgreSQL always does (docs/architecture.md)' },

  { key: 'aggregator.access_url', kind: 'string', default: null, secret: true, title: 'SimpleFIN access URL' },
  { key: 'aggregator.setup_token', kind: 'string', default: null, secret: true, title: 'SimpleFIN setup token' },

  { key: 'ethereum.api_key', kind: 'string', default: null, secret: true, title: 'Block explorer API key' },
  { key: 'ethereum.chain_id', kind: 'int', default: 1, min: 1, secret: false, title: 'EVM chain id' },
  { key: 'ethereum.address', kind: 'string', default: null, secret: false, settable: false, title: 'Watched address' },
  { key: 'ethereum.addresses', kind: 'string_list', default: [], secret: false, settable: false, title: 'Watched addresses' },
  { key: 'ethereum.api_url', kind: 'string', default: 'https://api.etherscan.io/v2/api', secret: false, fetched: true, title: 'Block explorer API endpoint' },
  { key: 'ethereum.rate_limit', kind: 'int', default: 3, min: 1, secret: false, title: 'Block explorer requests per second' },

  { key: 'csv.drive_client_id', kind: 'string', default: null, secret: false, title: 'Drive OAuth client id' },
  { key: 'csv.drive_client_secret', kind: 'string', default: null, secret: true, title: 'Drive OAuth client secret' },
  { key: 'csv.drive_redirect_url', kind: 'string', default: null, secret: false, title: 'Drive OAuth redirect URL' },
  { key: 'csv.drive_api_url', kind: 'string', default: 'https://www.googleapis.com/drive/v3', secret: false, fetched: true, title: 'Drive API endpoint' },
  { key: 'csv.drive_auth_url', kind: 'string', default: 'https://accounts.google.com/o/oauth2/v2/auth', secret: false, fetched: true, title: 'Drive OAuth authorization endpoint' },
  { key: 'csv.drive_token_url', kind: 'string', default: 'https://oauth2.googleapis.com/token', secret: false, fetched: true, title: 'Drive OAuth token endpoint' },
  { key: 'csv.folders', kind: 'json', default: [], secret: false, settable: false, title: 'CSV folders' },

  { key: 'mcp.enabled', kind: 'bool', default: true, secret: false, title: 'Mount /mcp' },

  { key: 'plugins.enabled', kind: 'bool', default: true, secret: false, title: 'Run plugins' },
  { key: 'plugins.dir', kind: 'string', default: 'data/plugins', secret: false, title: 'Installed plugins directory' },
  { key: 'plugins.registry_url', kind: 'string', default: null, secret: false, fetched: true, title: 'Plugin marketplace index URL' },
  { key: 'plugins.hook_timeout', kind: 'duration', default: '5s', min: 1, max: 600_000, secret: false, title: 'Plugin hook timeout (at most 10m)' },
  { key: 'plugins.memory_mib', kind: 'int', default: 64, min: 1, max: 2048, secret: false, title: 'Plugin memory limit (MiB, at most 2048)' },
  { key: 'plugins.queue_size', kind: 'int', default: 256, min: 1, secret: false, title: 'Plugin event queue size' },

  { key: 'update.check', kind: 'bool', default: false, secret: false, title: 'Check for updates' },
  { key: 'update.allow_apply', kind: 'bool', default: false, secret: false, title: 'Allow applying updates' },
  { key: 'update.url', kind: 'string', default: null, secret: false, fetched: true, title: 'Release feed URL' },

  { key: 'log.level', kind: 'enum', enum: ['trace', 'debug', 'info', 'warn', 'error'], default: 'info', secret: false, live: true, title: 'Log level' },
  { key: 'log.format', kind: 'enum', enum: ['text', 'json'], default: 'text', secret: false, live: true, title: 'Log format' },
  { key: 'log.access', kind: 'bool', default: true, secret: false, title: 'One info line per HTTP request (method, path without query values, status, duration, request id)' },
]

const BY_KEY = new Map(CONFIG_KEYS.map((spec) => [spec.key, spec]))

/** The table entry of a dotted key, or undefined for an unknown key. */
export function findConfigKey(key: string): ConfigKeySpec | undefined {
  return BY_KEY.get(key)
}

/** The environment variable that sets a key: server.addr → SERVICE_SERVER_ADDR. */
export function envName(key: string): string {
  return 'SERVICE_' + key.replace('.', '_').toUpperCase()
}

/** The section and name of a dotted key: 'server.addr' → ['server', 'addr']. */
export function splitKey(key: string): [section: string, name: string] {
  const dot = key.indexOf('.')
  return [key.slice(0, dot), key.slice(dot + 1)]
}

/** The keys that GET /settings lists and PUT /settings/{key} may change (CONTRACT 10). */
export function isSettable(spec: ConfigKeySpec): boolean {
  return spec.settable !== false
}

/** Whether an unset value is allowed: keys whose default is null. */
export function isNullable(spec: ConfigKeySpec): boolean {
  return spec.default === null
}

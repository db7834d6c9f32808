import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, defaultConfigPath, loadConfig, validateConfigValue } from './load.js'
import type { LoadResult } from './load.js'
import { CONFIG_KEYS, envName, splitKey } from './schema.js'

const dir = mkdtempSync(join(tmpdir(), 'coffer-config-'))
let fileCount = 0

function writeToml(text: string): string {
  const path = join(dir, `config-${++fileCount}.toml`)
  writeFileSync(path, text)
  return path
}

function load(toml: string | null, env: Record<string, string> = {}): LoadResult {
  return loadConfig({ file: toml === null ? null : writeToml(toml), env })
}

/** Asserts that loading fails with a ConfigError whose message is exactly `message`. */
function assertFails(toml: string | null, env: Record<string, string>, message: string | RegExp) {
  assert.throws(
    () => load(toml, env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`)
      assert.equal(error.name, 'ConfigError')
      if (typeof message === 'string') assert.equal(error.message, message)
      else assert.match(error.message, message)
      return true
    },
  )
}

const FULL_TOML = `
[server]
addr = "0.0.0.0:9090"
base_url = "https://coffer.example.com/"
allow_unauthenticated = true
allowed_hosts = ["coffer.lan"]
allowed_origins = ["https://Dash.example.com/"]
request_timeout = "45s"

[database]
driver = "postgres"
path = "/var/lib/coffer/coffer.db"
dsn = "postgres://coffer:hunter2@db/coffer"

[data]
dir = "/var/lib/coffer"

[dashboard]
token = "file-dashboard-token-123"

[auth]
max_failures = 5
failure_window = "10m"

[events]
enabled = false
retention_days = 30
max_streams = 20
max_streams_per_client = 2

[webhooks]
enabled = false
max_attempts = 3
timeout = "2s"

[sync]
interval = "1h30m"
lookback_days = 0

[search]
workers = 2

[aggregator]
access_url = "https://user:pass@bridge.example/simplefin"
setup_token = "setup-token"

[ethereum]
api_key = "eth-key"
chain_id = 10
address = "0x1111111111111111111111111111111111111111"
addresses = ["0x2222222222222222222222222222222222222222", " "]
api_url = "http://127.0.0.1:9999/api"
rate_limit = 5

[csv]
drive_client_id = "client-id"
drive_client_secret = "client-secret"
drive_redirect_url = "https://coffer.example.com/api/v1/sources/csv/oauth/callback"
drive_api_url = "http://127.0.0.1:9998/drive/v3"
drive_auth_url = "http://127.0.0.1:9998/auth"
drive_token_url = "http://127.0.0.1:9998/token"

[[csv.folders]]
name = "Checking"
path = "/data/checking"
account = "Checking account"

[[csv.folders]]
name = "Card"
backend = "drive"
folder_id = "abc123"
account = "Credit card"
org = "Big Bank"
currency = "EUR"
[csv.folders.mapping]
has_header = false
delimiter = ";"
date_column = 0
amount_column = 2
description_column = "Details"
date_format = "02.01.2006"
encoding = "latin1"

[mcp]
enabled = false

[plugins]
enabled = false
dir = "/opt/plugins"
registry_url = "https://plugins.example/index.json"
hook_timeout = "750ms"
memory_mib = 128
queue_size = 16

[update]
check = true
allow_apply = true
url = "https://releases.example/feed.json"

[log]
level = "debug"
format = "json"
access = false
`

test('an empty configuration yields every default', () => {
  const { config, warnings, origins } = load(null)
  assert.deepEqual(warnings, [])
  assert.ok(Object.values(origins).every((origin) => origin === 'default'))
  assert.deepEqual(config, {
    server: {
      addr: '127.0.0.1:8080',
      base_url: 'http://127.0.0.1:8080',
      allow_unauthenticated: false,
      allowed_hosts: [],
      allowed_origins: [],
      request_timeout: '30s',
    },
    database: { driver: 'sqlite', path: 'data/coffer.db', dsn: null },
    data: { dir: 'data' },
    dashboard: { token: null },
    auth: { max_failures: 10, failure_window: '1m' },
    events: { enabled: true, retention_days: 0, max_streams: 100, max_streams_per_client: 10 },
    webhooks: { enabled: true, max_attempts: 5, timeout: '10s' },
    sync: { interval: '6h', lookback_days: 90 },
    search: { workers: 4 },
    aggregator: { access_url: null, setup_token: null },
    ethereum: {
      api_key: null,
      chain_id: 1,
      address: null,
      addresses: [],
      api_url: 'https://api.etherscan.io/v2/api',
      rate_limit: 3,
    },
    csv: {
      drive_client_id: null,
      drive_client_secret: null,
      drive_redirect_url: null,
      drive_api_url: 'https://www.googleapis.com/drive/v3',
      drive_auth_url: 'https://accounts.google.com/o/oauth2/v2/auth',
      drive_token_url: 'https://oauth2.googleapis.com/token',
      folders: [],
    },
    mcp: { enabled: true },
    plugins: {
      enabled: true,
      dir: 'data/plugins',
      registry_url: null,
      hook_timeout: '5s',
      memory_mib: 64,
      queue_size: 256,
    },
    update: { check: false, allow_apply: false, url: null },
    log: { level: 'info', format: 'text', access: true },
  })
})

test('an empty file is the same as no file', () => {
  assert.deepEqual(load('').config, load(null).config)
})

test('defaults are not shared between loads', () => {
  const first = load(null).config
  first.ethereum.addresses.push('0xabc')
  assert.deepEqual(load(null).config.ethereum.addresses, [])
})

test('a TOML file sets every section', () => {
  const { config, origins } = load(FULL_TOML)
  assert.ok(Object.values(origins).every((origin) => origin === 'file'))
  assert.deepEqual(config.server, {
    addr: '0.0.0.0:9090',
    base_url: 'https://coffer.example.com',
    allow_unauthenticated: true,
    allowed_hosts: ['coffer.lan'],
    // Kept as the browser sends it: scheme://host[:port], lowercased, no slash.
    allowed_origins: ['https://dash.example.com'],
    request_timeout: '45s',
  })
  assert.deepEqual(config.database, {
    driver: 'postgres',
    path: '/var/lib/coffer/coffer.db',
    dsn: 'postgres://coffer:hunter2@db/coffer',
  })
  assert.equal(config.data.dir, '/var/lib/coffer')
  assert.equal(config.dashboard.token, 'file-dashboard-token-123')
  assert.deepEqual(config.auth, { max_failures: 5, failure_window: '10m' })
  assert.deepEqual(config.events, {
    enabled: false,
    retention_days: 30,
    max_streams: 20,
    max_streams_per_client: 2,
  })
  assert.deepEqual(config.webhooks, { enabled: false, max_attempts: 3, timeout: '2s' })
  assert.deepEqual(config.sync, { interval: '1h30m', lookback_days: 0 })
  assert.deepEqual(config.search, { workers: 2 })
  assert.deepEqual(config.aggregator, {
    access_url: 'https://user:pass@bridge.example/simplefin',
    setup_token: 'setup-token',
  })
  assert.deepEqual(config.ethereum, {
    api_key: 'eth-key',
    chain_id: 10,
    address: '0x1111111111111111111111111111111111111111',
    addresses: ['0x2222222222222222222222222222222222222222'],
    api_url: 'http://127.0.0.1:9999/api',
    rate_limit: 5,
  })
  assert.equal(config.csv.drive_client_id, 'client-id')
  assert.equal(config.csv.drive_client_secret, 'client-secret')
  assert.equal(
    config.csv.drive_redirect_url,
    'https://coffer.example.com/api/v1/sources/csv/oauth/callback',
  )
  assert.equal(config.csv.drive_api_url, 'http://127.0.0.1:9998/drive/v3')
  assert.equal(config.csv.drive_auth_url, 'http://127.0.0.1:9998/auth')
  assert.equal(config.csv.drive_token_url, 'http://127.0.0.1:9998/token')
  assert.deepEqual(config.csv.folders, [
    {
      name: 'Checking',
      backend: 'local',
      path: '/data/checking',
      folder_id: null,
      account: 'Checking account',
      org: 'Checking account',
      currency: 'USD',
      mapping: {
        has_header: true,
        delimiter: ',',
        date_column: null,
        amount_column: null,
        debit_column: null,
        credit_column: null,
        description_column: null,
        payee_column: null,
        memo_column: null,
        date_format: null,
        encoding: 'utf-8',
      },
    },
    {
      name: 'Card',
      backend: 'drive',
      path: null,
      folder_id: 'abc123',
      account: 'Credit card',
      org: 'Big Bank',
      currency: 'EUR',
      mapping: {
        has_header: false,
        delimiter: ';',
        date_column: 0,
        amount_column: 2,
        debit_column: null,
        credit_column: null,
        description_column: 'Details',
        payee_column: null,
        memo_column: null,
        date_format: '02.01.2006',
        // A WHATWG label, kept by its canonical name.
        encoding: 'windows-1252',
      },
    },
  ])
  assert.deepEqual(config.mcp, { enabled: false })
  assert.deepEqual(config.plugins, {
    enabled: false,
    dir: '/opt/plugins',
    registry_url: 'https://plugins.example/index.json',
    hook_timeout: '750ms',
    memory_mib: 128,
    queue_size: 16,
  })
  assert.deepEqual(config.update, {
    check: true,
    allow_apply: true,
    url: 'https://releases.example/feed.json',
  })
  assert.deepEqual(config.log, { level: 'debug', format: 'json', access: false })
})

test('the environment beats the file, per kind', () => {
  const { config, origins } = load(FULL_TOML, {
    SERVICE_SERVER_ADDR: '[::1]:7000',
    SERVICE_SERVER_ALLOW_UNAUTHENTICATED: 'No',
    SERVICE_DATABASE_DRIVER: 'sqlite',
    SERVICE_DASHBOARD_TOKEN: 'env-token',
    SERVICE_EVENTS_ENABLED: 'YES',
    SERVICE_WEBHOOKS_MAX_ATTEMPTS: '9',
    SERVICE_WEBHOOKS_TIMEOUT: '30s',
    SERVICE_ETHEREUM_ADDRESS: '0x3333333333333333333333333333333333333333',
    SERVICE_ETHEREUM_CHAIN_ID: '137',
    SERVICE_CSV_DRIVE_CLIENT_ID: 'env-client',
    SERVICE_CSV_FOLDERS: '[{"name":"Env","path":"/env","account":"Env account"}]',
    SERVICE_LOG_LEVEL: 'warn',
    SERVICE_UPDATE_CHECK: '0',
    SERVICE_PLUGINS_ENABLED: '1',
  })
  assert.equal(config.server.addr, '[::1]:7000')
  assert.equal(config.server.base_url, 'https://coffer.example.com') // from the file
  assert.equal(config.server.allow_unauthenticated, false)
  assert.equal(config.database.driver, 'sqlite')
  assert.equal(config.dashboard.token, 'env-token')
  assert.equal(config.events.enabled, true)
  assert.equal(config.webhooks.max_attempts, 9)
  assert.equal(config.webhooks.timeout, '30s')
  assert.equal(config.ethereum.address, '0x3333333333333333333333333333333333333333')
  assert.equal(config.ethereum.chain_id, 137)
  assert.equal(config.csv.drive_client_id, 'env-client')
  assert.deepEqual(
    config.csv.folders.map((f) => [f.name, f.path, f.account]),
    [['Env', '/env', 'Env account']],
  )
  assert.equal(config.log.level, 'warn')
  assert.equal(config.update.check, false)
  assert.equal(config.plugins.enabled, true)
  assert.equal(origins['server.addr'], 'env')
  assert.equal(origins['log.format'], 'file')
})

test('base_url is derived from an env addr when not set', () => {
  const { config } = load(null, { SERVICE_SERVER_ADDR: '0.0.0.0:0' })
  assert.equal(config.server.base_url, 'http://0.0.0.0:0')
})

test('an empty env string unsets a nullable string key', () => {
  const { config } = load(FULL_TOML, { SERVICE_DASHBOARD_TOKEN: '', SERVICE_UPDATE_URL: '' })
  assert.equal(config.dashboard.token, null)
  assert.equal(config.update.url, null)
})

test('an empty string in the file also means unset for a nullable key', () => {
  const { config } = load('[dashboard]\ntoken = ""\n')
  assert.equal(config.dashboard.token, null)
})

test('string_list from comma-separated env and from a JSON array', () => {
  const comma = load(null, { SERVICE_ETHEREUM_ADDRESSES: '0xaa, 0xbb,,  ,0xcc' })
  assert.deepEqual(comma.config.ethereum.addresses, ['0xaa', '0xbb', '0xcc'])
  const json = load(null, { SERVICE_ETHEREUM_ADDRESSES: ' ["0xaa", "0xbb"]' })
  assert.deepEqual(json.config.ethereum.addresses, ['0xaa', '0xbb'])
  const empty = load('[ethereum]\naddresses = ["0x1"]\n', { SERVICE_ETHEREUM_ADDRESSES: '' })
  assert.deepEqual(empty.config.ethereum.addresses, [])
  assertFails(
    null,
    { SERVICE_ETHEREUM_ADDRESSES: '["0xaa", 5]' },
    'SERVICE_ETHEREUM_ADDRESSES: ethereum.addresses[1]: expected a string, got integer',
  )
  assertFails(
    null,
    { SERVICE_ETHEREUM_ADDRESSES: '[oops' },
    /^SERVICE_ETHEREUM_ADDRESSES: invalid JSON/,
  )
})

test('unknown SERVICE_ variables are warnings, not errors', () => {
  const { warnings } = load(null, {
    SERVICE_PORT_8080_TCP: 'tcp://10.0.0.1:8080',
    SERVICE_HOST: '10.0.0.1',
    SERVICE_LOG_LEVEL: 'info',
    OTHER_VAR: 'x',
  })
  assert.deepEqual(warnings, [
    'SERVICE_HOST: not a configuration key; ignored',
    'SERVICE_PORT_8080_TCP: not a configuration key; ignored',
  ])
})

test('file errors name the key', () => {
  assertFails('[server]\nadr = "x"\n', {}, 'config: server.adr: unknown key')
  assertFails('[srv]\naddr = "x"\n', {}, 'config: srv: unknown section')
  assertFails('server = 5\n', {}, 'config: server: expected a table, got integer')
  assertFails(
    '[webhooks]\nmax_attempts = "5"\n',
    {},
    'config: webhooks.max_attempts: expected an integer, got string',
  )
  assertFails(
    '[webhooks]\nmax_attempts = 2.5\n',
    {},
    'config: webhooks.max_attempts: expected an integer, got float',
  )
  assertFails(
    '[webhooks]\nmax_attempts = 0\n',
    {},
    'config: webhooks.max_attempts: must be at least 1, got 0',
  )
  assertFails(
    '[events]\nenabled = "yes"\n',
    {},
    'config: events.enabled: expected a boolean, got string',
  )
  assertFails('[server]\naddr = 8080\n', {}, 'config: server.addr: expected a string, got integer')
  assertFails(
    '[log]\nlevel = "verbose"\n',
    {},
    'config: log.level: expected one of trace, debug, info, warn, error, got "verbose"',
  )
  assertFails(
    '[database]\ndriver = "mysql"\n',
    {},
    'config: database.driver: expected one of sqlite, postgres, got "mysql"',
  )
  assertFails(
    '[webhooks]\ntimeout = "10"\n',
    {},
    /^config: webhooks\.timeout: invalid duration "10": missing unit/,
  )
  assertFails('[sync]\ninterval = 60\n', {}, /^config: sync\.interval: expected a duration string/)
  assertFails(
    '[plugins]\nhook_timeout = "0"\n',
    {},
    /^config: plugins\.hook_timeout: must be at least/,
  )
  assertFails(
    '[webhooks]\ntimeout = "11m"\n',
    {},
    'config: webhooks.timeout: must be at most 10m, got "11m"',
  )
  assertFails(
    '[database]\ndriver = "postgres"\n',
    {},
    'config: database.dsn: required when database.driver is "postgres"',
  )
  assertFails(
    '[server]\naddr = "localhost"\n',
    {},
    /^config: server\.addr: invalid address "localhost"/,
  )
  assertFails('[server]\naddr = "0.0.0.0:70000"\n', {}, /^config: server\.addr: invalid address/)
  assertFails(
    '[server]\nbase_url = "coffer.example.com"\n',
    {},
    'config: server.base_url: expected an absolute http(s) URL, got "coffer.example.com"',
  )
  assertFails(
    '[server]\nbase_url = "ftp://example.com"\n',
    {},
    /^config: server\.base_url: expected an absolute http\(s\) URL/,
  )
  assertFails(
    '[server]\nallowed_hosts = ["http://coffer.lan/"]\n',
    {},
    'config: server.allowed_hosts: expected a host name, got "http://coffer.lan/"',
  )
  assertFails(
    null,
    { SERVICE_SERVER_ALLOWED_ORIGINS: 'https://ok.example,https://dash.example/app' },
    /^SERVICE_SERVER_ALLOWED_ORIGINS: an origin is scheme:\/\/host\[:port\] with no path/,
  )
  assertFails(
    '[server]\nallowed_origins = ["dash.example"]\n',
    {},
    'config: server.allowed_origins: expected an http(s) origin, got "dash.example"',
  )
  assertFails(
    '[ethereum]\naddresses = "0x1"\n',
    {},
    /^config: ethereum\.addresses: expected an array/,
  )
})

test('an address the service fetches is an http(s) URL without a password, which no error repeats', () => {
  assertFails(
    '[update]\nurl = "https://feeduser:S3cretFeedPass@feed.example/feed.json"\n',
    {},
    'config: update.url: must not carry a user name or password (user:password@host): fetch cannot send them',
  )
  assertFails(
    null,
    { SERVICE_PLUGINS_REGISTRY_URL: 'https://token@registry.example/index.json' },
    /^SERVICE_PLUGINS_REGISTRY_URL: must not carry a user name or password/,
  )
  assertFails(
    '[ethereum]\napi_url = "file:///etc/passwd"\n',
    {},
    'config: ethereum.api_url: expected an http(s) URL, got the scheme "file:"',
  )
  assertFails(
    '[csv]\ndrive_token_url = "oauth2.example/token"\n',
    {},
    'config: csv.drive_token_url: expected an absolute http(s) URL',
  )
  // The SimpleFIN access URL carries its credentials by design (a secret, never shown).
  const { config } = load('[aggregator]\naccess_url = "https://u:p@bridge.example/simplefin"\n')
  assert.equal(config.aggregator.access_url, 'https://u:p@bridge.example/simplefin')
})

test('csv folder errors name the exact key', () => {
  const folder = '[[csv.folders]]\nname = "A"\npath = "/a"\naccount = "A"\n'
  assertFails(
    `${folder}[[csv.folders]]\nname = "B"\npath = "/b"\naccount = "B"\n[csv.folders.mapping]\ndelimtr = ";"\n`,
    {},
    'config: csv.folders[1].mapping.delimtr: unknown key',
  )
  assertFails(`${folder}colour = "red"\n`, {}, 'config: csv.folders[0].colour: unknown key')
  assertFails(
    '[[csv.folders]]\npath = "/a"\naccount = "A"\n',
    {},
    'config: csv.folders[0].name: required',
  )
  assertFails(
    '[[csv.folders]]\nname = "A"\npath = "/a"\n',
    {},
    'config: csv.folders[0].account: required',
  )
  assertFails(
    '[[csv.folders]]\nname = "A"\naccount = "A"\n',
    {},
    'config: csv.folders[0].path: required for a local folder',
  )
  assertFails(
    '[[csv.folders]]\nname = "A"\nbackend = "drive"\naccount = "A"\n',
    {},
    'config: csv.folders[0].folder_id: required for a drive folder',
  )
  assertFails(
    `${folder}backend = "s3"\n`,
    {},
    'config: csv.folders[0].backend: expected local or drive, got "s3"',
  )
  assertFails(
    `${folder}[csv.folders.mapping]\nhas_header = "no"\n`,
    {},
    'config: csv.folders[0].mapping.has_header: expected a boolean, got string',
  )
  assertFails(
    `${folder}[csv.folders.mapping]\ndate_column = -1\n`,
    {},
    'config: csv.folders[0].mapping.date_column: expected a header name or a 0-based column index, got integer',
  )
  assertFails(
    `${folder}[csv.folders.mapping]\ndelimiter = ";;"\n`,
    {},
    'config: csv.folders[0].mapping.delimiter: must be a single character',
  )
  assertFails(
    `${folder}[csv.folders.mapping]\nencoding = "klingon"\n`,
    {},
    'config: csv.folders[0].mapping.encoding: unknown encoding "klingon" (for example utf-8, windows-1252, iso-8859-15, utf-16le)',
  )
  assertFails(`${folder}${folder}`, {}, 'config: csv.folders[1].name: duplicate folder name "A"')
  assertFails(
    '[csv.folders]\nname = "A"\n',
    {},
    'config: csv.folders: expected an array of folder tables, got table',
  )
  assertFails(
    null,
    { SERVICE_CSV_FOLDERS: '[{"name":"A","path":"/a","account":"A","mapping":{"delimtr":";"}}]' },
    'SERVICE_CSV_FOLDERS: csv.folders[0].mapping.delimtr: unknown key',
  )
})

test('env errors name the variable', () => {
  assertFails(
    null,
    { SERVICE_WEBHOOKS_MAX_ATTEMPTS: 'five' },
    'SERVICE_WEBHOOKS_MAX_ATTEMPTS: expected an integer, got "five"',
  )
  assertFails(
    null,
    { SERVICE_WEBHOOKS_MAX_ATTEMPTS: '1.5' },
    /^SERVICE_WEBHOOKS_MAX_ATTEMPTS: expected an integer/,
  )
  // An integer too large to hold exactly is out of range, not of the wrong type.
  assertFails(
    null,
    { SERVICE_EVENTS_RETENTION_DAYS: '99999999999999999999' },
    'SERVICE_EVENTS_RETENTION_DAYS: must be at most 36500, got 100000000000000000000',
  )
  assertFails(
    null,
    { SERVICE_WEBHOOKS_MAX_ATTEMPTS: '-99999999999999999999' },
    'SERVICE_WEBHOOKS_MAX_ATTEMPTS: must be at least 1, got -100000000000000000000',
  )
  assertFails(
    null,
    { SERVICE_EVENTS_ENABLED: 'maybe' },
    /^SERVICE_EVENTS_ENABLED: expected a boolean/,
  )
  assertFails(
    null,
    { SERVICE_LOG_FORMAT: 'xml' },
    'SERVICE_LOG_FORMAT: expected one of text, json, got "xml"',
  )
  assertFails(
    null,
    { SERVICE_SYNC_INTERVAL: '6 hours' },
    /^SERVICE_SYNC_INTERVAL: invalid duration/,
  )
  assertFails(null, { SERVICE_SERVER_ADDR: '' }, 'SERVICE_SERVER_ADDR: must not be empty')
  assertFails(null, { SERVICE_SERVER_ADDR: 'nope' }, /^SERVICE_SERVER_ADDR: invalid address "nope"/)
  assertFails(
    null,
    { SERVICE_DATABASE_DRIVER: 'postgres' },
    'config: database.dsn: required when database.driver is "postgres"',
  )
  assertFails(null, { SERVICE_CSV_FOLDERS: '{' }, /^SERVICE_CSV_FOLDERS: invalid JSON/)
})

test('file read and syntax errors', () => {
  const missing = join(dir, 'nope.toml')
  assert.throws(
    () => loadConfig({ file: missing, env: {} }),
    (error: unknown) =>
      error instanceof ConfigError && error.message === `config file not found: ${missing}`,
  )
  const bad = writeToml('[server]\naddr = "x"\ntoken = \n')
  assert.throws(
    () => loadConfig({ file: bad, env: {} }),
    (error: unknown) =>
      error instanceof ConfigError && error.message.startsWith(`config: ${bad}:3:`),
  )
})

test('stored settings apply last and are validated', () => {
  const { config, origins, warnings } = loadConfig({
    file: writeToml('[log]\nlevel = "debug"\n'),
    env: { SERVICE_LOG_LEVEL: 'warn' },
    stored: { 'log.level': 'error', 'old.key': 1 },
  })
  assert.equal(config.log.level, 'error')
  assert.equal(origins['log.level'], 'stored')
  assert.deepEqual(warnings, ['stored setting old.key: not a configuration key; ignored'])
  assert.throws(
    () => loadConfig({ env: {}, stored: { 'webhooks.max_attempts': 'x' } }),
    /^ConfigError: stored setting webhooks\.max_attempts: expected an integer, got string$/,
  )
})

test('validateConfigValue checks one value like the file does', () => {
  assert.equal(validateConfigValue('webhooks.timeout', '30s'), '30s')
  assert.equal(validateConfigValue('update.url', ''), null)
  assert.throws(
    () => validateConfigValue('webhooks.timeout', '30'),
    /^ConfigError: webhooks\.timeout: invalid duration/,
  )
  assert.throws(() => validateConfigValue('nope.key', 1), /^ConfigError: nope\.key: unknown key$/)
})

test('every table key has an env name and a place in Config', () => {
  const { config } = load(null)
  const sections = config as unknown as Record<string, Record<string, unknown>>
  const configKeys = Object.entries(sections).flatMap(([section, body]) =>
    Object.keys(body).map((name) => `${section}.${name}`),
  )
  assert.deepEqual(configKeys.sort(), CONFIG_KEYS.map((spec) => spec.key).sort())
  for (const spec of CONFIG_KEYS) {
    const [section, name] = splitKey(spec.key)
    assert.ok(section && name, spec.key)
    assert.equal(envName(spec.key), `SERVICE_${section.toUpperCase()}_${name.toUpperCase()}`)
  }
  assert.equal(envName('csv.drive_client_id'), 'SERVICE_CSV_DRIVE_CLIENT_ID')
})

test('defaultConfigPath finds coffer.toml in the directory', () => {
  const empty = mkdtempSync(join(tmpdir(), 'coffer-cwd-'))
  assert.equal(defaultConfigPath(empty), null)
  const withFile = join(empty, 'sub')
  mkdirSync(withFile)
  writeFileSync(join(withFile, 'coffer.toml'), '')
  assert.equal(defaultConfigPath(withFile), join(withFile, 'coffer.toml'))
})

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { loadConfig } from './load.js'
import { configSecrets, REDACTED, redactConfig, redactDsn, redactText } from './redact.js'
import { CONFIG_KEYS, splitKey } from './schema.js'

const SECRETS_ENV = {
  SERVICE_DATABASE_DRIVER: 'postgres',
  SERVICE_DATABASE_DSN: 'postgres://coffer:s3cr%40t@db.internal:5432/coffer?sslmode=require',
  SERVICE_DASHBOARD_TOKEN: 'dashboard-token-0123456789',
  SERVICE_AGGREGATOR_ACCESS_URL: 'https://user:pass@bridge.example/simplefin',
  SERVICE_AGGREGATOR_SETUP_TOKEN: 'setup-token-abc',
  SERVICE_ETHEREUM_API_KEY: 'eth-api-key',
  SERVICE_CSV_DRIVE_CLIENT_SECRET: 'drive-client-secret',
  SERVICE_CSV_DRIVE_CLIENT_ID: 'drive-client-id',
}

test('redactConfig masks every set secret and only the DSN password', () => {
  const { config } = loadConfig({ env: SECRETS_ENV })
  const shown = redactConfig(config)
  const section = (name: string) => shown[name] as Record<string, unknown>
  assert.equal(section('dashboard').token, REDACTED)
  assert.equal(section('aggregator').access_url, REDACTED)
  assert.equal(section('aggregator').setup_token, REDACTED)
  assert.equal(section('ethereum').api_key, REDACTED)
  assert.equal(section('csv').drive_client_secret, REDACTED)
  assert.equal(section('csv').drive_client_id, 'drive-client-id')
  assert.equal(
    section('database').dsn,
    'postgres://coffer:[redacted]@db.internal:5432/coffer?sslmode=require',
  )
  // Everything else is shown as is, and no secret text survives anywhere.
  assert.equal(section('server').addr, '127.0.0.1:8080')
  const json = JSON.stringify(shown)
  for (const secret of configSecrets(config)) assert.ok(!json.includes(secret), secret)
  // The table marks exactly the secrets CONTRACT 2 lists.
  assert.deepEqual(
    CONFIG_KEYS.filter((spec) => spec.secret).map((spec) => spec.key),
    [
      'database.dsn',
      'dashboard.token',
      'aggregator.access_url',
      'aggregator.setup_token',
      'ethereum.api_key',
      'csv.drive_client_secret',
    ],
  )
  // The original config is untouched.
  assert.equal(config.dashboard.token, 'dashboard-token-0123456789')
})

test('redactConfig leaves unset secrets null and mirrors the table', () => {
  const { config } = loadConfig({ env: {} })
  const shown = redactConfig(config) as Record<string, Record<string, unknown>>
  for (const spec of CONFIG_KEYS) {
    const [section, name] = splitKey(spec.key)
    assert.ok(section in shown && name in (shown[section] ?? {}), spec.key)
    if (spec.secret) assert.equal(shown[section]?.[name], null, spec.key)
  }
  assert.deepEqual(JSON.parse(JSON.stringify(shown)), shown)
})

test('redactDsn masks URL and key=value passwords', () => {
  const cases: [string, string][] = [
    ['postgres://user:pw@host/db', 'postgres://user:[redacted]@host/db'],
    ['postgresql://user:p@ss:w/rd@host:5432/db', 'postgresql://user:[redacted]@host:5432/db'],
    ['postgres://user@host/db', 'postgres://user@host/db'],
    ['postgres://host:5432/db', 'postgres://host:5432/db'],
    [
      'postgres://host/db?user=u&password=pw&sslmode=require',
      'postgres://host/db?user=u&password=[redacted]&sslmode=require',
    ],
    [
      'host=db user=coffer password=hunter2 dbname=coffer',
      'host=db user=coffer password=[redacted] dbname=coffer',
    ],
    ["host=db password = 'with space\\'s' dbname=x", 'host=db password = [redacted] dbname=x'],
    ['host=db PASSWORD=x', 'host=db PASSWORD=[redacted]'],
  ]
  for (const [dsn, expected] of cases) assert.equal(redactDsn(dsn), expected, dsn)
})

test('configSecrets lists set secrets, with a DSN contributing its password', () => {
  const { config } = loadConfig({ env: SECRETS_ENV })
  const secrets = configSecrets(config)
  assert.ok(secrets.includes('s3cr%40t'))
  assert.ok(secrets.includes('s3cr@t'))
  assert.ok(secrets.includes('eth-api-key'))
  assert.ok(!secrets.some((s) => s.startsWith('postgres://')))
  const kv = loadConfig({
    env: { SERVICE_DATABASE_DRIVER: 'postgres', SERVICE_DATABASE_DSN: "host=db password='a b'" },
  })
  assert.deepEqual(configSecrets(kv.config), ['a b'])
})

test('redactText scrubs each non-empty secret', () => {
  assert.equal(
    redactText('GET https://api/x?apikey=eth-key failed: eth-key rejected', ['eth-key', '']),
    'GET https://api/x?apikey=[redacted] failed: [redacted] rejected',
  )
  // A secret containing another is masked whole, not in pieces.
  assert.equal(redactText('token abc123', ['abc', 'abc123']), 'token [redacted]')
  assert.equal(redactText('nothing here', []), 'nothing here')
  assert.equal(redactText('a.b', ['.']), 'a[redacted]b')
})

test('redactText also masks the URL-encoded, base64 and JSON-escaped forms of a secret', () => {
  const secret = 'Sec+ret/Key=1 "q"\\ é'
  const forms = [
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    new URLSearchParams({ k: secret }).toString().slice(2),
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64').replace(/=+$/, ''),
    Buffer.from(secret).toString('base64url'),
    JSON.stringify(secret).slice(1, -1),
    JSON.stringify(secret).slice(1, -1).replace('é', '\\u00e9'),
  ]
  for (const form of forms) {
    assert.notEqual(form, secret)
    assert.equal(redactText(`before ${form} after`, [secret]), `before ${REDACTED} after`, form)
  }
  // The explorer echoing an apikey URL-encoded (issue 17).
  assert.equal(
    redactText('https://explorer/api?apikey=Sec%2Bret%2FKey%3D1&chainid=1 failed', [
      'Sec+ret/Key=1',
    ]),
    `https://explorer/api?apikey=${REDACTED}&chainid=1 failed`,
  )
  assert.equal(redactText('{"key":"Sec+ret/Key=1"}', ['Sec+ret/Key=1']), `{"key":"${REDACTED}"}`)
})

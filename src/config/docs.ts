// Renders the configuration reference (docs/configuration.md) from CONFIG_KEYS,
// so that the documentation cannot drift from the loader. A test compares the
// committed file with this output; `npm run docs:config` rewrites it.
import { CONFIG_KEYS, envName, isSettable } from './schema.js'

function showDefault(value: unknown): string {
  if (value === null) return '—'
  return '`' + (typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value)) + '`'
}

export function renderConfigDocs(): string {
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated from src/config/schema.ts by `npm run docs:config`; do not edit by hand. -->',
    '',
    'Coffer reads a TOML file (`--config <path>`; without it the path in the `COFFER_CONFIG`',
    'environment variable; without that `./coffer.toml` when it exists) and',
    'then the environment: every key `section.key` can be set with `SERVICE_<SECTION>_<KEY>`,',
    'and the environment wins over the file. Durations are strings such as `"10s"`, `"6h"` or',
    '`"1h30m"`. Unknown keys and wrong types stop start-up with a message naming the key.',
    'Environment variables that start with `SERVICE_` but match no key are logged as warnings',
    'and ignored, because container platforms inject such names.',
    '',
    'In the environment, booleans accept `true/false/1/0/yes/no`, lists are comma-separated or',
    'a JSON array, and `csv.folders` is JSON. Secrets are shown as `"[redacted]"` by',
    '`GET /api/v1/config`; for `database.dsn` only the password is hidden.',
    '',
    '| key | environment | kind | default | secret | meaning |',
    '|---|---|---|---|---|---|',
  ]
  for (const spec of CONFIG_KEYS) {
    const kind =
      spec.kind === 'enum' ? `one of ${spec.enum?.map((v) => '`' + v + '`').join(', ')}` : spec.kind
    lines.push(
      `| \`${spec.key}\` | \`${envName(spec.key)}\` | ${kind} | ${showDefault(spec.default)} | ${spec.secret ? 'yes' : ''} | ${spec.title} |`,
    )
  }
  const keys = (specs: typeof CONFIG_KEYS) => specs.map((s) => '`' + s.key + '`').join(', ')
  lines.push(
    '',
    'Settings (`GET /api/v1/settings`, docs/operations.md): every key can also be stored in the',
    'database from the dashboard, REST or MCP, and a stored value wins over the environment,',
    `except ${keys(CONFIG_KEYS.filter((s) => !isSettable(s)))}. A stored value of`,
    `${keys(CONFIG_KEYS.filter((s) => s.live))} applies at once; any other waits for a restart.`,
  )
  lines.push(
    '',
    'CSV folders (`[[csv.folders]]`, SPEC 1.3) take `name`, `backend` (`local` or `drive`), `path`,',
    '`folder_id`, `account`, `org`, `currency` (default `USD`) and a `mapping` table with',
    '`has_header`, `delimiter`, `date_column`, `date_format`, `amount_column`, `debit_column`,',
    '`credit_column`, `description_column`, `payee_column`, `memo_column` and `encoding`',
    '(default `utf-8`; docs/csv.md).',
    '',
  )
  return lines.join('\n')
}

// What GET /api/v1/config shows: the effective configuration with secrets masked, and
// a helper to scrub known secret values out of error text before it is logged or sent.

import type { Config } from './load.js'
import { CONFIG_KEYS, splitKey } from './schema.js'

export const REDACTED = '[redacted]'

/** The nested configuration as plain JSON, every set secret replaced by "[redacted]". */
export function redactConfig(config: Config): Record<string, unknown> {
  const sections = config as unknown as Record<string, Record<string, unknown>>
  const out: Record<string, Record<string, unknown>> = {}
  for (const spec of CONFIG_KEYS) {
    const [section, name] = splitKey(spec.key)
    let value = structuredClone(sections[section]?.[name] ?? null)
    if (spec.secret && value !== null) {
      // A DSN is useful to see; only its password is secret.
      value = spec.key === 'database.dsn' && typeof value === 'string' ? redactDsn(value) : REDACTED
    }
    out[section] ??= {}
    out[section][name] = value
  }
  return out
}

// postgres://user:password@host/db: everything between the user's colon and the last
// '@' (an unescaped '@' in a password then still stays hidden).
const URL_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^:@/?#]*):(.*)@([^@]*)$/is
// password=secret in key=value DSNs (optionally 'quoted') and in URL query strings.
const KEYWORD_PASSWORD = /(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*)/gi

/** Replaces the password of a URL or key=value connection string with "[redacted]". */
export function redactDsn(dsn: string): string {
  return dsn
    .replace(URL_PASSWORD, (whole, user: string, password: string, rest: string) =>
      password === '' ? whole : `${user}:${REDACTED}@${rest}`,
    )
    .replace(KEYWORD_PASSWORD, (whole, prefix: string, password: string) =>
      password === '' ? whole : `${prefix}${REDACTED}`,
    )
}

/** Replaces every occurrence of each non-empty secret in text with "[redacted]". */
export function redactText(text: string, secrets: readonly string[]): string {
  // Longest first, so a secret that contains another is masked whole.
  const sorted = secrets.filter((secret) => secret !== '').sort((a, b) => b.length - a.length)
  return sorted.reduce((out, secret) => out.split(secret).join(REDACTED), text)
}

/** The set secret values of a configuration (a DSN contributes its password), for redactText. */
export function configSecrets(config: Config): string[] {
  const sections = config as unknown as Record<string, Record<string, unknown>>
  const secrets: string[] = []
  for (const spec of CONFIG_KEYS.filter((s) => s.secret)) {
    const [section, name] = splitKey(spec.key)
    const value = sections[section]?.[name]
    if (typeof value !== 'string' || value === '') continue
    if (spec.key === 'database.dsn') secrets.push(...dsnPasswords(value))
    else secrets.push(value)
  }
  return secrets
}

function dsnPasswords(dsn: string): string[] {
  const found: string[] = []
  const url = URL_PASSWORD.exec(dsn)
  if (url?.[2]) {
    found.push(url[2])
    // Error messages from drivers may show the decoded form.
    try {
      const decoded = decodeURIComponent(url[2])
      if (decoded !== url[2]) found.push(decoded)
    } catch {
      // not valid percent-encoding; the raw form is enough
    }
  }
  for (const match of dsn.matchAll(KEYWORD_PASSWORD)) {
    const raw = match[2] ?? ''
    const unquoted = raw.startsWith("'") ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw
    if (unquoted !== '') found.push(unquoted)
  }
  return found
}

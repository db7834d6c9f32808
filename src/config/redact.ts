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

/**
 * The forms a secret may take in text a peer echoes or a driver prints: as is,
 * URL-encoded (upper- and lower-case hex, `+` or `%20` for a space), base64
 * (standard and URL-safe, with or without padding) and JSON-escaped.
 */
export function secretForms(secret: string): string[] {
  if (secret === '') return []
  const encoded = encodeURIComponent(secret)
  const form = new URLSearchParams({ s: secret }).toString().slice(2)
  const base64 = Buffer.from(secret, 'utf8').toString('base64')
  const forms = [
    secret,
    encoded,
    encoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    form,
    form.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    base64,
    base64.replace(/=+$/, ''),
    Buffer.from(secret, 'utf8').toString('base64url'),
    JSON.stringify(secret).slice(1, -1),
    // Every non-ASCII character escaped, as some JSON serialisers write them.
    JSON.stringify(secret)
      .slice(1, -1)
      .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  ]
  return [...new Set(forms)]
}

/** Replaces every occurrence of each non-empty secret, in any of its secretForms, with "[redacted]". */
export function redactText(text: string, secrets: readonly string[]): string {
  // Longest first, so a secret that contains another is masked whole.
  const sorted = [...new Set(secrets.flatMap(secretForms))].sort((a, b) => b.length - a.length)
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

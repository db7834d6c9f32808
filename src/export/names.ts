// How Coffer's names become names that hledger and beancount accept
// (docs/export.md "Names"): accounts, commodities and metadata keys. Every
// mapping is deterministic: the same ledger exports the same names.
import { createHash } from 'node:crypto'

/** The account every posting of a Coffer account balances against, by the sign of its amount. */
export const COUNTER_ACCOUNTS = { inflow: 'Income:Unknown', outflow: 'Expenses:Unknown' } as const

/** Where Coffer accounts sit in the exported chart of accounts. */
const ACCOUNT_ROOT = 'Assets'

/** Short, stable tag of a text: 8 upper-case hex digits of its SHA-256. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8).toUpperCase()
}

/**
 * One component of an account name, valid in hledger and beancount alike:
 * letters (any script) and digits, words joined by '-', starting with an
 * upper-case letter or a digit. An empty result is `X` + a hash of the input.
 */
export function accountComponent(text: string): string {
  const words = text
    .normalize('NFC')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
  if (words.length === 0) return `X${shortHash(text)}`
  const joined = words.join('-')
  return joined.charAt(0).toUpperCase() + joined.slice(1)
}

export interface NamedAccount {
  id: string
  name: string
  org_name: string
}

/**
 * Ledger account names of Coffer accounts: `Assets:<organization>:<account>`.
 * Accounts whose names would coincide each get `-<hash of the account id>`
 * appended, so that every Coffer account is its own ledger account.
 */
export function ledgerAccountNames(accounts: readonly NamedAccount[]): Map<string, string> {
  const base = new Map(
    accounts.map((a) => [
      a.id,
      `${ACCOUNT_ROOT}:${accountComponent(a.org_name)}:${accountComponent(a.name)}`,
    ]),
  )
  const uses = new Map<string, number>()
  for (const name of base.values()) uses.set(name, (uses.get(name) ?? 0) + 1)
  return new Map(
    [...base].map(([id, name]) => [id, uses.get(name)! > 1 ? `${name}-${shortHash(id)}` : name]),
  )
}

/** The counter account of an amount: inflows (zero included) from income, outflows to expenses. */
export function counterAccount(amount: string): string {
  return amount.trimStart().startsWith('-') ? COUNTER_ACCOUNTS.outflow : COUNTER_ACCOUNTS.inflow
}

/**
 * A currency as an hledger commodity: bare when it is letters only, otherwise
 * double-quoted (digits, '.', '-' …); a '"' or a control character inside
 * becomes '_' (hledger's quoted symbols cannot hold them).
 */
export function hledgerCommodity(currency: string): string {
  if (/^\p{L}+$/u.test(currency)) return currency
  // eslint-disable-next-line no-control-regex
  return `"${currency.replace(/["\u0000-\u001f\u007f]/g, '_')}"`
}

/** Beancount's currency syntax (2.x): 2 to 24 characters, A-Z first, A-Z or 0-9 last. */
const BEANCOUNT_CURRENCY = /^[A-Z][A-Z0-9'._-]{0,22}[A-Z0-9]$/

/**
 * A currency as a beancount commodity: unchanged when beancount accepts it;
 * otherwise its upper-cased allowed characters (a `C` in front when they do not
 * start with a letter), at most 15 of them, then `-` and a hash of the
 * original text, so distinct currencies stay distinct ("1inch" → `C1INCH-…`).
 */
export function beancountCommodity(currency: string): string {
  if (BEANCOUNT_CURRENCY.test(currency)) return currency
  const kept = currency.toUpperCase().replace(/[^A-Z0-9'._-]/g, '')
  const head = /^[A-Z]/.test(kept) ? kept : `C${kept}`
  return `${head.slice(0, 15)}-${shortHash(currency)}`
}

/**
 * Metadata keys for beancount (`[a-z][a-zA-Z0-9_-]+`): `prefix` + the key with
 * every other character as '_'. Keys that would repeat within one entry get
 * `-<hash of the original key>` appended (beancount refuses a repeated key).
 */
export function beancountMetaKeys(prefix: string, keys: readonly string[]): string[] {
  const mapped = keys.map((k) => prefix + k.toLowerCase().replace(/[^a-z0-9_-]/g, '_'))
  const uses = new Map<string, number>()
  for (const m of mapped) uses.set(m, (uses.get(m) ?? 0) + 1)
  return mapped.map((m, i) => (uses.get(m)! > 1 ? `${m}-${shortHash(keys[i]!).toLowerCase()}` : m))
}

/**
 * A tag or metadata name for hledger: no whitespace, ':' or ',' (they end a
 * tag name); those become '_'.
 */
export function hledgerTagName(key: string): string {
  return key.replace(/[\s:,]/gu, '_') || '_'
}

/** Text on one hledger line: line breaks and other control characters become spaces. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ')
}

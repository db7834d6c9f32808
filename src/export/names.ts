// How Coffer's names become names that hledger and beancount accept
// (docs/export.md "Names"): accounts, commodities and metadata keys. Every
// mapping is deterministic: the same ledger exports the same names.
import { createHash } from 'node:crypto'
import { isNegative } from '../decimal.js'

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
 * The names, all distinct: a name used once is kept; a name several items
 * share gets `-<suffix of the item>` on each. A suffixed name can still be
 * taken (an item named like another's suffixed name, or equal suffixes), so
 * it then gets `-2`, `-3`… as well.
 */
function distinctNames(names: readonly string[], suffix: (index: number) => string): string[] {
  const uses = new Map<string, number>()
  for (const name of names) uses.set(name, (uses.get(name) ?? 0) + 1)
  const taken = new Set(names.filter((name) => uses.get(name) === 1))
  return names.map((name, i) => {
    if (uses.get(name) === 1) return name
    const suffixed = `${name}-${suffix(i)}`
    let unique = suffixed
    for (let n = 2; taken.has(unique); n++) unique = `${suffixed}-${n}`
    taken.add(unique)
    return unique
  })
}

/**
 * Ledger account names of Coffer accounts: `Assets:<organization>:<account>`.
 * Accounts whose names would coincide each get `-<hash of the account id>`
 * appended, so that every Coffer account is its own ledger account.
 */
export function ledgerAccountNames(accounts: readonly NamedAccount[]): Map<string, string> {
  const names = distinctNames(
    accounts.map(
      (a) => `${ACCOUNT_ROOT}:${accountComponent(a.org_name)}:${accountComponent(a.name)}`,
    ),
    (i) => shortHash(accounts[i]!.id),
  )
  return new Map(accounts.map((a, i) => [a.id, names[i]!]))
}

/** The counter account of an amount: inflows (zero, "-0" included) from income, outflows to expenses. */
export function counterAccount(amount: string): string {
  return isNegative(amount) ? COUNTER_ACCOUNTS.outflow : COUNTER_ACCOUNTS.inflow
}

/**
 * A currency as an hledger commodity: bare when it is letters only, otherwise
 * double-quoted (digits, '.', '-' …); a '"', ';' or control character inside
 * becomes '_' (a quoted symbol ends at '"', ';' or a line end). An empty
 * currency is no commodity at all (hledger refuses `""`).
 */
export function hledgerCommodity(currency: string): string {
  if (currency === '' || /^\p{L}+$/u.test(currency)) return currency
  // eslint-disable-next-line no-control-regex
  return `"${currency.replace(/[";\u0000-\u001f\u007f]/g, '_')}"`
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
  return distinctNames(
    keys.map((k) => prefix + k.toLowerCase().replace(/[^a-z0-9_-]/g, '_')),
    (i) => shortHash(keys[i]!).toLowerCase(),
  )
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

/**
 * Free text in an hledger comment, read by hledger as text only: a comment
 * holds tags wherever a ':' ends a word (`key: value`, `date:2024-02-30`,
 * `https://…`), so such a ':' gets a space before it (`key : value`).
 */
export function hledgerCommentText(text: string): string {
  return oneLine(text).replace(/(?<=[^ ]):/g, ' :')
}

/**
 * One-line text as a tag value that hledger reads whole: it ends a value at a
 * comma, so ',' is written `%2C` and '%' `%25` (decodeURIComponent gives the
 * text back).
 */
export function hledgerTagValue(line: string): string {
  return line.replace(/[%,]/g, (c) => (c === '%' ? '%25' : '%2C'))
}

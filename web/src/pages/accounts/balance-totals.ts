// Totals of account balances per currency, exact: each balance string becomes a
// BigInt scaled by a power of ten, never a Number, so a sum of many balances is
// the same decimal a person would get by hand. (The service has no endpoint for
// the sum of balances; src/decimal.ts is server-side and off-limits to web/.)

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/

interface Scaled {
  units: bigint
  scale: number
}

function scaledOf(text: string): Scaled | null {
  const match = DECIMAL.exec(text)
  if (!match) return null
  const [, sign = '', whole = '', fraction = ''] = match
  if (whole === '' && fraction === '') return null
  const magnitude = BigInt(`${whole}${fraction}` || '0')
  return { units: sign === '-' ? -magnitude : magnitude, scale: fraction.length }
}

function rescale(value: Scaled, scale: number): bigint {
  return value.units * 10n ** BigInt(scale - value.scale)
}

function textOf({ units, scale }: Scaled): string {
  const negative = units < 0n
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0')
  const whole = digits.slice(0, digits.length - scale)
  const fraction = scale > 0 ? `.${digits.slice(digits.length - scale)}` : ''
  return `${negative ? '-' : ''}${whole}${fraction}`
}

/**
 * The exact sum of decimal strings, with as many fraction digits as the longest
 * of them ("1.5" + "2.25" = "3.75", "0.10" + "0.20" = "0.30"); null when one of
 * them is not a plain decimal (the total is then not shown rather than wrong).
 */
export function sumDecimals(amounts: readonly string[]): string | null {
  const parsed: Scaled[] = []
  for (const amount of amounts) {
    const value = scaledOf(amount)
    if (value === null) return null
    parsed.push(value)
  }
  const scale = Math.max(0, ...parsed.map((p) => p.scale))
  let units = 0n
  for (const p of parsed) units += rescale(p, scale)
  return textOf({ units, scale })
}

/** Balance totals by currency, in currency order: `[['EUR', '10.00'], ['USD', '-3.5']]`. */
export function totalsByCurrency(
  accounts: readonly { currency: string; balance: string }[],
): [currency: string, total: string | null][] {
  const groups = new Map<string, string[]>()
  for (const account of accounts) {
    const list = groups.get(account.currency) ?? []
    list.push(account.balance)
    groups.set(account.currency, list)
  }
  return [...groups.keys()].sort().map((currency) => [currency, sumDecimals(groups.get(currency)!)])
}

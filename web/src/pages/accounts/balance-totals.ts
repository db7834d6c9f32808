// Totals of account balances per currency, exact: the balances are summed by
// src/decimal.ts (BigInt units, never a Number), keeping the most fraction digits
// any of them has, so "0.10" + "0.20" shows as "0.30". The service has no
// endpoint for the sum of balances.
import {
  addScaled,
  formatScaledKeepingScale,
  parseTotal,
  type Scaled,
} from '../../../../src/decimal.js'

/**
 * The exact sum of decimal strings, with as many fraction digits as the longest
 * of them; null when one of them is not a plain decimal (the total is then not
 * shown rather than wrong).
 */
export function sumDecimals(amounts: readonly string[]): string | null {
  let total: Scaled = { units: 0n, scale: 0 }
  for (const amount of amounts) {
    try {
      total = addScaled(total, parseTotal(amount))
    } catch {
      return null
    }
  }
  return formatScaledKeepingScale(total)
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

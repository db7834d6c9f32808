import { groupDigits, isNegative } from './format.js'

/** An exact amount, grouped for reading, with its currency when known. */
export function Money({ amount, currency }: { amount: string; currency?: string | undefined }) {
  return (
    <span class={isNegative(amount) ? 'money negative' : 'money'} title={amount}>
      {groupDigits(amount)}
      {currency ? <span class="currency"> {currency}</span> : null}
    </span>
  )
}

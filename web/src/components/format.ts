// Formatting at the edge: amounts stay exact decimal strings from the API and
// are only regrouped for reading here, never turned into numbers.

/** `-1234567.891` → `-1,234,567.891`; anything that is not a plain decimal is shown as is. */
export function groupDigits(amount: string): string {
  const match = /^([+-]?)(\d+)(\.\d*)?$/.exec(amount)
  if (!match) return amount
  const [, sign = '', whole = '', fraction = ''] = match
  return `${sign === '-' ? '−' : ''}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction}`
}

export function isNegative(amount: string): boolean {
  return /^-(?!0*\.?0*$)/.test(amount)
}

/** An RFC 3339 timestamp in the reader's own time zone, to the minute. */
export function formatTime(timestamp: string | null | undefined): string {
  if (!timestamp) return '—'
  const date = new Date(timestamp)
  if (Number.isNaN(date.getTime())) return timestamp
  return date.toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  })
}

/** How long ago, in words ("3 min ago"). */
export function ago(timestamp: string | null | undefined, now = Date.now()): string {
  if (!timestamp) return 'never'
  const seconds = Math.round((now - new Date(timestamp).getTime()) / 1000)
  if (!Number.isFinite(seconds)) return timestamp
  if (seconds < 45) return 'just now'
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.round(minutes / 60)
  if (hours < 36) return `${hours} h ago`
  return `${Math.round(hours / 24)} days ago`
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`
}

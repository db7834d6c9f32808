// Brute-force defence (docs/security.md): failed authentications are counted per
// client address. After `auth.max_failures` in one `auth.failure_window`, every
// request from that address that carries a credential is answered 429 with
// Retry-After until the window ends, without the credential being checked, so a
// guesser learns nothing more and costs no database lookup. Requests without a
// credential (open routes, /healthz) are never refused here, and a successful
// authentication is neither counted nor delayed.
import { isIP } from 'node:net'

/** Addresses remembered at once; the oldest entry goes first beyond it. */
export const FAILURE_TABLE_MAX_ENTRIES = 10_000

interface Entry {
  /** When the window of this address began (its first counted failure), ms. */
  start: number
  failures: number
}

/**
 * The key an address is counted under: an IPv4 address as is, an IPv6 address by
 * its /64 (one host is routinely given a whole /64, so counting single IPv6
 * addresses would let it rotate through them). IPv4-mapped IPv6 counts as IPv4.
 */
export function clientKey(ip: string): string {
  const plain = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip
  if (isIP(plain) !== 6) return plain
  return `${expandIpv6(plain).slice(0, 4).join(':')}::/64`
}

function expandIpv6(ip: string): string[] {
  const withoutZone = ip.split('%')[0]!
  const [head, tail] = withoutZone.includes('::') ? withoutZone.split('::') : [withoutZone, '']
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const fill = Array.from({ length: Math.max(0, 8 - left.length - right.length) }, () => '0')
  return [...left, ...fill, ...right].map((part) => part.toLowerCase().replace(/^0+(?=.)/, ''))
}

export class AuthFailureLimiter {
  private readonly entries = new Map<string, Entry>()

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key)
    if (entry && this.now() - entry.start >= this.windowMs) {
      this.entries.delete(key)
      return undefined
    }
    return entry
  }

  /** Seconds this address must wait, or 0 when it may try. */
  retryAfter(ip: string): number {
    const entry = this.live(clientKey(ip))
    if (!entry || entry.failures < this.maxFailures) return 0
    return Math.max(1, Math.ceil((entry.start + this.windowMs - this.now()) / 1000))
  }

  /** Counts one failure; returns the number counted in the current window. */
  recordFailure(ip: string): number {
    const key = clientKey(ip)
    let entry = this.live(key)
    if (!entry) {
      if (this.entries.size >= FAILURE_TABLE_MAX_ENTRIES) {
        // Maps iterate in insertion order: the first key is the oldest window.
        const oldest = this.entries.keys().next().value
        if (oldest !== undefined) this.entries.delete(oldest)
      }
      entry = { start: this.now(), failures: 0 }
      this.entries.set(key, entry)
    }
    entry.failures += 1
    return entry.failures
  }
}

// Listen addresses ("host:port", "[::1]:8080"): parsing for validation and the
// loopback test behind SPEC 5.3's refusal to start unprotected on a public address.

import { BlockList, isIPv6 } from 'node:net'

/** Splits "host:port" (IPv6 hosts in brackets); throws an Error saying what is wrong. */
export function splitHostPort(addr: string): { host: string; port: number } {
  let host: string
  let portText: string
  if (addr.startsWith('[')) {
    const close = addr.indexOf(']')
    if (close < 0 || addr[close + 1] !== ':') throw new Error('expected [ipv6]:port')
    host = addr.slice(1, close)
    portText = addr.slice(close + 2)
    if (!isIPv6(host)) throw new Error(`invalid IPv6 address ${JSON.stringify(host)}`)
  } else {
    const colon = addr.lastIndexOf(':')
    if (colon < 0) throw new Error('expected host:port')
    host = addr.slice(0, colon)
    portText = addr.slice(colon + 1)
    if (host.includes(':')) throw new Error('an IPv6 host must be in brackets, e.g. [::1]:8080')
  }
  if (host === '') throw new Error('missing host (use 0.0.0.0 to listen on every interface)')
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
    throw new Error(`port must be a number from 0 to 65535, got ${JSON.stringify(portText)}`)
  }
  return { host, port: Number(portText) }
}

// ::1 in any spelling, and IPv4 loopback mapped into IPv6.
const IPV6_LOOPBACK = new BlockList()
IPV6_LOOPBACK.addAddress('::1', 'ipv6')
IPV6_LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6')

/**
 * Whether an address (host:port, or a bare host) is reachable only from this machine:
 * 127.x.x.x, ::1 and localhost. Wildcards (0.0.0.0, ::) and everything else are not.
 */
export function isLoopbackAddr(addr: string): boolean {
  let host = addr
  try {
    host = splitHostPort(addr).host
  } catch {
    // Not host:port; treat the whole text as a host ("::1", "localhost").
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1)
  if (host.toLowerCase() === 'localhost') return true
  const octets = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host)
  if (octets) return octets.slice(1).every((octet) => Number(octet) <= 255)
  return isIPv6(host) && IPV6_LOOPBACK.check(host, 'ipv6')
}

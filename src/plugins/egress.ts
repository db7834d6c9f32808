// The only network door of sandboxed plugins: `coffer.fetch` (CONTRACT 9, Network).
// A request leaves only for a host the manifest allows or the operator granted,
// over https (http too for granted hosts), and never to a private, loopback,
// link-local or metadata address unless granted. The address that passed the
// check is the one the socket connects to, so DNS rebinding cannot swap it.
// Redirects are followed here, each hop checked again. Every attempt is logged,
// kept in a per-plugin ring and handed to `onAttempt` for the metrics.
import { promises as dns } from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import { BlockList, isIP, isIPv6, type LookupFunction } from 'node:net'
import { rootCertificates } from 'node:tls'
import type { Logger } from 'pino'
import { isoNow, type Clock } from '../clock.js'

export interface EgressPolicy {
  allow: string[]
  grants: string[]
}
export interface EgressRequest {
  url: string
  method?: string
  headers?: Record<string, string>
  body?: string
  timeout_ms?: number
}
export interface EgressResponse {
  status: number
  headers: Record<string, string>
  body: string
  truncated: boolean
}
export interface EgressAttempt {
  at: string
  method: string
  url: string
  host: string
  outcome: 'ok' | 'denied' | 'failed'
  status?: number
  reason?: string
  bytes?: number
  duration_ms: number
}

export type EgressLookup = (host: string) => Promise<Array<{ address: string; family: 4 | 6 }>>

/** A refusal by policy or of a malformed request; nothing was sent. Never carries secrets. */
export class EgressDenied extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'EgressDenied'
  }
}

export const EGRESS_TIMEOUT_MAX_MS = 10_000
export const EGRESS_RESPONSE_MAX_BYTES = 5 * 1024 * 1024
export const EGRESS_REQUEST_BODY_MAX_BYTES = 1024 * 1024
export const EGRESS_REQUEST_HEADERS_MAX_BYTES = 64 * 1024
export const EGRESS_REDIRECTS_MAX = 5
export const EGRESS_REQUESTS_PER_MINUTE = 60
export const EGRESS_ATTEMPTS_KEPT = 200
const RATE_WINDOW_MS = 60_000

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'])
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
// Framing and connection headers are ours to set: a plugin's value could smuggle a
// second request or desync the connection. Accept-Encoding stays "identity" because
// the body is handed back as text, undecoded.
const MANAGED_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'expect',
  'accept-encoding',
])
// Credentials meant for one origin are not carried to another one (as fetch does).
const CREDENTIAL_HEADERS = ['authorization', 'cookie']
// Describe a body that a redirect turned into a GET no longer sends.
const BODY_HEADERS = ['content-type', 'content-encoding', 'content-language', 'content-location']
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
// Control characters (CR, LF, NUL...) and anything Node cannot send as Latin-1.
const BAD_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/

// Address classes refused unless granted. Order matters only for the label:
// the metadata addresses sit inside link-local and private ranges.
const REFUSED_RANGES: Array<[label: string, network: string, prefix: number]> = [
  ['metadata', '169.254.169.254', 32],
  ['metadata', 'fd00:ec2::254', 128],
  ['unspecified', '0.0.0.0', 8],
  ['unspecified', '::', 128],
  ['loopback', '127.0.0.0', 8],
  ['loopback', '::1', 128],
  ['private', '10.0.0.0', 8],
  ['private', '172.16.0.0', 12],
  ['private', '192.168.0.0', 16],
  ['private', '100.64.0.0', 10], // carrier-grade NAT
  ['private', 'fc00::', 7],
  ['link-local', '169.254.0.0', 16],
  ['link-local', 'fe80::', 10],
  ['multicast', '224.0.0.0', 4],
  ['multicast', 'ff00::', 8],
  ['reserved', '240.0.0.0', 4], // includes the 255.255.255.255 broadcast
]
// IPv6 prefixes that carry an IPv4 address in their last 32 bits and reach it:
// IPv4-mapped (the local stack) and NAT64 (a gateway on the network).
const IPV4_CARRIERS = ['::ffff:', '64:ff9b::']

const REFUSED_CLASSES = REFUSED_RANGES.map(([label, network, prefix]) => {
  const list = new BlockList()
  if (isIPv6(network)) {
    list.addSubnet(network, prefix, 'ipv6')
  } else {
    list.addSubnet(network, prefix, 'ipv4')
    for (const carrier of IPV4_CARRIERS) list.addSubnet(carrier + network, 96 + prefix, 'ipv6')
  }
  return { label, list }
})

/** Why an address may not be reached without a grant ("loopback", "private"...), or null. */
export function refusedAddressClass(address: string): string | null {
  const family = isIP(address)
  if (family === 0) return 'invalid'
  const type = family === 4 ? 'ipv4' : 'ipv6'
  return REFUSED_CLASSES.find(({ list }) => list.check(address, type))?.label ?? null
}

/**
 * The form a URL gives a host: lower case, punycode, IPv4 in dotted form, IPv6
 * compressed and without brackets. Policy entries and URLs compare in this form;
 * an entry that is not a bare host matches nothing.
 */
export function canonicalHost(host: string): string | null {
  if (/[/@?#\\\s]/.test(host)) return null
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (bare.includes(':') && !isIPv6(bare)) return null // a port, not a host
  try {
    return stripBrackets(new URL(`http://${isIPv6(bare) ? `[${bare}]` : bare}/`).hostname)
  } catch {
    return null
  }
}

function stripBrackets(hostname: string): string {
  return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname
}

/** The URL as logged and kept: no credentials, query string or fragment. */
function loggableUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`
}

interface Hop {
  url: URL
  method: string
  headers: Record<string, string>
  body: Buffer | null
}

interface HopAnswer extends EgressResponse {
  location: string | null
  bytes: number
}

interface Checked {
  host: string
  address: string
  family: 4 | 6
}

export class PluginEgress {
  private readonly log: Logger
  private readonly clock: Clock
  private readonly onAttempt: ((plugin: string, attempt: EgressAttempt) => void) | undefined
  private readonly lookup: EgressLookup
  private readonly ca: Array<string | Buffer> | undefined
  private readonly rings = new Map<string, EgressAttempt[]>()
  private readonly admitted = new Map<string, number[]>()

  constructor(options: {
    log: Logger
    clock: Clock
    onAttempt?: (plugin: string, attempt: EgressAttempt) => void
    lookup?: EgressLookup
    ca?: string | Buffer
  }) {
    this.log = options.log
    this.clock = options.clock
    this.onAttempt = options.onAttempt
    this.lookup = options.lookup ?? systemLookup
    // `ca` replaces Node's roots when given alone; keep the public ones trusted too.
    this.ca = options.ca === undefined ? undefined : [...rootCertificates, options.ca]
  }

  async fetch(
    plugin: string,
    policy: EgressPolicy,
    request: EgressRequest,
  ): Promise<EgressResponse> {
    const started = performance.now()
    const method = request.method === undefined ? 'GET' : String(request.method).toUpperCase()
    let url: URL | null = null
    try {
      url = new URL(request.url)
    } catch {
      // Refused below, after the rate check, like any other bad request.
    }
    const host = url ? stripBrackets(url.hostname) : ''
    const record = (
      attempt: Omit<EgressAttempt, 'at' | 'method' | 'url' | 'host' | 'duration_ms'>,
    ) =>
      this.record(plugin, {
        at: isoNow(this.clock),
        method,
        url: url ? loggableUrl(url) : '',
        host,
        duration_ms: Math.round(performance.now() - started),
        ...attempt,
      })
    try {
      this.admit(plugin, host)
      if (!url) throw new EgressDenied('egress denied: invalid URL')
      const timeoutMs = timeoutOf(request, host)
      const first: Hop = { url, method, ...checkedContent(request, method, host) }
      const answer = await withDeadline(timeoutMs, host, (signal) =>
        this.follow(policy, first, signal),
      )
      record({ outcome: 'ok', status: answer.status, bytes: answer.bytes })
      return {
        status: answer.status,
        headers: answer.headers,
        body: answer.body,
        truncated: answer.truncated,
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      record({ outcome: error instanceof EgressDenied ? 'denied' : 'failed', reason })
      throw error
    }
  }

  attempts(plugin: string): EgressAttempt[] {
    return [...(this.rings.get(plugin) ?? [])]
  }

  forget(plugin: string): void {
    this.rings.delete(plugin)
    this.admitted.delete(plugin)
  }

  /** CONTRACT 9: 60 requests a minute, rolling, counted when admitted. */
  private admit(plugin: string, host: string): void {
    const now = this.clock.now().getTime()
    const times = (this.admitted.get(plugin) ?? []).filter((t) => now - t < RATE_WINDOW_MS)
    this.admitted.set(plugin, times)
    if (times.length >= EGRESS_REQUESTS_PER_MINUTE) {
      throw new EgressDenied(
        `egress to ${host || 'an invalid URL'} denied: rate limit of ${EGRESS_REQUESTS_PER_MINUTE} requests a minute reached`,
      )
    }
    times.push(now)
  }

  /** Sends the first hop and each redirect, every one checked against the policy. */
  private async follow(policy: EgressPolicy, first: Hop, signal: AbortSignal): Promise<HopAnswer> {
    let hop = first
    for (let redirects = 0; ; redirects++) {
      const checked = await this.check(policy, hop.url)
      const answer = await send(hop, checked, signal, this.ca)
      if (answer.location === null) return answer
      if (redirects === EGRESS_REDIRECTS_MAX) {
        throw new EgressDenied(
          `egress to ${checked.host} denied: more than ${EGRESS_REDIRECTS_MAX} redirects`,
        )
      }
      hop = redirected(hop, answer.status, answer.location)
    }
  }

  /** Scheme, host and every resolved address against the policy; answers the pinned address. */
  private async check(policy: EgressPolicy, url: URL): Promise<Checked> {
    const host = stripBrackets(url.hostname)
    const deny = (why: string) => new EgressDenied(`egress to ${host} denied: ${why}`)
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw deny(`scheme ${url.protocol} is not allowed (https only)`)
    }
    if (url.username !== '' || url.password !== '') throw deny('credentials in the URL')
    // The manifest names every host the plugin may reach; a grant only widens how
    // (a private address, plain http), never where.
    if (!policy.allow.some((entry) => canonicalHost(entry) === host)) {
      throw deny('host is not in [net].allow')
    }
    const granted = policy.grants.some((entry) => canonicalHost(entry) === host)
    if (url.protocol === 'http:' && !granted) {
      throw deny('plain http is allowed only for hosts the operator granted')
    }
    let addresses: Array<{ address: string; family: 4 | 6 }>
    const literal = isIP(host)
    if (literal !== 0) {
      addresses = [{ address: host, family: literal === 4 ? 4 : 6 }]
    } else {
      try {
        addresses = await this.lookup(host)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'lookup error'
        throw new Error(`egress to ${host} failed: could not resolve (${code})`)
      }
    }
    const pinned = addresses[0]
    if (!pinned) throw new Error(`egress to ${host} failed: no address`)
    if (!granted) {
      // ANY refused address refuses the host: a mixed answer is how rebinding starts.
      for (const { address } of addresses) {
        const refused = refusedAddressClass(address)
        if (refused) throw deny(`it resolves to a ${refused} address`)
      }
    }
    return { host, address: pinned.address, family: pinned.family }
  }

  private record(plugin: string, attempt: EgressAttempt): void {
    const ring = this.rings.get(plugin) ?? []
    ring.unshift(attempt)
    if (ring.length > EGRESS_ATTEMPTS_KEPT) ring.length = EGRESS_ATTEMPTS_KEPT
    this.rings.set(plugin, ring)
    const fields = { plugin, ...attempt }
    if (attempt.outcome === 'ok') this.log.info(fields, 'plugin egress')
    else this.log.warn(fields, 'plugin egress')
    try {
      this.onAttempt?.(plugin, attempt)
    } catch (error) {
      this.log.error({ err: error, plugin }, 'plugin egress: onAttempt failed')
    }
  }
}

async function systemLookup(host: string): Promise<Array<{ address: string; family: 4 | 6 }>> {
  const answers = await dns.lookup(host, { all: true, verbatim: true })
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }))
}

function timeoutOf(request: EgressRequest, host: string): number {
  if (request.timeout_ms === undefined) return EGRESS_TIMEOUT_MAX_MS
  if (typeof request.timeout_ms !== 'number' || !(request.timeout_ms > 0)) {
    throw new EgressDenied(`egress to ${host} denied: timeout_ms must be a positive number`)
  }
  return Math.min(Math.ceil(request.timeout_ms), EGRESS_TIMEOUT_MAX_MS)
}

/** Method, headers and body as the plugin gave them, checked; managed headers dropped. */
function checkedContent(
  request: EgressRequest,
  method: string,
  host: string,
): { headers: Record<string, string>; body: Buffer | null } {
  const deny = (why: string) => new EgressDenied(`egress to ${host} denied: ${why}`)
  if (!METHODS.has(method)) throw deny(`method must be one of ${[...METHODS].join(', ')}`)
  const given = request.headers ?? {}
  if (typeof given !== 'object' || Array.isArray(given)) throw deny('headers must be an object')
  const headers: Record<string, string> = {}
  let headerBytes = 0
  for (const [name, value] of Object.entries(given)) {
    // Names only in messages: values are where tokens live.
    if (!HEADER_NAME.test(name)) throw deny(`invalid header name ${JSON.stringify(name)}`)
    if (typeof value !== 'string' || BAD_HEADER_VALUE.test(value)) {
      throw deny(`invalid value for header ${name}`)
    }
    const key = name.toLowerCase()
    if (Object.hasOwn(headers, key)) throw deny(`header ${name} given twice`)
    headerBytes += key.length + value.length + 4
    if (MANAGED_HEADERS.has(key)) continue
    headers[key] = value
  }
  if (headerBytes > EGRESS_REQUEST_HEADERS_MAX_BYTES) {
    throw deny(`headers over ${EGRESS_REQUEST_HEADERS_MAX_BYTES} bytes`)
  }
  if (request.body === undefined) return { headers, body: null }
  if (typeof request.body !== 'string') throw deny('body must be a string')
  if (method === 'GET' || method === 'HEAD') throw deny(`a ${method} request has no body`)
  const body = Buffer.from(request.body, 'utf8')
  if (body.length > EGRESS_REQUEST_BODY_MAX_BYTES) {
    throw deny(`body over ${EGRESS_REQUEST_BODY_MAX_BYTES} bytes`)
  }
  return { headers, body }
}

/** The next hop of a redirect: 303, and 301/302 after a POST, become a GET without body. */
function redirected(hop: Hop, status: number, location: string): Hop {
  let url: URL
  try {
    url = new URL(location, hop.url)
  } catch {
    throw new Error(`egress to ${stripBrackets(hop.url.hostname)} failed: invalid redirect`)
  }
  const headers = { ...hop.headers }
  if (url.origin !== hop.url.origin) for (const name of CREDENTIAL_HEADERS) delete headers[name]
  const toGet =
    (status === 303 && hop.method !== 'HEAD') ||
    ((status === 301 || status === 302) && hop.method === 'POST')
  if (!toGet) return { url, method: hop.method, headers, body: hop.body }
  for (const name of BODY_HEADERS) delete headers[name]
  return { url, method: 'GET', headers, body: null }
}

/**
 * One request to the checked address. The socket's lookup answers that address
 * only, while host (and so the Host header, TLS SNI and the certificate check)
 * stays the name. No agent: a pooled socket would skip the lookup.
 */
function send(
  hop: Hop,
  checked: Checked,
  signal: AbortSignal,
  ca: Array<string | Buffer> | undefined,
): Promise<HopAnswer> {
  const pinnedLookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: checked.address, family: checked.family }])
    else callback(null, checked.address, checked.family)
  }
  const isHttps = hop.url.protocol === 'https:'
  const headers: Record<string, string> = { ...hop.headers, 'accept-encoding': 'identity' }
  if (hop.body) headers['content-length'] = String(hop.body.length)
  const options: https.RequestOptions = {
    host: checked.host,
    port: hop.url.port || (isHttps ? 443 : 80),
    path: `${hop.url.pathname}${hop.url.search}`,
    method: hop.method,
    headers,
    lookup: pinnedLookup,
    agent: false,
    signal,
  }
  if (isHttps && ca) options.ca = ca
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) =>
      reject(new Error(`egress to ${checked.host} failed: ${error.code ?? error.message}`))
    const req = (isHttps ? https : http).request(options, (res) => {
      const status = res.statusCode ?? 0
      const responseHeaders = joinedHeaders(res.rawHeaders)
      res.on('error', failed)
      const location = responseHeaders.location
      if (REDIRECT_STATUSES.has(status) && location !== undefined) {
        res.destroy()
        resolve({
          status,
          headers: responseHeaders,
          body: '',
          truncated: false,
          location,
          bytes: 0,
        })
        return
      }
      const chunks: Buffer[] = []
      let bytes = 0
      const finish = (truncated: boolean) =>
        resolve({
          status,
          headers: responseHeaders,
          body: Buffer.concat(chunks).toString('utf8'),
          truncated,
          location: null,
          bytes,
        })
      res.on('data', (chunk: Buffer) => {
        const room = EGRESS_RESPONSE_MAX_BYTES - bytes
        if (chunk.length <= room) {
          chunks.push(chunk)
          bytes += chunk.length
          return
        }
        // The cap: keep exactly what fits and stop reading.
        chunks.push(chunk.subarray(0, room))
        bytes += room
        res.destroy()
        finish(true)
      })
      res.on('end', () => finish(false))
    })
    req.on('error', failed)
    req.end(hop.body ?? undefined)
  })
}

/** Lower-case names; a repeated header's values joined with ", ". */
function joinedHeaders(raw: string[]): Record<string, string> {
  const headers: Record<string, string> = {}
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase()
    const value = raw[i + 1]!
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value
  }
  return headers
}

/**
 * Runs `work` under one deadline for the whole request, redirects included.
 * Sockets live on wall time, so this is a real timer, not the service clock.
 */
async function withDeadline<T>(
  ms: number,
  host: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`egress to ${host} timed out after ${ms} ms`))
      controller.abort()
    }, ms)
  })
  try {
    return await Promise.race([work(controller.signal), deadline])
  } finally {
    clearTimeout(timer)
    // Tears down whatever a refused or failed hop left open.
    controller.abort()
  }
}

// Cross-site and DNS-rebinding defence (docs/security.md): one onRequest check,
// run before authentication, that refuses
// - a request whose Host is a name this service was not told it answers to
//   (421): a DNS-rebinding page reaches 127.0.0.1 under its own name, and
// - a state-changing request sent by a page of another origin (403): the
//   browser says so in Origin, or, lacking it, in Sec-Fetch-Site.
// Clients that send neither (curl, scripts, MCP clients) are not affected.
import { isIP } from 'node:net'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config/index.js'
import { problem, sendProblem, type ProblemBody } from './problem.js'

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

export interface OriginPolicy {
  /** Lowercased host names (no port) that Host may carry; IP literals are always allowed. */
  hosts: ReadonlySet<string>
  /** Origins (scheme://host[:port]) besides the service's own that may change state. */
  origins: ReadonlySet<string>
}

/**
 * A Host header value as a URL host: lowercased, default port dropped, IPv6 in
 * brackets. Null when it is not a plain host[:port] (user info, a path, spaces).
 */
export function parseHost(value: string): { host: string; hostname: string } | null {
  if (value === '' || /[\s/?#@\\]/.test(value)) return null
  try {
    const url = new URL(`http://${value}`)
    return { host: url.host, hostname: url.hostname }
  } catch {
    return null
  }
}

function isIpLiteral(hostname: string): boolean {
  return isIP(hostname.startsWith('[') ? hostname.slice(1, -1) : hostname) !== 0
}

/** The names of server.addr, server.base_url and server.allowed_hosts, plus localhost. */
export function originPolicy(server: Config['server']): OriginPolicy {
  const hosts = new Set<string>(['localhost'])
  const add = (value: string): void => {
    const parsed = parseHost(value)
    if (parsed) hosts.add(parsed.hostname)
  }
  add(server.addr)
  add(new URL(server.base_url).host)
  for (const name of server.allowed_hosts) add(name)
  const origins = new Set<string>([new URL(server.base_url).origin])
  for (const origin of server.allowed_origins) origins.add(new URL(origin).origin)
  return { hosts, origins }
}

function quoted(value: string): string {
  return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value)
}

/** The refusal for this request, or null when it may go on. */
export function crossSiteRefusal(
  policy: OriginPolicy,
  request: FastifyRequest,
): ProblemBody | null {
  // HTTP/1.1 requires Host (Node answers 400 without one); an HTTP/1.0 client
  // that sends none is no browser.
  const hostHeader = request.headers.host
  let host: string | null = null
  if (hostHeader !== undefined) {
    const parsed = parseHost(hostHeader)
    // A page can make the browser send only its own name: an IP literal is
    // the address the browser really connected to, so it cannot be rebound.
    if (!parsed || !(isIpLiteral(parsed.hostname) || policy.hosts.has(parsed.hostname))) {
      return problem(
        421,
        `the Host header ${quoted(hostHeader)} is not a name this service answers to; ` +
          'add the name to server.allowed_hosts if it is yours',
      )
    }
    host = parsed.host
  }

  if (!STATE_CHANGING.has(request.method)) return null
  const origin = request.headers.origin
  if (origin === undefined) {
    // Browsers send Origin with every state-changing request; Sec-Fetch-Site
    // is the second witness for one that does not.
    if (request.headers['sec-fetch-site'] === 'cross-site') {
      return problem(
        403,
        'a cross-site request (Sec-Fetch-Site: cross-site) may not change anything; ' +
          'add its origin to server.allowed_origins to allow it',
      )
    }
    return null
  }
  let url: URL | null = null
  try {
    url = new URL(origin)
  } catch {
    // refused below ("null", garbage)
  }
  const allowed =
    url !== null &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    // Same host and port as the request itself (Host passed the check above),
    // or a configured origin (server.base_url, server.allowed_origins).
    ((host !== null && url.host === host) || policy.origins.has(url.origin))
  if (allowed) return null
  return problem(
    403,
    `a request from the origin ${quoted(origin)} may not change anything here: ` +
      "it is not this service's own; add it to server.allowed_origins to allow it",
  )
}

/** The onRequest hook of server.ts. */
export function originGuard(
  server: Config['server'],
): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined> {
  const policy = originPolicy(server)
  return async (request, reply) => {
    const refusal = crossSiteRefusal(policy, request)
    // Returning the sent reply ends the request here, before authentication.
    return refusal === null ? undefined : sendProblem(reply, refusal)
  }
}

// Authentication (SPEC 5): the dashboard token, API keys, and the tier check that
// wraps every route (one onRequest hook; each route names its tier in
// http/routes.ts, and a route without one is refused, never open).
import type { FastifyRequest } from 'fastify'
import type { ServiceContext } from '../context.js'
import { Forbidden, Unauthorized, Unavailable } from '../errors.js'
import { ApiKeyLookup } from './api-keys.js'
import { DashboardToken } from './dashboard-token.js'
import { decide, type Credential, type Tier } from './decide.js'

export class Auth {
  readonly dashboard: DashboardToken
  private readonly apiKeys = new ApiKeyLookup()

  constructor(private readonly ctx: ServiceContext) {
    this.dashboard = new DashboardToken(ctx.config.dashboard.token)
  }

  load(): Promise<void> {
    return this.dashboard.load(this.ctx)
  }

  async credentialOf(authorization: string | undefined): Promise<Credential> {
    if (authorization === undefined || authorization.trim() === '') return { kind: 'none' }
    const bearer = parseBearer(authorization)
    if (bearer === null) return { kind: 'invalid' }
    if (this.dashboard.matches(bearer)) return { kind: 'dashboard' }
    const key = await this.apiKeys.find(this.ctx, bearer)
    return key ? { kind: 'api_key', scope: key.scope } : { kind: 'invalid' }
  }

  /** The onRequest check: throws the 401/403/503 of SPEC 5.2, or marks the request. */
  async check(request: FastifyRequest): Promise<void> {
    // A request no route matched goes on to the 404 handler.
    if (request.routeOptions.url === undefined) return
    const config = request.routeOptions.config
    // Every route names its tier (http/routes.ts); there is no default to fall to.
    const tier: Tier | undefined = config.tier
    if (tier === undefined) throw new Error(`${request.routeOptions.url} names no tier`)
    const credential = await this.credentialOf(request.headers.authorization)
    if (config.bootstrap && !this.dashboard.configured && isLoopback(request.ip)) {
      request.authenticated = false
      return
    }
    const decision = decide(tier, this.dashboard.configured, credential)
    if (!decision.allow) {
      if (decision.status === 401) throw new Unauthorized(decision.reason)
      if (decision.status === 403) throw new Forbidden(decision.reason)
      throw new Unavailable(decision.reason)
    }
    request.authenticated = decision.authenticated
  }
}

export function parseBearer(header: string | undefined): string | null {
  if (!header) return null
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match ? match[1]! : null
}

function isLoopback(ip: string): boolean {
  return ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.')
}

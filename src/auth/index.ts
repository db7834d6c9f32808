// Authentication (SPEC 5): the dashboard token, API keys, and the tier check that
// wraps every route (one onRequest hook; each route names its tier in
// http/routes.ts, and a route without one is refused, never open).
import type { FastifyRequest } from 'fastify'
import { apiKeyPrincipal, CREDENTIALS_CHANNEL, DASHBOARD_PRINCIPAL } from './principal.js'
import { parseDuration } from '../config/index.js'
import type { ServiceContext } from '../context.js'
import { Forbidden, TooManyRequests, Unauthorized, Unavailable } from '../errors.js'
import { watchChanges, type ChangeWatch } from '../db/coordination.js'
import { ApiKeyLookup } from './api-keys.js'
import { DashboardToken } from './dashboard-token.js'
import { decide, type Credential, type Tier } from './decide.js'
import { AuthFailureLimiter, clientKey } from './failures.js'

/** SQLite: how often credentials changed by another process are looked for. */
export const CREDENTIALS_POLL_MS = 2_000

export class Auth {
  readonly dashboard: DashboardToken
  private readonly apiKeys = new ApiKeyLookup()
  private readonly failures: AuthFailureLimiter

  constructor(private readonly ctx: ServiceContext) {
    this.dashboard = new DashboardToken(ctx.config.dashboard.token)
    this.failures = new AuthFailureLimiter(
      ctx.config.auth.max_failures,
      parseDuration(ctx.config.auth.failure_window),
      () => Date.now(),
    )
  }

  /** The API keys there were at the last look: one gone since was revoked. */
  private readonly keyIds = new Set<string>()
  private watch: ChangeWatch | null = null
  private refreshing: Promise<void> = Promise.resolve()

  /**
   * Loads the stored dashboard token, then follows credential changes made by
   * every process sharing the database (a notice on PostgreSQL, a poll on SQLite):
   * a token replaced or revoked elsewhere stops working here too, and the event
   * streams of a revoked credential end (signal `credential.revoked`).
   */
  async start(): Promise<void> {
    await this.dashboard.load(this.ctx)
    for (const id of await this.apiKeyIds()) this.keyIds.add(id)
    this.watch = await watchChanges(this.ctx.db, this.ctx.config.database.dsn, {
      channel: CREDENTIALS_CHANNEL,
      pollMs: CREDENTIALS_POLL_MS,
      log: this.ctx.log,
      onChange: () => {
        this.refreshing = this.refreshing.then(() => this.refresh())
      },
    })
  }

  async stop(): Promise<void> {
    await this.watch?.close()
    this.watch = null
    await this.refreshing
  }

  private async refresh(): Promise<void> {
    if (this.ctx.signals.closing.aborted) return
    try {
      if (await this.dashboard.reload(this.ctx)) {
        this.ctx.signals.emit('credential.revoked', DASHBOARD_PRINCIPAL)
      }
      const now = await this.apiKeyIds()
      for (const id of this.keyIds) {
        if (now.has(id)) continue
        this.keyIds.delete(id)
        this.ctx.signals.emit('credential.revoked', apiKeyPrincipal(id))
      }
      for (const id of now) this.keyIds.add(id)
    } catch (error) {
      // A closed or busy database: the next notice or poll looks again.
      this.ctx.log.debug({ err: error }, 'auth: could not re-read the credentials')
    }
  }

  private async apiKeyIds(): Promise<Set<string>> {
    const rows = await this.ctx.db.kysely.selectFrom('api_keys').select('id').execute()
    return new Set(rows.map((row) => row.id))
  }

  async credentialOf(authorization: string | undefined): Promise<Credential> {
    if (authorization === undefined || authorization.trim() === '') return { kind: 'none' }
    const bearer = parseBearer(authorization)
    if (bearer === null) return { kind: 'invalid' }
    if (this.dashboard.matches(bearer)) return { kind: 'dashboard' }
    const key = await this.apiKeys.find(this.ctx, bearer)
    if (!key) return { kind: 'invalid' }
    // Known from now on, so that its revocation elsewhere is noticed however soon it comes.
    this.keyIds.add(key.id)
    return { kind: 'api_key', scope: key.scope, id: key.id }
  }

  /**
   * GET /api/v1/auth: SPEC 2.9's two flags, plus what the dashboard needs to
   * draw itself: what this request's credential may reach, where the dashboard
   * token comes from, and whether this client may create the first token
   * (CONTRACT 3b: none configured anywhere, and a loopback client).
   */
  async status(request: FastifyRequest): Promise<AuthStatus> {
    const credential = await this.credentialOf(request.headers.authorization)
    const source = this.dashboard.source
    const configured = source !== 'none'
    return {
      auth_required: configured,
      authenticated: credential.kind === 'dashboard' || credential.kind === 'api_key',
      access: accessOf(configured, credential),
      token_source: source === 'none' ? null : source,
      can_create_token: !configured && isLoopback(request.ip),
    }
  }

  /**
   * Refuses a credential from an address over its failure budget (429), and
   * counts a credential that matched nothing while a token is in force
   * (docs/security.md, brute force). Without a dashboard token nothing is
   * guarded by a secret, so nothing is counted.
   */
  private async limitedCredentialOf(request: FastifyRequest): Promise<Credential> {
    const authorization = request.headers.authorization
    const presented = authorization !== undefined && authorization.trim() !== ''
    if (presented && this.dashboard.configured) {
      const wait = this.failures.retryAfter(request.ip)
      if (wait > 0) {
        this.ctx.metrics.authRateLimited.inc()
        throw new TooManyRequests(
          `too many failed authentications from this address; try again in ${wait} s ` +
            `(auth.max_failures = ${this.ctx.config.auth.max_failures} per auth.failure_window = ` +
            `${this.ctx.config.auth.failure_window})`,
          wait,
        )
      }
    }
    const credential = await this.credentialOf(authorization)
    if (credential.kind === 'invalid' && this.dashboard.configured) {
      this.ctx.metrics.authFailures.inc()
      const count = this.failures.recordFailure(request.ip)
      if (count === this.ctx.config.auth.max_failures) {
        request.log.warn(
          { client: clientKey(request.ip), failures: count },
          'failed authentications from one address reached auth.max_failures; refusing its credentials for auth.failure_window',
        )
      }
    }
    return credential
  }

  /** The onRequest check: throws the 401/403/503 of SPEC 5.2, or marks the request. */
  async check(request: FastifyRequest): Promise<void> {
    // A request no route matched goes on to the 404 handler.
    if (request.routeOptions.url === undefined) return
    const config = request.routeOptions.config
    // Every route names its tier (http/routes.ts); there is no default to fall to.
    const tier: Tier | undefined = config.tier
    if (tier === undefined) throw new Error(`${request.routeOptions.url} names no tier`)
    const credential = await this.limitedCredentialOf(request)
    request.principal = principalOf(credential, request.ip)
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

export interface AuthStatus {
  auth_required: boolean
  authenticated: boolean
  access: Access
  token_source: 'config' | 'stored' | null
  can_create_token: boolean
}

/** The highest tier a credential reaches (SPEC 5.2), as the dashboard names it. */
export type Access = 'admin' | 'read_write' | 'read' | 'none'

function accessOf(tokenConfigured: boolean, credential: Credential): Access {
  const reaches = (tier: Tier): boolean => decide(tier, tokenConfigured, credential).allow
  if (reaches('admin')) return 'admin'
  if (reaches('write')) return 'read_write'
  return reaches('read') ? 'read' : 'none'
}

/** Who a request is, for per-client limits: the credential, else the client address. */
function principalOf(credential: Credential, ip: string): string {
  if (credential.kind === 'dashboard') return DASHBOARD_PRINCIPAL
  if (credential.kind === 'api_key' && credential.id) return apiKeyPrincipal(credential.id)
  return `address ${clientKey(ip)}`
}

export function parseBearer(header: string | undefined): string | null {
  if (!header) return null
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match ? match[1]! : null
}

function isLoopback(ip: string): boolean {
  return ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.')
}

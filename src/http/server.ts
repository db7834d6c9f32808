// The HTTP door: one Fastify app, every route registered from the table in
// routes.ts (grep a path to find where it is served), one auth hook wrapping
// them all, and one error mapping (problem.ts).
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify'
import type { Auth } from '../auth/index.js'
import type { ServiceContext } from '../context.js'
import type { RestartRequest, UpdateService } from '../update/index.js'
import type { PluginService } from '../plugins/index.js'
import type { SearchPool } from '../search/pool/pool.js'
import type { Settings } from '../settings/service.js'
import type { SyncService } from '../sync/index.js'
import { parseDuration } from '../config/index.js'
import { Invalid, ShuttingDown, TooManyRequests } from '../errors.js'
import { accessLog } from './access-log.js'
import { bodyText } from './body-text.js'
import { checkUrlLength, clientErrorHandler, HEADER_MAX_BYTES } from './client-errors.js'
import { dashboardDir, dashboardRoutes, registerDashboardFiles } from './dashboard.js'
import { JsonBodyError, parseJsonBody } from './json-body.js'
import { findNul } from './nul.js'
import { originGuard } from './origin-guard.js'
import { problem, sendProblem, toProblem } from './problem.js'
import type { Route, RouteDeps } from './route.js'
import { ROUTES } from './routes.js'
import { securityHeaders } from './security-headers.js'
import { SseStreams } from './sse.js'
import type { App } from './types.js'
import { serializersOnFirstUse } from './serialization.js'
import { validatorCompiler } from './validation.js'

export const BODY_LIMIT_BYTES = 1024 * 1024
/** Longest a client may take to send its headers (bounded by server.request_timeout). */
export const HEADERS_TIMEOUT_MS = 10_000
/** Idle time allowed between requests on a kept-alive connection. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000
/** How often Node checks requests against those timeouts. */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000
/**
 * Longest a GET may take to answer (503 problem after). Reads only: a write that
 * is slow is waiting for the database and its answer says whether it committed,
 * so cutting it would leave the client guessing. Streams (SSE) hijack the reply
 * and are not bound.
 */
export const GET_HANDLER_TIMEOUT_MS = 30_000

export interface HttpServer {
  app: App
  sse: SseStreams
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 0
  )
}

function isRead(method: Route['method']): boolean {
  const methods = Array.isArray(method) ? method : [method]
  return methods.every((m) => m === 'GET' || m === 'HEAD')
}

export interface HttpDeps {
  ctx: ServiceContext
  auth: Auth
  sync: SyncService
  searches: SearchPool
  settings: Settings
  plugins: PluginService
  restart: ((request?: RestartRequest) => void) | null
  update: UpdateService
}

/** Builds the app with every route of ROUTES, plus `mounted` (app.ts passes /mcp). */
export async function buildHttpServer(
  { ctx, auth, sync, searches, settings, update, restart, plugins }: HttpDeps,
  mounted: readonly Route[] = [],
): Promise<HttpServer> {
  // Widened so that the instance type matches App (FastifyBaseLogger).
  const logger: FastifyBaseLogger = ctx.log
  // Slowloris defence (docs/security.md): the whole request (headers and body)
  // must arrive within server.request_timeout, the headers within 10 s of it;
  // Node answers 408 (client-errors.ts). A response, an SSE stream included,
  // is not bound by these: they time the request only.
  const requestTimeout = parseDuration(ctx.config.server.request_timeout)
  const app = Fastify({
    loggerInstance: logger,
    // Fastify's own two lines per request are off; accessLog below writes one
    // (log.access), with the query's values dropped.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    schemaController: { compilersFactory: { buildSerializer: serializersOnFirstUse } },
    // Fastify's own 503 while closing is not problem+json: the hook below answers instead.
    return503OnClosing: false,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    requestTimeout,
    routerOptions: { maxParamLength: 1024 },
    // URL and header limits answered as problem details (client-errors.ts).
    http: {
      maxHeaderSize: HEADER_MAX_BYTES,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeout),
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, requestTimeout),
    },
    clientErrorHandler,
    // Malformed URLs (bad percent-encoding, an over-long path segment) are
    // answered by the router itself; keep them problem details too (CONTRACT 3).
    frameworkErrors: (error, _request, reply) => {
      void sendProblem(
        reply,
        problem(
          error.statusCode && error.statusCode >= 400 && error.statusCode < 500
            ? error.statusCode
            : 400,
          error.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? 'a path segment is longer than 1024 characters'
            : 'the URL is malformed (invalid percent-encoding)',
        ),
      )
    },
  }).withTypeProvider<TypeBoxTypeProvider>()

  app.setValidatorCompiler(validatorCompiler)
  app.decorateRequest('authenticated', false)
  app.decorateRequest('principal', '')

  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    try {
      const text = bodyText(req.headers['content-encoding'], Buffer.from(body))
      done(null, parseJsonBody(text))
    } catch (error) {
      const err = error as JsonBodyError & { statusCode?: number }
      err.statusCode ??= 400
      done(err, undefined)
    }
  })

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof TooManyRequests && error.retryAfterSeconds !== undefined) {
      void reply.header('retry-after', String(error.retryAfterSeconds))
    }
    return sendProblem(reply, toProblem(error, request))
  })
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, problem(404, `no route for ${request.method} ${request.url.split('?')[0]}`)),
  )

  // First, so that every answer carries them, refusals included (docs/security.md).
  app.addHook('onRequest', securityHeaders)
  app.addHook('onRequest', checkUrlLength)
  // A request that arrives once the service is closing (a shutdown, a restart, an
  // update) is a 503 problem; the answer ends its connection (onSend below).
  app.addHook('onRequest', async () => {
    if (ctx.signals.closing.aborted) throw new ShuttingDown()
  })
  // Host and Origin next (docs/security.md): a refused request never reaches auth.
  app.addHook('onRequest', originGuard(ctx.config.server))
  app.addHook('onRequest', async (request) => auth.check(request))
  // PostgreSQL text cannot hold U+0000 (a query carrying one fails), so no
  // path, query or body string may contain it, on either engine.
  app.addHook('preValidation', async (request) => {
    // The router refuses a garbled path; the query parser would keep a garbled
    // query as raw text, so refuse it here the same way (CONTRACT 3).
    const queryStart = request.url.indexOf('?')
    if (queryStart !== -1) {
      try {
        decodeURIComponent(request.url.slice(queryStart + 1))
      } catch {
        throw Invalid.field('query', 'the query string is malformed (invalid percent-encoding)')
      }
    }
    // A DELETE acts on its path and query alone; a body it would ignore is refused
    // rather than silently dropped (CONTRACT 3: unknown fields are 400).
    if (
      request.method === 'DELETE' &&
      !request.routeOptions.schema?.body &&
      request.body !== undefined &&
      !isEmptyObject(request.body)
    ) {
      throw Invalid.field('body', 'a DELETE takes no request body')
    }
    const where =
      findNul(request.params, 'path') ??
      findNul(request.query, 'query') ??
      findNul(request.body, 'body')
    if (where !== null) {
      throw Invalid.field(where, 'must not contain the NUL character (U+0000)')
    }
  })
  // While the service closes, an answer in flight ends its connection: a kept-alive
  // socket would otherwise hold close() until the keep-alive timeout.
  app.addHook('onSend', async (_request, reply) => {
    if (ctx.signals.closing.aborted) void reply.header('connection', 'close')
  })
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched'
    const labels = { method: request.method, route }
    ctx.metrics.httpRequests.inc({ ...labels, status: String(reply.statusCode) })
    ctx.metrics.httpDuration.observe(labels, reply.elapsedTime / 1000)
  })
  if (ctx.config.log.access) app.addHook('onResponse', accessLog)

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Coffer API', version: '1' },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
      security: [{ bearer: [] }],
    },
  })

  const sse = new SseStreams(
    { total: ctx.config.events.max_streams, perClient: ctx.config.events.max_streams_per_client },
    ctx.metrics,
  )
  const deps: RouteDeps = { ctx, sync, searches, auth, sse, settings, update, restart, plugins }
  const webDir = dashboardDir()
  await registerDashboardFiles(app, webDir)
  const routes = [...ROUTES, ...mounted, ...dashboardRoutes(webDir)]
  for (const { method, url, tier, schema, handler, options } of routes) {
    // The auth hook reads the tier; a route without one would be refused here.
    if (tier === undefined) throw new Error(`${String(method)} ${url} names no tier`)
    app.route({
      method,
      url,
      config: {
        tier,
        ...(options.bootstrap ? { bootstrap: true } : {}),
        ...(options.csp ? { csp: options.csp } : {}),
      },
      schema,
      ...(isRead(method) ? { handlerTimeout: GET_HANDLER_TIMEOUT_MS } : {}),
      ...(options.preValidation ? { preValidation: options.preValidation } : {}),
      handler: (request, reply) => handler(deps, request, reply),
    })
  }

  const revoked = (principal: string) => sse.closeFor(principal)
  ctx.signals.on('credential.revoked', revoked)
  app.addHook('preClose', async () => {
    ctx.signals.off('credential.revoked', revoked)
    sse.closeAll()
  })
  return { app, sse }
}

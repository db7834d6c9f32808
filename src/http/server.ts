// The HTTP door: one Fastify app, every route file registered from the explicit
// list below (grep a path to find where it is served), one auth hook wrapping
// them all, and one error mapping (problem.ts).
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify'
import type { Auth } from '../auth/index.js'
import type { ServiceContext } from '../context.js'
import { JsonBodyError, parseJsonBody } from './json-body.js'
import { problem, sendProblem, toProblem } from './problem.js'
import * as accountRoutes from './routes/accounts.js'
import type { RouteDeps } from './routes/deps.js'
import * as eventRoutes from './routes/events.js'
import * as securityRoutes from './routes/security.js'
import * as systemRoutes from './routes/system.js'
import * as transactionRoutes from './routes/transactions.js'
import { SseStreams } from './sse.js'
import type { App } from './types.js'
import { validatorCompiler } from './validation.js'

export const BODY_LIMIT_BYTES = 1024 * 1024

const ROUTES: ReadonlyArray<{ register(app: App, deps: RouteDeps): void }> = [
  systemRoutes,
  accountRoutes,
  transactionRoutes,
  eventRoutes,
  securityRoutes,
]

export interface HttpServer {
  app: App
  sse: SseStreams
}

export async function buildHttpServer(ctx: ServiceContext, auth: Auth): Promise<HttpServer> {
  // Widened so that the instance type matches App (FastifyBaseLogger).
  const logger: FastifyBaseLogger = ctx.log
  const app = Fastify({
    loggerInstance: logger,
    // Per-request lines would drown the log; metrics count requests instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    return503OnClosing: true,
    // Generous enough for SSE; requests themselves are short.
    keepAliveTimeout: 10_000,
    routerOptions: { maxParamLength: 1024 },
  }).withTypeProvider<TypeBoxTypeProvider>()

  app.setValidatorCompiler(validatorCompiler)
  app.decorateRequest('authenticated', false)

  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(typeof body === 'string' ? body : body.toString('utf8')))
    } catch (error) {
      const err = error as JsonBodyError & { statusCode?: number }
      err.statusCode = 400
      done(err, undefined)
    }
  })

  app.setErrorHandler((error, request, reply) => sendProblem(reply, toProblem(error, request)))
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, problem(404, `no route for ${request.method} ${request.url.split('?')[0]}`)),
  )

  app.addHook('onRequest', async (request) => auth.check(request))
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched'
    const labels = { method: request.method, route }
    ctx.metrics.httpRequests.inc({ ...labels, status: String(reply.statusCode) })
    ctx.metrics.httpDuration.observe(labels, reply.elapsedTime / 1000)
  })

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

  const sse = new SseStreams()
  const deps: RouteDeps = { ctx, auth, sse }
  for (const routes of ROUTES) routes.register(app, deps)

  app.get('/api/v1/openapi.json', { config: { tier: 'open' }, schema: { hide: true } }, async () =>
    app.swagger(),
  )

  app.addHook('preClose', async () => sse.closeAll())
  return { app, sse }
}

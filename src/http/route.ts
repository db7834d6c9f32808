// What a route is: method, path, tier, schema and handler (routes.ts lists them
// all). A handler takes the door's dependencies and the request, calls one
// service and returns its answer; the types tie params, query, body and the
// returned body to the route's schema (src/schemas/).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type {
  ContextConfigDefault,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  HTTPMethods,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
} from 'fastify'
import type { Tier } from '../auth/decide.js'
import type { Auth } from '../auth/index.js'
import type { ServiceContext } from '../context.js'
import type { PluginService } from '../plugins/index.js'
import type { SearchPool } from '../search/pool/pool.js'
import type { Settings } from '../settings/service.js'
import type { SyncService } from '../sync/index.js'
import type { RestartRequest, UpdateService } from '../update/index.js'
import type { SseStreams } from './sse.js'

/**
 * What handlers receive: the service context, the sync service, the search pool
 * (searches run off the main thread), auth state, open SSE streams.
 */
export interface RouteDeps {
  ctx: ServiceContext
  sync: SyncService
  searches: SearchPool
  auth: Auth
  sse: SseStreams
  /** Editable settings (CONTRACT 10). */
  settings: Settings
  /**
   * Asks the program to drain and start again (cli.ts `coffer serve`); null
   * where nothing would start it again (an app started in-process by a test).
   */
  restart: ((request?: RestartRequest) => void) | null
  update: UpdateService
  /** Plugins (CONTRACT 9). */
  plugins: PluginService
}

export type Request<S extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  S,
  TypeBoxTypeProvider
>

export type Reply<S extends FastifySchema> = FastifyReply<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  ContextConfigDefault,
  S,
  TypeBoxTypeProvider
>

export type Handler<S extends FastifySchema> = (
  deps: RouteDeps,
  request: Request<S>,
  reply: Reply<S>,
) => ReturnType<
  RouteHandlerMethod<
    RawServerDefault,
    RawRequestDefaultExpression,
    RawReplyDefaultExpression,
    RouteGenericInterface,
    ContextConfigDefault,
    S,
    TypeBoxTypeProvider
  >
>

export interface RouteOptions<S extends FastifySchema> {
  /** POST /security/token may create the first token without one (CONTRACT 3b). */
  bootstrap?: true
  /** Content-Security-Policy of the answers (HTML pages); API_CSP when unset. */
  csp?: string
  preValidation?: (request: Request<S>) => Promise<void>
}

/** One row of the route table, its types checked and then erased. */
export interface Route {
  method: HTTPMethods | HTTPMethods[]
  url: string
  /** Who may call the route (SPEC 4, 5.1): every route names one, there is no default. */
  tier: Tier
  schema: FastifySchema
  handler: Handler<FastifySchema>
  options: RouteOptions<FastifySchema>
}

export function route<S extends FastifySchema>(
  method: HTTPMethods | HTTPMethods[],
  url: string,
  tier: Tier,
  schema: S,
  handler: Handler<S>,
  options: RouteOptions<S> = {},
): Route {
  return {
    method,
    url,
    tier,
    schema,
    handler: handler as unknown as Handler<FastifySchema>,
    options: options as RouteOptions<FastifySchema>,
  }
}

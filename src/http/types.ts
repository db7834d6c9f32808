// The Fastify instance type every route file registers on.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify'
import type { Tier } from '../auth/decide.js'

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Who may call the route (SPEC 4, 5.1). Every route names one (http/route.ts
     * requires it); only the 404 handler has none.
     */
    tier?: Tier
    /** POST /security/token may create the first token without one (CONTRACT 3b). */
    bootstrap?: boolean
    /** Content-Security-Policy of this route's answers; API_CSP when unset (security-headers.ts). */
    csp?: string
  }
  interface FastifyRequest {
    authenticated: boolean
    /** Who the request is for per-client limits (auth/index.ts): a credential or an address. */
    principal: string
  }
}

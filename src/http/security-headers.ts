// Response headers every answer carries (docs/security.md), set on the raw
// response in the first onRequest hook, so that they are on problem answers,
// 404s, the SSE stream and /mcp (which write the raw response themselves) too.
// The Content-Security-Policy is the one header that varies: API answers are
// data and may load nothing; a route serving HTML (the dashboard, issue 13)
// names its policy in its route config (`csp`).
import type { FastifyReply, FastifyRequest } from 'fastify'

/** For JSON, text and event streams: nothing may be loaded, nothing may frame it. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'"

/** For the dashboard's HTML: its own scripts, styles and API, nothing else. */
export const DASHBOARD_CSP =
  "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

export const STATIC_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  // For browsers without CSP frame-ancestors.
  'X-Frame-Options': 'DENY',
}

/** The policy of the request's route: its config's `csp`, else API_CSP. */
export function contentSecurityPolicy(request: FastifyRequest): string {
  return request.routeOptions.config?.csp ?? API_CSP
}

/** The onRequest hook of server.ts. */
export async function securityHeaders(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  for (const [name, value] of Object.entries(STATIC_SECURITY_HEADERS)) {
    reply.raw.setHeader(name, value)
  }
  reply.raw.setHeader('Content-Security-Policy', contentSecurityPolicy(request))
}

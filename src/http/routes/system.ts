// Open routes (SPEC 4.1) and the effective configuration (SPEC 4.2).
import Type from 'typebox'
import { redactConfig } from '../../config/index.js'
import { ErrorResponses } from '../schemas/common.js'
import type { App } from '../types.js'
import type { RouteDeps } from './deps.js'

export function register(app: App, { ctx, auth }: RouteDeps): void {
  app.get(
    '/healthz',
    {
      config: { tier: 'open' },
      schema: { tags: ['system'], summary: 'Liveness', response: { 200: Type.String() } },
    },
    async (_req, reply) => reply.type('text/plain; charset=utf-8').send('ok'),
  )

  app.get(
    '/readyz',
    {
      config: { tier: 'open' },
      schema: {
        tags: ['system'],
        summary: 'Readiness: pings the database',
        response: {
          200: Type.Object({ status: Type.Literal('ready') }),
          503: Type.Object({ status: Type.Literal('unavailable') }),
        },
      },
    },
    async (_req, reply) =>
      (await ctx.db.ping())
        ? reply.send({ status: 'ready' as const })
        : reply.code(503).send({ status: 'unavailable' as const }),
  )

  app.get(
    '/metrics',
    {
      config: { tier: 'open' },
      schema: { tags: ['system'], summary: 'Prometheus metrics', response: { 200: Type.String() } },
    },
    async (_req, reply) =>
      reply.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics()),
  )

  app.get(
    '/api/v1/auth',
    {
      config: { tier: 'open' },
      schema: {
        tags: ['system'],
        summary: 'Whether a token is required and whether this request carries a valid one',
        response: {
          200: Type.Object({ auth_required: Type.Boolean(), authenticated: Type.Boolean() }),
        },
      },
    },
    async (req) => {
      const credential = await auth.credentialOf(req.headers.authorization)
      return {
        auth_required: auth.dashboard.configured,
        authenticated: credential.kind === 'dashboard' || credential.kind === 'api_key',
      }
    },
  )

  app.get(
    '/api/v1/config',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['system'],
        summary: 'Effective configuration, secrets redacted',
        response: { 200: Type.Object({}, { additionalProperties: true }), ...ErrorResponses },
      },
    },
    async () => redactConfig(ctx.config),
  )
}

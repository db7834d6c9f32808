// Handlers of the open routes (SPEC 4.1), the effective configuration (SPEC 4.2)
// and the OpenAPI document.
import { redactConfig } from '../../config/index.js'
import { SystemRoutes as S } from '../../schemas/system.js'
import type { Handler } from '../route.js'

export const healthz: Handler<typeof S.healthz> = async (_deps, _req, reply) =>
  reply.type('text/plain; charset=utf-8').send('ok')

export const readyz: Handler<typeof S.readyz> = async ({ ctx }, _req, reply) =>
  (await ctx.db.ping())
    ? reply.send({ status: 'ready' as const })
    : reply.code(503).send({ status: 'unavailable' as const })

export const metrics: Handler<typeof S.metrics> = async ({ ctx }, _req, reply) =>
  reply.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics())

export const auth: Handler<typeof S.auth> = async ({ auth }, req) => auth.status(req)

export const config: Handler<typeof S.config> = async ({ ctx }) => redactConfig(ctx.config)

/** The document generated from every route's schema (@fastify/swagger). */
export const openapi: Handler<typeof S.openapi> = async (_deps, req) => req.server.swagger()

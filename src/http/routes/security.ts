// Handlers of /api/v1/security: the dashboard token and API keys (SPEC 4.4, 5;
// CONTRACT 3b, 6). Management actions emit no events (SPEC 6.1.5).
import { createApiKey, listApiKeys, revokeApiKey } from '../../auth/api-keys.js'
import { SecurityRoutes as S } from '../../schemas/security.js'
import type { Handler } from '../route.js'

export const setToken: Handler<typeof S.setToken> = async ({ ctx, auth }, req, reply) =>
  reply.code(201).send(await auth.dashboard.set(ctx, req.body.token))

export const revokeToken: Handler<typeof S.revokeToken> = async ({ ctx, auth }, _req, reply) => {
  await auth.dashboard.revoke(ctx)
  return reply.code(204).send(null)
}

export const createKey: Handler<typeof S.createApiKey> = async ({ ctx }, req, reply) =>
  reply.code(201).send(await createApiKey(ctx, req.body))

export const listKeys: Handler<typeof S.listApiKeys> = ({ ctx }) => listApiKeys(ctx)

export const revokeKey: Handler<typeof S.revokeApiKey> = async ({ ctx }, req, reply) => {
  await revokeApiKey(ctx, req.params.id)
  return reply.code(204).send(null)
}

// /api/v1/security: the dashboard token and API keys (SPEC 4.4, 5; CONTRACT 3b, 6).
// Admin tier; management actions emit no events (SPEC 6.1.5).
import Type from 'typebox'
import { createApiKey, listApiKeys, revokeApiKey } from '../../auth/api-keys.js'
import { ErrorResponses, IdParams, NoContent } from '../schemas/common.js'
import type { App } from '../types.js'
import type { RouteDeps } from './deps.js'

const Scope = Type.Union([Type.Literal('read'), Type.Literal('read_write')])

const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  scope: Scope,
  created_at: Type.String(),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
})

export const CreateApiKeyBody = Type.Object(
  { name: Type.String({ description: '1–200 characters.' }), scope: Scope },
  { additionalProperties: false },
)

export const CreatedApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  scope: Scope,
  key: Type.String({ description: 'The full key; shown this once only.' }),
})

export const ApiKeyList = Type.Object({ api_keys: Type.Array(ApiKey) })

export function register(app: App, { ctx, auth }: RouteDeps): void {
  app.post(
    '/api/v1/security/token',
    {
      config: { tier: 'admin', bootstrap: true },
      schema: {
        tags: ['security'],
        summary: 'Generate (or paste) the stored dashboard token',
        description:
          'Without a token configured anywhere, a loopback client may call this without authentication to create the first one.',
        body: Type.Optional(
          Type.Object(
            {
              token: Type.Optional(
                Type.String({ description: 'A token to use, at least 16 characters.' }),
              ),
            },
            { additionalProperties: false },
          ),
        ),
        response: {
          201: Type.Object({ token: Type.String(), source: Type.Literal('stored') }),
          ...ErrorResponses,
        },
      },
      // The body is optional, but the validator would reject a missing one as
      // "must be object": a bare POST (no body) means "generate one".
      preValidation: async (req) => {
        if (req.body === undefined) req.body = {}
      },
    },
    async (req, reply) => reply.code(201).send(await auth.dashboard.set(ctx, req.body?.token)),
  )

  app.delete(
    '/api/v1/security/token',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['security'],
        summary: 'Revoke the stored dashboard token',
        response: { 204: NoContent, ...ErrorResponses },
      },
    },
    async (_req, reply) => {
      await auth.dashboard.revoke(ctx)
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/api/v1/security/api-keys',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['security'],
        summary: 'Mint an API key',
        body: CreateApiKeyBody,
        response: { 201: CreatedApiKey, ...ErrorResponses },
      },
    },
    async (req, reply) => reply.code(201).send(await createApiKey(ctx, req.body)),
  )

  app.get(
    '/api/v1/security/api-keys',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['security'],
        summary: 'List API keys (never the keys themselves)',
        response: { 200: ApiKeyList, ...ErrorResponses },
      },
    },
    () => listApiKeys(ctx),
  )

  app.delete(
    '/api/v1/security/api-keys/:id',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['security'],
        summary: 'Revoke an API key',
        params: IdParams,
        response: { 204: NoContent, ...ErrorResponses },
      },
    },
    async (req, reply) => {
      await revokeApiKey(ctx, req.params.id)
      return reply.code(204).send(null)
    },
  )
}

// The dashboard token and API keys (SPEC 4.4, 5; CONTRACT 3b, 6): the API key
// shapes, the request bodies and each route's schema.
import Type, { type Static } from 'typebox'
import { ErrorResponses, IdParams, NoContent } from './common.js'

export const Scope = Type.Union([Type.Literal('read'), Type.Literal('read_write')])
export type ApiKeyScope = Static<typeof Scope>

export const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  scope: Scope,
  created_at: Type.String(),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
})
export type ApiKeyJson = Static<typeof ApiKey>

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
export type CreatedApiKey = Static<typeof CreatedApiKey>

export const ApiKeyList = Type.Object({ api_keys: Type.Array(ApiKey) })

// Required, and JSON (the only body type the service parses): a cross-site page
// can send a JSON body only after a CORS preflight, which the service never
// grants (docs/security.md). `{}` generates a token.
export const TokenBody = Type.Object(
  {
    token: Type.Optional(Type.String({ description: 'A token to use, at least 16 characters.' })),
  },
  { additionalProperties: false, description: '`{}` generates a token; `{token}` pastes one.' },
)

export const StoredToken = Type.Object({
  token: Type.String({ description: 'The new dashboard token; shown only in this answer.' }),
  source: Type.Literal('stored'),
  replaced: Type.Boolean({
    description:
      'True when a stored token existed before this call: it stopped working at once, so every client that used it needs the new one.',
  }),
  notice: Type.Optional(
    Type.String({ description: 'A sentence for a person, present when `replaced` is true.' }),
  ),
})
export type StoredToken = Static<typeof StoredToken>

const tags = ['security']

export const SecurityRoutes = {
  setToken: {
    tags,
    summary: 'Generate (or paste) the stored dashboard token',
    description:
      'Without a token configured anywhere, a loopback client may call this without authentication to create the first one. ' +
      'With a stored token, this replaces it: the previous token stops working at once, and the answer says so (`replaced`, `notice`).',
    body: TokenBody,
    response: { 201: StoredToken, ...ErrorResponses },
  },
  revokeToken: {
    tags,
    summary: 'Revoke the stored dashboard token',
    response: { 204: NoContent, ...ErrorResponses },
  },
  createApiKey: {
    tags,
    summary: 'Mint an API key',
    body: CreateApiKeyBody,
    response: { 201: CreatedApiKey, ...ErrorResponses },
  },
  listApiKeys: {
    tags,
    summary: 'List API keys (never the keys themselves)',
    response: { 200: ApiKeyList, ...ErrorResponses },
  },
  revokeApiKey: {
    tags,
    summary: 'Revoke an API key',
    params: IdParams,
    response: { 204: NoContent, ...ErrorResponses },
  },
}

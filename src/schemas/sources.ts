// Sources (SPEC 1.3, 2.9, 4.2-4.4; CONTRACT 6 "Source entry"): the source list,
// a sync of one source, source credentials and the drive OAuth flow.
import Type, { type Static } from 'typebox'
import { ErrorResponses, Id } from './common.js'
import { RunAccepted, SyncRun } from './sync.js'

export const SourceType = Type.String({ minLength: 1, maxLength: 64, description: 'e.g. csv' })

export const SourceEntry = Type.Object({
  type: Type.String(),
  title: Type.String(),
  active: Type.Boolean(),
  connected: Type.Boolean(),
  credential: Type.Object({
    kind: Type.Union([
      Type.Literal('none'),
      Type.Literal('token'),
      Type.Literal('multi'),
      Type.Literal('oauth'),
    ]),
    entries: Type.Optional(
      Type.Array(
        Type.Object({ id: Type.String(), label: Type.String(), from_config: Type.Boolean() }),
      ),
    ),
  }),
  config: Type.Array(Type.Object({ key: Type.String(), value: Type.Unknown() })),
  last_run: Type.Union([SyncRun, Type.Null()]),
  errors: Type.Array(Type.String()),
})
export type SourceEntry = Static<typeof SourceEntry>

export const SourceList = Type.Object({
  enabled: Type.Array(Type.String(), {
    description: 'Types of the sources that are configured, so started on sync.',
  }),
  restart_required: Type.Boolean(),
  sources: Type.Array(SourceEntry),
})
export type SourceList = Static<typeof SourceList>

export const CredentialBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 4096 }) },
  { additionalProperties: false },
)

export const SourceParams = Type.Object({ type: SourceType })

export const OAuthCallbackQuery = Type.Object({
  state: Type.Optional(Type.String({ maxLength: 512 })),
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  error: Type.Optional(Type.String({ maxLength: 512 })),
})

const tags = ['sources']

export const SourceRoutes = {
  list: {
    tags,
    summary: 'Every source, active and inactive',
    response: { 200: SourceList, ...ErrorResponses },
  },
  sync: {
    tags,
    summary: 'Sync one source (asynchronous)',
    description: '404 for an unknown source, 409 for one that is not configured.',
    params: SourceParams,
    response: { 202: RunAccepted, ...ErrorResponses },
  },
  setCredential: {
    tags,
    summary: "Set (or add) a source's credential",
    description:
      'For csv the token is a drive refresh token; for aggregator a SimpleFIN setup token or access URL. Applies live.',
    params: SourceParams,
    body: CredentialBody,
    response: { 200: SourceEntry, ...ErrorResponses },
  },
  // SPEC 9: the back-compat alias of PUT /sources/aggregator/credential.
  setAggregatorCredential: {
    tags,
    summary: 'Set the aggregator credential (alias of PUT /sources/aggregator/credential)',
    description: 'The token is a SimpleFIN setup token (claimed at once) or an access URL.',
    body: CredentialBody,
    response: { 200: SourceEntry, ...ErrorResponses },
  },
  deleteCredential: {
    tags,
    summary: "Remove one of a source's credentials",
    params: Type.Object({ type: SourceType, id: Id }),
    response: { 200: SourceEntry, ...ErrorResponses },
  },
  oauthStart: {
    tags,
    summary: 'Start the drive OAuth consent flow',
    description: 'Returns the consent URL; its state is single use and valid 10 minutes.',
    response: { 200: Type.Object({ url: Type.String() }), ...ErrorResponses },
  },
  oauthCallback: {
    tags,
    summary: 'Drive OAuth redirect target',
    querystring: OAuthCallbackQuery,
    response: { 302: Type.Null({ description: 'Redirect to the dashboard' }) },
  },
}

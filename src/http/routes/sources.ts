// /api/v1/sources (SPEC 1.3, 2.9, 4.2-4.4; CONTRACT 6 "Source entry"): the source
// list, a sync of one source, source credentials and the drive OAuth flow.
import Type from 'typebox'
import { finishDriveConsent, startDriveConsent } from '../../sources/csv/drive.js'
import { csvSourceOf } from '../../sources/csv/index.js'
import {
  deleteSourceCredential,
  listSources,
  setSourceCredential,
} from '../../sync/source-entries.js'
import { ErrorResponses, Id } from '../schemas/common.js'
import type { App } from '../types.js'
import type { RouteDeps } from './deps.js'
import { RunAccepted, SyncRun } from './sync.js'

export const SourceType = Type.String({ minLength: 1, maxLength: 64, description: 'e.g. csv' })

const SourceEntry = Type.Object({
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

const CredentialBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 4096 }) },
  { additionalProperties: false },
)

export function register(app: App, { ctx }: RouteDeps): void {
  const { engine } = ctx.sync

  app.get(
    '/api/v1/sources',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['sources'],
        summary: 'Every source, active and inactive',
        response: {
          200: Type.Object({
            enabled: Type.Array(Type.String()),
            restart_required: Type.Boolean(),
            sources: Type.Array(SourceEntry),
          }),
          ...ErrorResponses,
        },
      },
    },
    () => listSources(ctx, engine),
  )

  app.post(
    '/api/v1/sources/:type/sync',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['sources'],
        summary: 'Sync one source (asynchronous)',
        description: '404 for an unknown source, 409 for one that is not configured.',
        params: Type.Object({ type: SourceType }),
        response: { 202: RunAccepted, ...ErrorResponses },
      },
    },
    async (req, reply) => {
      const started = await engine.trigger({ trigger: 'manual', source: req.params.type })
      return reply.code(202).send({ run_id: started.run_id })
    },
  )

  app.put(
    '/api/v1/sources/:type/credential',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['sources'],
        summary: "Set (or add) a source's credential",
        description:
          'For csv the token is a drive refresh token; for aggregator a SimpleFIN setup token or access URL. Applies live.',
        params: Type.Object({ type: SourceType }),
        body: CredentialBody,
        response: { 200: SourceEntry, ...ErrorResponses },
      },
    },
    (req) => setSourceCredential(ctx, engine, req.params.type, req.body),
  )

  // SPEC 9: the back-compat alias of PUT /sources/aggregator/credential; same
  // handler, tier and schema.
  app.put(
    '/api/v1/aggregator/credential',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['sources'],
        summary: 'Set the aggregator credential (alias of PUT /sources/aggregator/credential)',
        description: 'The token is a SimpleFIN setup token (claimed at once) or an access URL.',
        body: CredentialBody,
        response: { 200: SourceEntry, ...ErrorResponses },
      },
    },
    (req) => setSourceCredential(ctx, engine, 'aggregator', req.body),
  )

  app.delete(
    '/api/v1/sources/:type/credentials/:id',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['sources'],
        summary: "Remove one of a source's credentials",
        params: Type.Object({ type: SourceType, id: Id }),
        response: { 200: SourceEntry, ...ErrorResponses },
      },
    },
    (req) => deleteSourceCredential(ctx, engine, req.params.type, req.params.id),
  )

  app.get(
    '/api/v1/sources/csv/oauth/start',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['sources'],
        summary: 'Start the drive OAuth consent flow',
        description: 'Returns the consent URL; its state is single use and valid 10 minutes.',
        response: { 200: Type.Object({ url: Type.String() }), ...ErrorResponses },
      },
    },
    async () => ({ url: await startDriveConsent(engine.sourceContext) }),
  )

  app.get(
    '/api/v1/sources/csv/oauth/callback',
    {
      // Open: the browser arrives from the consent screen without our token; the
      // single-use state it carries is what authorises it (CONTRACT 6).
      config: { tier: 'open' },
      schema: {
        tags: ['sources'],
        summary: 'Drive OAuth redirect target',
        querystring: Type.Object({
          state: Type.Optional(Type.String({ maxLength: 512 })),
          code: Type.Optional(Type.String({ maxLength: 4096 })),
          error: Type.Optional(Type.String({ maxLength: 512 })),
        }),
        response: { 302: Type.Null({ description: 'Redirect to the dashboard' }) },
      },
    },
    async (req, reply) => {
      const { driveAccess } = csvSourceOf(engine.sources)
      const failure = await finishDriveConsent(engine.sourceContext, driveAccess, req.query)
      const target = new URL(`${ctx.config.server.base_url.replace(/\/+$/, '')}/sources`)
      target.searchParams.set('source', 'csv')
      target.searchParams.set('oauth', failure === null ? 'connected' : 'error')
      if (failure !== null) target.searchParams.set('reason', failure)
      return reply.code(302).header('location', target.toString()).send(null)
    },
  )
}

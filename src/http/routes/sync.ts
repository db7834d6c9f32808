// /api/v1/sync (SPEC 4.2, 4.3; CONTRACT 6 "Sync run"): trigger a run of every
// configured source, read the latest run and the recent ones.
import Type from 'typebox'
import { resolvePage } from '../../page.js'
import { latestRun, listRunsJson } from '../../sync/runs.js'
import { ErrorResponses, MAX_PARAM_INTEGER } from '../schemas/common.js'
import type { App } from '../types.js'
import type { RouteDeps } from './deps.js'

const Counts = Type.Object({
  inserted: Type.Integer(),
  updated: Type.Integer(),
  unchanged: Type.Integer(),
  skipped: Type.Integer(),
})

export const SyncRun = Type.Object({
  id: Type.String(),
  source: Type.Union([Type.String(), Type.Null()]),
  trigger: Type.Union([Type.Literal('manual'), Type.Literal('schedule'), Type.Literal('cli')]),
  started_at: Type.String(),
  completed_at: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([
    Type.Literal('running'),
    Type.Literal('success'),
    Type.Literal('partial'),
    Type.Literal('error'),
  ]),
  error: Type.Union([Type.String(), Type.Null()]),
  counts: Type.Record(Type.String(), Counts),
  warnings: Type.Array(Type.String()),
})

export const RunAccepted = Type.Object({ run_id: Type.String() })

export function register(app: App, { ctx }: RouteDeps): void {
  const { engine } = ctx.sync

  app.post(
    '/api/v1/sync',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['sync'],
        summary: 'Sync every configured source (asynchronous)',
        description: 'Answers 202 at once; a trigger during a run joins that run.',
        response: { 202: RunAccepted, ...ErrorResponses },
      },
    },
    async (_req, reply) => {
      const started = await engine.trigger({ trigger: 'manual', source: null })
      return reply.code(202).send({ run_id: started.run_id })
    },
  )

  app.get(
    '/api/v1/sync',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['sync'],
        summary: 'The latest sync run',
        response: {
          200: Type.Object({ latest: Type.Union([SyncRun, Type.Null()]) }),
          ...ErrorResponses,
        },
      },
    },
    async () => ({ latest: await latestRun(ctx.db.kysely) }),
  )

  app.get(
    '/api/v1/sync/history',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['sync'],
        summary: 'Recent sync runs, newest first',
        querystring: Type.Object({
          limit: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: MAX_PARAM_INTEGER,
              description: 'Default 100, clamped to 1000.',
            }),
          ),
        }),
        response: { 200: Type.Object({ runs: Type.Array(SyncRun) }), ...ErrorResponses },
      },
    },
    async (req) => ({ runs: await listRunsJson(ctx.db.kysely, resolvePage(req.query).limit) }),
  )
}

// Handlers of /api/v1/sync (SPEC 4.2, 4.3; CONTRACT 6 "Sync run"): trigger a run
// of every configured source, read the latest run and the recent ones.
import { resolvePage } from '../../page.js'
import { SyncRoutes as S } from '../../schemas/sync.js'
import { latestRun, listRunsJson } from '../../sync/runs.js'
import type { Handler } from '../route.js'

export const trigger: Handler<typeof S.trigger> = async ({ sync }, _req, reply) =>
  reply.code(202).send(await sync.startRun(null))

export const latest: Handler<typeof S.latest> = async ({ ctx }) => ({
  latest: await latestRun(ctx.db.kysely),
})

export const history: Handler<typeof S.history> = async ({ ctx }, req) => ({
  runs: await listRunsJson(ctx.db.kysely, resolvePage(req.query).limit),
})

// Handlers of /api/v1/sources (SPEC 1.3, 2.9, 4.2-4.4; CONTRACT 6 "Source entry"):
// the source list, a sync of one source, source credentials and the drive OAuth flow.
import { SourceRoutes as S } from '../../schemas/sources.js'
import { finishDriveConsent, startDriveConsent } from '../../sources/csv/drive.js'
import { csvSourceOf } from '../../sources/csv/index.js'
import {
  deleteSourceCredential,
  listSources,
  setSourceCredential,
} from '../../sync/source-entries.js'
import type { Handler } from '../route.js'

export const list: Handler<typeof S.list> = ({ ctx, sync }) => listSources(ctx, sync.engine)

export const syncOne: Handler<typeof S.sync> = async ({ sync }, req, reply) =>
  reply.code(202).send(await sync.startRun(req.params.type))

export const setCredential: Handler<typeof S.setCredential> = ({ ctx, sync }, req) =>
  setSourceCredential(ctx, sync.engine, req.params.type, req.body)

export const setAggregatorCredential: Handler<typeof S.setAggregatorCredential> = (
  { ctx, sync },
  req,
) => setSourceCredential(ctx, sync.engine, 'aggregator', req.body)

export const deleteCredential: Handler<typeof S.deleteCredential> = ({ ctx, sync }, req) =>
  deleteSourceCredential(ctx, sync.engine, req.params.type, req.params.id)

export const oauthStart: Handler<typeof S.oauthStart> = async ({ sync }) => ({
  url: await startDriveConsent(sync.engine.sourceContext),
})

export const oauthCallback: Handler<typeof S.oauthCallback> = async ({ ctx, sync }, req, reply) => {
  const { engine } = sync
  const { driveAccess } = csvSourceOf(engine.sources)
  const failure = await finishDriveConsent(engine.sourceContext, driveAccess, req.query)
  const target = new URL(`${ctx.config.server.base_url.replace(/\/+$/, '')}/sources`)
  target.searchParams.set('source', 'csv')
  target.searchParams.set('oauth', failure === null ? 'connected' : 'error')
  if (failure !== null) target.searchParams.set('reason', failure)
  return reply.code(302).header('location', target.toString()).send(null)
}

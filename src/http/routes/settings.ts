// Handlers of /api/v1/settings and /api/v1/system/restart (CONTRACT 10, SPEC 4.4).
// Settings changes are management actions: they emit no events (SPEC 6.1.5).
import { Unavailable } from '../../errors.js'
import { SettingRoutes as S } from '../../schemas/settings.js'
import type { Handler } from '../route.js'

export const list: Handler<typeof S.list> = ({ settings }) => settings.list()

export const set: Handler<typeof S.set> = ({ settings }, req) =>
  settings.set(req.params.key, req.body.value)

export const reset: Handler<typeof S.reset> = ({ settings }, req) => settings.reset(req.params.key)

export const restart: Handler<typeof S.restart> = async (
  { restart: requestRestart },
  _req,
  reply,
) => {
  if (!requestRestart) {
    throw new Unavailable('this service cannot restart itself: it was not started by coffer serve')
  }
  // The drain begins once this answer is out (or its client gone), so the client gets it.
  reply.raw.once('close', requestRestart)
  return reply.code(202).send({ restarting: true as const })
}

// Handlers of /api/v1/update (CONTRACT 10): the status (read tier) and apply (admin).
import { UpdateRoutes as S } from '../../schemas/update.js'
import type { Handler } from '../route.js'

export const status: Handler<typeof S.status> = async ({ update }) => update.status()

export const apply: Handler<typeof S.apply> = async ({ update, restart }, _req, reply) => {
  const { result, journal } = await update.apply(restart !== null)
  // As POST /system/restart: the restart begins once this answer is out (or its client gone).
  if (journal && restart) reply.raw.once('close', () => restart({ journal }))
  return result
}

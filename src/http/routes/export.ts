// GET /api/v1/export: one call to the export service, its text streamed out.
import { Readable } from 'node:stream'
import { exportTransactions } from '../../export/service.js'
import type { ExportRoutes as S } from '../../schemas/export.js'
import type { Handler } from '../route.js'

export const exportTransactionsRoute: Handler<typeof S.export> = async ({ ctx }, req, reply) => {
  const out = exportTransactions(
    {
      db: ctx.db.kysely,
      closing: ctx.signals.closing,
      today: ctx.clock.now().toISOString().slice(0, 10),
    },
    req.query,
  )
  return (
    reply
      .type(out.contentType)
      .header('content-disposition', `attachment; filename="${out.filename}"`)
      // A stream is sent as it comes (Fastify skips the 200 schema's serializer for it).
      .send(Readable.from(out.chunks) as unknown as string)
  )
}

// GET /api/v1/export (docs/export.md): the query and the streamed answer.
import Type from 'typebox'
import { ErrorResponses } from './common.js'

const tags = ['export']

export const ExportQuery = Type.Object({
  format: Type.Union(
    [Type.Literal('csv'), Type.Literal('jsonl'), Type.Literal('ledger'), Type.Literal('beancount')],
    { description: 'csv, jsonl, ledger (an hledger journal) or beancount' },
  ),
  q: Type.Optional(
    Type.String({ description: 'Search query (docs/search.md); empty exports every transaction.' }),
  ),
  since: Type.Optional(
    Type.String({ description: 'Inclusive: YYYY-MM-DD, RFC 3339 or unix seconds.' }),
  ),
  until: Type.Optional(
    Type.String({
      description: 'Inclusive: YYYY-MM-DD (the whole day), RFC 3339 or unix seconds.',
    }),
  ),
})

export const ExportRoutes = {
  export: {
    tags,
    summary:
      'Export transactions (oldest first) as CSV, JSON lines, an hledger journal or beancount',
    description:
      'Streamed; Content-Disposition names the file. Labels and extensions travel with each transaction (docs/export.md).',
    querystring: ExportQuery,
    response: {
      200: Type.String({
        description: 'The export (text/csv, application/x-ndjson or text/plain)',
      }),
      ...ErrorResponses,
    },
  },
}

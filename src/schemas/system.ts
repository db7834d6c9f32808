// Open routes (SPEC 4.1) and the effective configuration (SPEC 4.2): each route's schema.
import Type from 'typebox'
import { ErrorResponses } from './common.js'

const tags = ['system']

export const SystemRoutes = {
  healthz: { tags, summary: 'Liveness', response: { 200: Type.String() } },
  readyz: {
    tags,
    summary: 'Readiness: pings the database',
    response: {
      200: Type.Object({ status: Type.Literal('ready') }),
      503: Type.Object({ status: Type.Literal('unavailable') }),
    },
  },
  metrics: { tags, summary: 'Prometheus metrics', response: { 200: Type.String() } },
  auth: {
    tags,
    summary: 'Whether a token is required and whether this request carries a valid one',
    description:
      'SPEC 2.9 `{auth_required, authenticated}`, plus what the credential reaches (`access`), where the dashboard token comes from (`token_source`), and whether this client may create the first token without one (`can_create_token`: no token anywhere and a loopback client, CONTRACT 3b).',
    response: {
      200: Type.Object({
        auth_required: Type.Boolean(),
        authenticated: Type.Boolean(),
        access: Type.Union(
          [
            Type.Literal('admin'),
            Type.Literal('read_write'),
            Type.Literal('read'),
            Type.Literal('none'),
          ],
          {
            description:
              'The highest tier this request reaches: admin (the dashboard token), read_write (a read_write key, or anyone while no token is configured), read (a read key), none.',
          },
        ),
        token_source: Type.Union([Type.Literal('config'), Type.Literal('stored'), Type.Null()], {
          description:
            'config (dashboard.token or its env), stored (created or pasted), null (none)',
        }),
        can_create_token: Type.Boolean(),
      }),
    },
  },
  config: {
    tags,
    summary: 'Effective configuration, secrets redacted',
    response: { 200: Type.Object({}, { additionalProperties: true }), ...ErrorResponses },
  },
  /** The document itself is left out of the document. */
  openapi: { hide: true },
}

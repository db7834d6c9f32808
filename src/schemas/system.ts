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
    response: {
      200: Type.Object({ auth_required: Type.Boolean(), authenticated: Type.Boolean() }),
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

// Sync runs (SPEC 4.2, 4.3; CONTRACT 6 "Sync run"): the run record, the answer
// of a trigger and each route's schema.
import Type, { type Static } from 'typebox'
import { ErrorResponses, MAX_PARAM_INTEGER } from './common.js'

export const SourceCounts = Type.Object({
  inserted: Type.Integer(),
  updated: Type.Integer(),
  unchanged: Type.Integer(),
  skipped: Type.Integer(),
})
export type SourceCounts = Static<typeof SourceCounts>

export const SyncTrigger = Type.Union([
  Type.Literal('manual'),
  Type.Literal('schedule'),
  Type.Literal('cli'),
])
export type SyncTrigger = Static<typeof SyncTrigger>

export const SyncStatus = Type.Union([
  Type.Literal('running'),
  Type.Literal('success'),
  Type.Literal('partial'),
  Type.Literal('error'),
])
export type SyncStatus = Static<typeof SyncStatus>

export const SyncRun = Type.Object({
  id: Type.String(),
  source: Type.Union([Type.String(), Type.Null()]),
  trigger: SyncTrigger,
  started_at: Type.String(),
  completed_at: Type.Union([Type.String(), Type.Null()]),
  status: SyncStatus,
  error: Type.Union([Type.String(), Type.Null()]),
  counts: Type.Record(Type.String(), SourceCounts),
  warnings: Type.Array(Type.String()),
})
export type SyncRunJson = Static<typeof SyncRun>

/** What a trigger answers at once (REST 202, the MCP sync tools). */
export const RunAccepted = Type.Object({ run_id: Type.String() })
export type RunAccepted = Static<typeof RunAccepted>

export const SyncHistoryQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_PARAM_INTEGER,
      description: 'Default 100, clamped to 1000.',
    }),
  ),
})

const tags = ['sync']

export const SyncRoutes = {
  trigger: {
    tags,
    summary: 'Sync every configured source (asynchronous)',
    description: 'Answers 202 at once; a trigger during a run joins that run.',
    response: { 202: RunAccepted, ...ErrorResponses },
  },
  latest: {
    tags,
    summary: 'The latest sync run',
    response: {
      200: Type.Object({ latest: Type.Union([SyncRun, Type.Null()]) }),
      ...ErrorResponses,
    },
  },
  history: {
    tags,
    summary: 'Recent sync runs, newest first',
    querystring: SyncHistoryQuery,
    response: { 200: Type.Object({ runs: Type.Array(SyncRun) }), ...ErrorResponses },
  },
}

// Self-update (CONTRACT 10, SPEC 4.3–4.4): the status and the apply route.
import Type from 'typebox'
import { ErrorResponses, Problem } from './common.js'

const tags = ['update']
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()])

export const UpdateStatus = Type.Union([
  Type.Object({ enabled: Type.Literal(false) }, { description: 'update.check is off' }),
  Type.Object({
    current: Type.String({ description: 'The running version' }),
    latest: Nullable(
      Type.String({ description: "The feed's version; null before the first check" }),
    ),
    update_available: Type.Boolean(),
    notes_url: Nullable(Type.String()),
    checked_at: Nullable(Type.String({ description: 'When the feed was last read (UTC)' })),
    can_apply: Type.Boolean({
      description: 'update.allow_apply is on and the feed has an asset for this platform',
    }),
    last_error: Nullable(Type.String({ description: 'Why the last check failed' })),
  }),
])

export const UpdateRoutes = {
  status: {
    tags,
    summary: 'Self-update status (the last feed check; reading never fetches)',
    response: { 200: UpdateStatus, ...ErrorResponses },
  },
  apply: {
    tags,
    summary: 'Install the latest release in place and restart into it',
    description:
      "Reads the feed, downloads this platform's asset, checks its size and SHA-256, unpacks it beside the install, swaps it in and restarts; the old version comes back if the new one is not ready within 60 s. 403 when update.allow_apply is off, 422 on a size or checksum mismatch, 502 when the feed or the download fails: nothing is swapped in each case. `updated: false` when the feed has no newer version.",
    response: {
      200: Type.Object({
        updated: Type.Boolean(),
        version: Type.String(),
        restarting: Type.Boolean(),
      }),
      ...ErrorResponses,
      422: Problem,
      502: Problem,
    },
  },
}

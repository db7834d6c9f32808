import type { Auth } from '../../auth/index.js'
import type { ServiceContext } from '../../context.js'
import type { SseStreams } from '../sse.js'

/** What route files receive: the service context, the auth state, open SSE streams. */
export interface RouteDeps {
  ctx: ServiceContext
  auth: Auth
  sse: SseStreams
}

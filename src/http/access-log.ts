// One log line per answered request (log.access, on by default): method, path,
// route pattern, status, duration, client address, and the request id that the
// request's other lines carry (reqId). The query string keeps its parameter
// names only: values can be secrets (the OAuth callback's code and state) and
// are never logged. Headers, Authorization included, are never logged.
import type { FastifyReply, FastifyRequest } from 'fastify'

/** Longest path written to the log; the rest is cut (URLs may be 16 KiB). */
export const LOGGED_PATH_MAX_CHARS = 512

/** `/a/b?x=1&token=s` → `/a/b?x=…&token=…`: names kept, values dropped. */
export function pathForLog(url: string): string {
  const mark = url.indexOf('?')
  const path = mark === -1 ? url : url.slice(0, mark)
  let shown =
    path.length > LOGGED_PATH_MAX_CHARS ? `${path.slice(0, LOGGED_PATH_MAX_CHARS)}…` : path
  if (mark !== -1) {
    const names = url
      .slice(mark + 1)
      .split('&')
      .filter((part) => part !== '')
      .map((part) => {
        const eq = part.indexOf('=')
        const name = eq === -1 ? part : part.slice(0, eq)
        let decoded = name
        try {
          decoded = decodeURIComponent(name.replace(/\+/g, ' '))
        } catch {
          // a garbled name is shown as sent
        }
        const safe = decoded.length > 64 ? `${decoded.slice(0, 64)}…` : decoded
        return eq === -1 ? safe : `${safe}=…`
      })
    shown += `?${names.join('&')}`
    if (shown.length > LOGGED_PATH_MAX_CHARS * 2)
      shown = `${shown.slice(0, LOGGED_PATH_MAX_CHARS * 2)}…`
  }
  return shown
}

/** The fields every request-related line carries: what a person needs to find it. */
export function requestFields(request: FastifyRequest): Record<string, string> {
  return {
    method: request.method,
    path: pathForLog(request.url),
    route: request.routeOptions.url ?? 'unmatched',
  }
}

/** The onResponse hook of server.ts (when log.access). */
export async function accessLog(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  request.log.info(
    {
      ...requestFields(request),
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      ip: request.ip,
    },
    'request',
  )
}

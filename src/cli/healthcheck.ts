// `coffer healthcheck` (docs/operations.md "Health check"): asks the running
// service at server.addr for GET /readyz. Exit 0 when it answers 200; otherwise
// exit 1 with a one-line reason on stderr. Meant for container HEALTHCHECKs and
// monitoring, so it is quick and bounded.
import type { LoadResult } from '../config/index.js'
import { splitHostPort } from '../config/index.js'

/** How long the whole check may take. */
export const HEALTHCHECK_TIMEOUT_MS = 3_000

/** The URL of /readyz for a listen address: a wildcard host is reached on loopback. */
export function readyzUrl(addr: string): string {
  const { host, port } = splitHostPort(addr)
  if (port === 0) throw new Error(`server.addr ${addr} has port 0: there is no fixed port to check`)
  const reach = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host
  return `http://${reach.includes(':') ? `[${reach}]` : reach}:${port}/readyz`
}

export async function runHealthcheckCommand(loaded: LoadResult): Promise<number> {
  const fail = (reason: string) => {
    console.error(`coffer healthcheck: ${reason}`)
    return 1
  }
  let url: string
  try {
    url = readyzUrl(loaded.config.server.addr)
  } catch (error) {
    return fail((error as Error).message)
  }
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(HEALTHCHECK_TIMEOUT_MS) })
    await res.body?.cancel()
    if (res.status === 200) {
      console.log(`ok: ${url} answered 200`)
      return 0
    }
    return fail(`${url} answered ${res.status}`)
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause
    if ((error as Error).name === 'TimeoutError')
      return fail(`${url} did not answer within ${HEALTHCHECK_TIMEOUT_MS} ms`)
    return fail(`${url} unreachable (${cause?.code ?? (error as Error).message})`)
  }
}

// One delivery attempt: a signed JSON POST of the envelope, cut at the timeout.
// Any answer other than a 2xx is a failure whose message is `HTTP <status>`; a
// network error or a timeout fails with its own message (CONTRACT 6), a TLS
// failure with a short reason rather than OpenSSL's dump.
import type { Clock } from '../clock.js'
import { deliveryHeaders } from './signing.js'

export interface AttemptTarget {
  url: string
  secret: string
}

export interface AttemptResult {
  ok: boolean
  /** The HTTP status, or null when no answer came (network error, timeout). */
  status: number | null
  /** null on success. */
  error: string | null
  duration_ms: number
}

/** Plain words for OpenSSL failures a wrong webhook URL commonly meets, by code. */
const TLS_FAILURES = new Map([
  ['ERR_SSL_WRONG_VERSION_NUMBER', 'the server does not speak TLS on that port'],
])

/** The cause fetch gives; OpenSSL errors add `library` and `reason`. */
interface SocketError {
  message?: unknown
  code?: unknown
  library?: unknown
  reason?: unknown
}

/** Why fetch failed, without the URL (it may carry a token in its path or query). */
function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'TimeoutError')
    return `timed out after ${timeoutMs} ms`
  if (error instanceof Error && error.name === 'AbortError')
    return 'aborted: the service is stopping'
  // undici reports "fetch failed" with the socket error as its cause.
  const cause = error instanceof Error ? (error.cause as SocketError | undefined) : undefined
  // An OpenSSL error's message is a raw dump ("80BC…:error:0A00010B:SSL routines:…");
  // its code and reason are the readable part.
  if (cause && typeof cause.library === 'string' && typeof cause.code === 'string') {
    const why = TLS_FAILURES.get(cause.code) ?? `${String(cause.reason)} (${cause.code})`
    return `TLS handshake failed: ${why}`
  }
  if (cause && typeof cause.message === 'string' && cause.message) return cause.message
  return error instanceof Error && error.message ? error.message : 'request failed'
}

export async function attemptDelivery(
  target: AttemptTarget,
  event: { type: string; event_id: string },
  body: string,
  options: { clock: Clock; timeoutMs: number; signal?: AbortSignal },
): Promise<AttemptResult> {
  const timestamp = Math.floor(options.clock.now().getTime() / 1000)
  const started = performance.now()
  const timeout = AbortSignal.timeout(options.timeoutMs)
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout
  const elapsed = () => Math.round(performance.now() - started)
  try {
    const res = await fetch(target.url, {
      method: 'POST',
      headers: deliveryHeaders(event, target.secret, timestamp, body),
      body,
      signal,
      // A redirect is not a 2xx: the receiver must be registered at its real URL.
      redirect: 'manual',
    })
    // The answer's body is not needed; release the connection for reuse.
    await res.body?.cancel().catch(() => undefined)
    const ok = res.status >= 200 && res.status < 300
    return {
      ok,
      status: res.status,
      error: ok ? null : `HTTP ${res.status}`,
      duration_ms: elapsed(),
    }
  } catch (error) {
    return {
      ok: false,
      status: null,
      error: describeFailure(timeout.aborted ? timeout.reason : error, options.timeoutMs),
      duration_ms: elapsed(),
    }
  }
}

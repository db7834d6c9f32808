// The two HTTP calls of the SimpleFIN protocol (CONTRACT 4): claiming a setup
// token (one POST, empty body, answers the access URL as plain text) and reading
// accounts in a window. Messages name the HTTP status or the network failure,
// never the URL: its path may carry the token, its user and password the secret.
import { BodyTooLarge, readBoundedText } from '../../response-body.js'
import { throwIfClosing } from '../../signals.js'
import { parseAccessUrl, type BridgeAccess } from './access.js'

/** SimpleFIN bridges may take a while to reach every bank behind them. */
const BRIDGE_TIMEOUT_MS = 120_000
/** An access URL is one line. */
const CLAIM_MAX_BYTES = 64 * 1024
/** A window of every account's rows: megabytes at most; a bound keeps a broken bridge from filling memory. */
export const ACCOUNTS_MAX_BYTES = 256 * 1024 * 1024

/** The request's bound in time, and the service's closing (a shutdown does not wait for the bridge). */
function requestSignal(closing: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(BRIDGE_TIMEOUT_MS)
  return closing ? AbortSignal.any([timeout, closing]) : timeout
}

/** The body as text, within `maxBytes`; a failure says what was being read, not where. */
async function bodyText(what: string, response: Response, maxBytes: number): Promise<string> {
  try {
    return await readBoundedText(response, maxBytes)
  } catch (error) {
    if (error instanceof BodyTooLarge)
      throw new Error(`${what}: the bridge answered ${error.message}`)
    throw unreachable(what, error)
  }
}

/** The bridge refused the credential (HTTP 403): revoked, disabled or already claimed. */
export class BridgeRefused extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BridgeRefused'
  }
}

/** A window of the accounts request; `end` is exclusive (unix seconds both). */
export interface FeedWindow {
  start: number
  end: number
}

function unreachable(what: string, error: unknown): Error {
  // undici hides the reason in `cause` (ECONNREFUSED, ENOTFOUND, ...); its code is safe to show.
  const cause = (error as { cause?: { code?: unknown } }).cause
  const code = typeof cause?.code === 'string' ? cause.code : (error as Error).name
  return new Error(`${what}: the bridge could not be reached (${code})`)
}

/** POSTs to the claim URL once; the access URL it answers, checked. */
export async function claimAccessUrl(claimUrl: URL): Promise<BridgeAccess & { text: string }> {
  let response: Response
  try {
    // Not cut short by a shutdown: a claim the bridge granted and we never read is lost.
    response = await fetch(claimUrl, {
      method: 'POST',
      headers: { 'content-length': '0' },
      signal: requestSignal(undefined),
    })
  } catch (error) {
    throw unreachable('claiming the setup token', error)
  }
  const text = (await bodyText('claiming the setup token', response, CLAIM_MAX_BYTES)).trim()
  if (response.status === 403) {
    throw new BridgeRefused(
      'the bridge refused the setup token (HTTP 403): it was claimed already or is not valid; create a new one',
    )
  }
  if (!response.ok) {
    throw new Error(`claiming the setup token: the bridge answered HTTP ${response.status}`)
  }
  const access = parseAccessUrl(text)
  if (!access) throw new Error('claiming the setup token: the bridge answered no access URL')
  return { ...access, text }
}

/** GET <access URL>/accounts for one window, pending rows included; the parsed JSON. */
export async function fetchAccounts(
  access: BridgeAccess,
  window: FeedWindow,
  closing?: AbortSignal,
): Promise<unknown> {
  const url = new URL(access.endpoint)
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/accounts`
  url.searchParams.set('start-date', String(window.start))
  url.searchParams.set('end-date', String(window.end))
  url.searchParams.set('pending', '1')
  // Protocol 2 bridges answer the richer shape when asked; version 1 bridges ignore it.
  url.searchParams.set('version', '2')
  let response: Response
  try {
    response = await fetch(url, {
      headers: { authorization: access.authorization, accept: 'application/json' },
      signal: requestSignal(closing),
    })
  } catch (error) {
    throwIfClosing(closing)
    throw unreachable('reading accounts', error)
  }
  if (response.status === 403) {
    await response.body?.cancel()
    throw new BridgeRefused(
      'the bridge refused the access URL (HTTP 403): access was revoked or disabled; put a new setup token with PUT /api/v1/sources/aggregator/credential',
    )
  }
  if (!response.ok) {
    await response.body?.cancel()
    throw new Error(`reading accounts: the bridge answered HTTP ${response.status}`)
  }
  const text = await bodyText('reading accounts', response, ACCOUNTS_MAX_BYTES).catch(
    (error: unknown) => {
      throwIfClosing(closing)
      throw error
    },
  )
  try {
    return JSON.parse(text)
  } catch {
    throw new Error('reading accounts: the bridge answered something that is not JSON')
  }
}

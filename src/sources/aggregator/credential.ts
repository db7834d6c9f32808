// What the aggregator keeps in the secret store (CONTRACT 4, DESIGN "Security
// posture"): the access URL (claimed or pasted), and three facts about
// credentials that must outlive a restart and be shared by every process on one
// database: which setup token was claimed (claimed once), which access URL the
// bridge refused (not connected until it changes) and when the bridge was last
// polled (the request budget). Facts name credentials by fingerprint only.
import { Invalid } from '../../errors.js'
import type { SourceContext } from '../source.js'
import { decodeSetupToken, fingerprint, parseAccessUrl, type BridgeAccess } from './access.js'
import { BridgeRefused, claimAccessUrl } from './bridge.js'

const ACCESS_URL = 'aggregator.access_url'
const CLAIMED_SETUP_TOKEN = 'aggregator.claimed_setup_token'
const REFUSED_ACCESS_URL = 'aggregator.refused_access_url'
const LAST_POLL_AT = 'aggregator.last_poll_at'

export interface AccessCredential {
  access: BridgeAccess
  /** Fingerprint of the access URL, to remember a refusal without keeping the URL twice. */
  id: string
  fromConfig: boolean
}

export async function hasStoredAccessUrl(sctx: SourceContext): Promise<boolean> {
  return (await sctx.secrets.get(ACCESS_URL)) !== null
}

/**
 * The access URL in use: the stored one (claimed or pasted) wins over
 * `aggregator.access_url`, as a stored setting wins over the file (CONTRACT 10).
 * Null when there is none; throws when the configured one is not an access URL.
 */
export async function accessCredential(sctx: SourceContext): Promise<AccessCredential | null> {
  const stored = await sctx.secrets.get(ACCESS_URL)
  const configured = sctx.ctx.config.aggregator.access_url
  const text = stored ?? configured
  if (text === null) return null
  const access = parseAccessUrl(text)
  if (!access) {
    throw new Error(
      stored !== null
        ? 'the stored access URL is not usable; put a new setup token'
        : 'aggregator.access_url is not a SimpleFIN access URL (https://user:password@host/path)',
    )
  }
  return { access, id: fingerprint(text), fromConfig: stored === null }
}

/** `aggregator.setup_token` when it has not been claimed yet (it can be claimed once only). */
export async function unclaimedSetupToken(sctx: SourceContext): Promise<string | null> {
  const token = sctx.ctx.config.aggregator.setup_token
  if (token === null) return null
  return (await sctx.secrets.get(CLAIMED_SETUP_TOKEN)) === fingerprint(token) ? null : token
}

/** Claims a setup token (PUT .../credential, or the configured one) and keeps its access URL. */
export async function claimSetupToken(sctx: SourceContext, token: string): Promise<void> {
  const claimUrl = decodeSetupToken(token)
  if (!claimUrl) throw Invalid.field('token', 'is not a SimpleFIN setup token or access URL')
  const claimed = await claimAccessUrl(claimUrl)
  await storeAccessUrl(sctx, claimed.text)
  sctx.ctx.log.info({ source: 'aggregator' }, 'aggregator: setup token claimed')
}

/**
 * Claims `aggregator.setup_token` once. It is marked claimed as soon as the bridge
 * has answered, a refusal included: a token cannot be claimed twice. Returns the
 * refusal, if any; a network failure throws and the next sync tries again.
 */
export async function claimConfiguredSetupToken(
  sctx: SourceContext,
  token: string,
): Promise<BridgeRefused | null> {
  let refusal: BridgeRefused | null = null
  try {
    await claimSetupToken(sctx, token)
  } catch (error) {
    if (error instanceof Invalid) {
      throw new Error('aggregator.setup_token is not a SimpleFIN setup token')
    }
    if (!(error instanceof BridgeRefused)) throw error
    refusal = error
  }
  await sctx.secrets.set(CLAIMED_SETUP_TOKEN, fingerprint(token))
  return refusal
}

export async function storeAccessUrl(sctx: SourceContext, accessUrl: string): Promise<void> {
  await sctx.secrets.set(ACCESS_URL, accessUrl.trim())
  await sctx.secrets.delete(REFUSED_ACCESS_URL)
}

export async function forgetAccessUrl(sctx: SourceContext): Promise<void> {
  await sctx.secrets.delete(ACCESS_URL)
  await sctx.secrets.delete(REFUSED_ACCESS_URL)
}

export async function isRefused(
  sctx: SourceContext,
  credential: AccessCredential,
): Promise<boolean> {
  return (await sctx.secrets.get(REFUSED_ACCESS_URL)) === credential.id
}

/** Remembers (or, with null, forgets) that the bridge answered 403 to an access URL. */
export async function setRefused(
  sctx: SourceContext,
  credential: AccessCredential | null,
): Promise<void> {
  if (credential === null) await sctx.secrets.delete(REFUSED_ACCESS_URL)
  else await sctx.secrets.set(REFUSED_ACCESS_URL, credential.id)
}

/** When the bridge was last asked for accounts (unix milliseconds), by any sync. */
export async function lastPollAt(sctx: SourceContext): Promise<number | null> {
  const text = await sctx.secrets.get(LAST_POLL_AT)
  const at = text === null ? NaN : Date.parse(text)
  return Number.isNaN(at) ? null : at
}

export async function recordPoll(sctx: SourceContext, at: string): Promise<void> {
  await sctx.secrets.set(LAST_POLL_AT, at)
}

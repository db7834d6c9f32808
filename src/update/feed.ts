// The release feed (CONTRACT 10): `update.url` names a JSON document
// `{version, published_at, notes_url, assets: [{platform, url, sha256, size}]}`.
// Read with a bound on time and size, checked against its schema; a feed that
// does not match is an error naming what is wrong, never a half-read release.
import Type, { type Static } from 'typebox'
import { Ajv, type ValidateFunction } from 'ajv'
import semver from 'semver'
import { BodyTooLarge, readBoundedText } from '../response-body.js'

const MAX_FEED_BYTES = 1024 * 1024
export const MAX_ASSET_BYTES = 2 * 1024 * 1024 * 1024
export const FEED_TIMEOUT_MS = 15_000

const Asset = Type.Object({
  platform: Type.String({ minLength: 1 }),
  url: Type.String({ minLength: 1 }),
  sha256: Type.String({ pattern: '^[0-9a-fA-F]{64}$' }),
  // A release is tens of megabytes; a bound keeps a hostile feed from filling the disk.
  size: Type.Integer({ minimum: 1, maximum: MAX_ASSET_BYTES }),
})

const Feed = Type.Object({
  version: Type.String({ minLength: 5, maxLength: 100 }),
  published_at: Type.Union([Type.String(), Type.Null()]),
  notes_url: Type.Union([Type.String(), Type.Null()]),
  assets: Type.Array(Asset),
})

export type ReleaseAsset = Static<typeof Asset>
export type ReleaseFeed = Static<typeof Feed>

/** Compiled at the first feed read, not at every start of the service. */
let checkFeed: ValidateFunction<ReleaseFeed> | undefined

/** `<os>-<arch>` as Node names them: the platform of this process's assets. */
export function currentPlatform(): string {
  return `${process.platform}-${process.arch}`
}

export class FeedError extends Error {
  override name = 'FeedError'
}

/** Reads and checks the feed at `url`. Throws FeedError saying what went wrong. */
export async function fetchFeed(url: string, signal?: AbortSignal): Promise<ReleaseFeed> {
  let response: Response
  const timeout = AbortSignal.timeout(FEED_TIMEOUT_MS)
  try {
    response = await fetch(url, {
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      headers: { accept: 'application/json' },
      redirect: 'follow',
    })
  } catch (error) {
    throw new FeedError(`the release feed could not be read: ${describeFetchError(error)}`)
  }
  if (!response.ok) {
    await response.body?.cancel()
    throw new FeedError(`the release feed answered HTTP ${response.status}`)
  }
  let text: string
  try {
    text = await readBoundedText(response, MAX_FEED_BYTES)
  } catch (error) {
    if (error instanceof BodyTooLarge) throw new FeedError(`the release feed is ${error.message}`)
    throw new FeedError(`the release feed could not be read: ${describeFetchError(error)}`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new FeedError('the release feed is not JSON')
  }
  checkFeed ??= new Ajv({ allErrors: false, strict: false }).compile<ReleaseFeed>(Feed)
  if (!checkFeed(parsed)) {
    const first = checkFeed.errors?.[0]
    const where = first?.instancePath || '/'
    throw new FeedError(`the release feed does not match its shape at ${where}: ${first?.message}`)
  }
  if (!semver.valid(parsed.version))
    throw new FeedError(
      `the release feed's version ${JSON.stringify(parsed.version)} is not a semantic version`,
    )
  // Shown as a link on the dashboard: only a web address is one (a `javascript:` is not).
  if (parsed.notes_url !== null && !isWebUrl(parsed.notes_url)) parsed.notes_url = null
  for (const [index, asset] of parsed.assets.entries()) {
    const problem = assetUrlProblem(asset.url)
    if (problem) throw new FeedError(`the release feed's /assets/${index}/url ${problem}`)
  }
  return parsed
}

/** The asset of this platform, if the feed has one. */
export function assetFor(feed: ReleaseFeed, platform = currentPlatform()): ReleaseAsset | null {
  return feed.assets.find((asset) => asset.platform === platform) ?? null
}

function isWebUrl(address: string): boolean {
  return URL.canParse(address) && /^https?:$/.test(new URL(address).protocol)
}

/** Why an asset's address cannot be downloaded, in words that do not repeat it; null when it can. */
function assetUrlProblem(address: string): string | null {
  let url: URL
  try {
    url = new URL(address)
  } catch {
    return 'is not an absolute URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `is not an http(s) URL (${JSON.stringify(url.protocol)})`
  if (url.username !== '' || url.password !== '')
    return 'carries a user name or password, which a download cannot send'
  return null
}

// user:password@ in any URL a message quotes (undici's "cannot be constructed
// from a URL that includes credentials: <url>" does).
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi

/** A fetch failure in words, without an address's credentials. */
export function describeFetchError(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out'
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error
  if (cause instanceof Error && 'code' in cause) return String(cause.code)
  const text = cause instanceof Error ? cause.message : String(cause)
  return text.replace(URL_CREDENTIALS, '$1[redacted]@')
}

/** Whether `a` is a newer version than `b` (semver precedence). */
export function isNewer(a: string, b: string): boolean {
  return semver.valid(a) !== null && semver.valid(b) !== null && semver.gt(a, b)
}

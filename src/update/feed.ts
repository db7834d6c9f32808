// The release feed (CONTRACT 10): `update.url` names a JSON document
// `{version, published_at, notes_url, assets: [{platform, url, sha256, size}]}`.
// Read with a bound on time and size, checked against its schema; a feed that
// does not match is an error naming what is wrong, never a half-read release.
import Type, { type Static } from 'typebox'
import { Ajv, type ValidateFunction } from 'ajv'
import semver from 'semver'

const MAX_FEED_BYTES = 1024 * 1024
export const FEED_TIMEOUT_MS = 15_000

const Asset = Type.Object({
  platform: Type.String({ minLength: 1 }),
  url: Type.String({ minLength: 1 }),
  sha256: Type.String({ pattern: '^[0-9a-fA-F]{64}$' }),
  size: Type.Integer({ minimum: 1 }),
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
  const declared = Number(response.headers.get('content-length') ?? '0')
  if (declared > MAX_FEED_BYTES) {
    await response.body?.cancel()
    throw new FeedError(`the release feed is larger than ${MAX_FEED_BYTES} bytes`)
  }
  const text = await response.text()
  if (text.length > MAX_FEED_BYTES)
    throw new FeedError(`the release feed is larger than ${MAX_FEED_BYTES} bytes`)
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
  return parsed
}

/** The asset of this platform, if the feed has one. */
export function assetFor(feed: ReleaseFeed, platform = currentPlatform()): ReleaseAsset | null {
  return feed.assets.find((asset) => asset.platform === platform) ?? null
}

/** A fetch failure in words, without the address (it may carry credentials). */
export function describeFetchError(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out'
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error
  if (cause instanceof Error && 'code' in cause) return String(cause.code)
  return cause instanceof Error ? cause.message : String(cause)
}

/** Whether `a` is a newer version than `b` (semver precedence). */
export function isNewer(a: string, b: string): boolean {
  return semver.valid(a) !== null && semver.valid(b) !== null && semver.gt(a, b)
}

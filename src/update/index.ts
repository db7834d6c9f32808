// Self-update (CONTRACT 10): GET /update reads the status of the last feed check
// (never fetching), the check runs once a day, first 15 s after start, when
// `update.check` is on; POST /update installs the feed's release in place when
// `update.allow_apply` is on, then asks the program to restart into it (the
// supervisor of src/supervisor/ checks the new version's health and rolls back).
import { readFileSync } from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import type { ServiceContext } from '../context.js'
import { Conflict, BadGateway, Forbidden, Unavailable } from '../errors.js'
import {
  assetFor,
  currentPlatform,
  fetchFeed,
  FeedError,
  isNewer,
  type ReleaseFeed,
} from './feed.js'
import {
  downloadAsset,
  installRoot,
  journalPath,
  swapIn,
  unpackRelease,
  UPDATE_DIR,
} from './install.js'
import { rm } from 'node:fs/promises'

/** The first check, after start (CONTRACT 10), and then once a day. */
export const FIRST_CHECK_MS = 15_000
export const CHECK_EVERY_MS = 24 * 60 * 60_000

export type UpdateStatus =
  | { enabled: false }
  | {
      current: string
      latest: string | null
      update_available: boolean
      notes_url: string | null
      checked_at: string | null
      can_apply: boolean
      /** Why the last check failed (null when it worked or none ran). */
      last_error: string | null
    }

export interface ApplyResult {
  updated: boolean
  version: string
  restarting: boolean
}

/**
 * What the program is asked once an answer is out: a restart, or (with the
 * swap's journal) a restart into the release just swapped in, whose health the
 * supervisor checks (src/supervisor/).
 */
export interface RestartRequest {
  journal?: string
}

interface PackageJson {
  name: string
  version: string
}

/** The top-level entry of `path` inside `root`, or null when the path lies outside it. */
function topEntryIn(root: string, path: string): string | null {
  const inside = relative(root, resolve(path))
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return null
  return inside.split(sep)[0]!
}

export function installedPackage(root = installRoot()): PackageJson {
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson
}

export class UpdateService {
  readonly #ctx: ServiceContext
  readonly #root: string
  readonly #package: PackageJson
  #feed: ReleaseFeed | null = null
  #checkedAt: string | null = null
  #lastError: string | null = null
  #timer: NodeJS.Timeout | null = null
  #applying = false

  constructor(ctx: ServiceContext, root = installRoot()) {
    this.#ctx = ctx
    this.#root = root
    this.#package = installedPackage(root)
  }

  get current(): string {
    return this.#package.version
  }

  /** Schedules the daily check when `update.check` is on. */
  start(firstCheckMs = FIRST_CHECK_MS): void {
    if (!this.#ctx.config.update.check || !this.#ctx.config.update.url) {
      if (this.#ctx.config.update.check)
        this.#ctx.log.warn('update.check is on but update.url is not set: no release feed to read')
      return
    }
    const run = (delay: number) => {
      this.#timer = setTimeout(() => {
        void this.check().finally(() => run(CHECK_EVERY_MS))
      }, delay)
      this.#timer.unref()
    }
    run(firstCheckMs)
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = null
  }

  /** GET /update: what the last check saw; reading never fetches. */
  status(): UpdateStatus {
    const { update } = this.#ctx.config
    if (!update.check) return { enabled: false }
    const latest = this.#feed?.version ?? null
    return {
      current: this.current,
      latest,
      update_available: latest !== null && isNewer(latest, this.current),
      notes_url: this.#feed?.notes_url ?? null,
      checked_at: this.#checkedAt,
      can_apply: update.allow_apply && this.#feed !== null && assetFor(this.#feed) !== null,
      last_error: this.#lastError,
    }
  }

  /** Reads the feed now (the schedule calls it); a failure is logged and kept for the status. */
  async check(): Promise<void> {
    const url = this.#ctx.config.update.url
    if (!url) return
    try {
      this.#feed = await fetchFeed(url)
      this.#lastError = null
      const available = isNewer(this.#feed.version, this.current)
      this.#ctx.log.info(
        { current: this.current, latest: this.#feed.version, update_available: available },
        available ? `update: version ${this.#feed.version} is available` : 'update: up to date',
      )
    } catch (error) {
      this.#lastError = error instanceof Error ? error.message : String(error)
      this.#ctx.log.warn({ error: this.#lastError }, 'update: the release feed check failed')
    } finally {
      this.#checkedAt = this.#ctx.clock.now().toISOString()
    }
  }

  /**
   * POST /update: reads the feed, downloads this platform's asset, checks it,
   * swaps it in, and returns the journal the restart into it takes (the door
   * asks for that restart once its answer is out). Nothing is swapped unless
   * every check passed; a newer version only. `canRestart`: whether this
   * process can restart itself (only `coffer serve` can).
   */
  /** What this install keeps that a release must not replace: its data, database and plugins. */
  #keptEntries(): string[] {
    const { data, database, plugins } = this.#ctx.config
    const paths = [data.dir, plugins.dir, ...(database.driver === 'sqlite' ? [database.path] : [])]
    return paths.flatMap((path) => topEntryIn(this.#root, path) ?? [])
  }

  async apply(canRestart: boolean): Promise<{ result: ApplyResult; journal: string | null }> {
    const { update } = this.#ctx.config
    if (!update.allow_apply)
      throw new Forbidden('applying updates is off: set update.allow_apply = true to allow it')
    if (!update.url) throw new Unavailable('update.url is not set: there is no release feed')
    if (!canRestart)
      throw new Unavailable('this process cannot restart itself (only `coffer serve` can)')
    if (this.#applying) throw new Conflict('an update is being applied already')
    this.#applying = true
    try {
      let feed: ReleaseFeed
      try {
        feed = await fetchFeed(update.url)
      } catch (error) {
        if (error instanceof FeedError) throw new BadGateway(error.message)
        throw error
      }
      this.#feed = feed
      this.#checkedAt = this.#ctx.clock.now().toISOString()
      if (!isNewer(feed.version, this.current))
        return {
          result: { updated: false, version: this.current, restarting: false },
          journal: null,
        }
      const asset = assetFor(feed)
      if (!asset)
        throw new Conflict(
          `the release ${feed.version} has no asset for this platform (${currentPlatform()})`,
        )
      const log = this.#ctx.log.child({ from: this.current, to: feed.version })
      const staging = join(this.#root, UPDATE_DIR, feed.version)
      await rm(staging, { recursive: true, force: true })
      let staged: string
      try {
        log.info({ size: asset.size }, 'update: downloading the release')
        const tarball = await downloadAsset(asset, staging)
        log.info('update: size and SHA-256 match; unpacking beside the install')
        const entry = relative(this.#root, resolve(process.argv[1] ?? 'dist/cli.js'))
        staged = await unpackRelease(
          tarball,
          staging,
          { name: this.#package.name, version: feed.version, entry },
          this.#keptEntries(),
        )
      } catch (error) {
        // Nothing was swapped: nothing of this try stays.
        await rm(join(this.#root, UPDATE_DIR), { recursive: true, force: true })
        log.warn(
          { error: error instanceof Error ? error.message : String(error) },
          'update: not applied',
        )
        throw error
      }
      await swapIn(this.#root, staged, { from: this.current, to: feed.version })
      log.info('update: swapped in; restarting into the new version')
      return {
        result: { updated: true, version: feed.version, restarting: true },
        journal: journalPath(this.#root),
      }
    } finally {
      this.#applying = false
    }
  }
}

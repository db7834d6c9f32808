// Installing a release in place (CONTRACT 10, docs/operations.md "Self-update").
//
// The install is the package root this program runs from (the folder of
// package.json above dist/). A release asset is a gzipped tarball of `package/`
// as `npm pack` writes it, with its node_modules installed: package.json, dist/,
// node_modules/... Steps, each leaving the install as it was if it fails:
//
// 1. download into <root>/.coffer-update/<version>/, at most the declared size,
//    hashing as it comes; a size or SHA-256 mismatch deletes it (422);
// 2. unpack beside the install and check it is this program at that version;
// 3. swap: for each top-level entry of the release, move the running one into a
//    backup folder and the new one into its place (renames on one file system),
//    writing a journal first, so that a crash half-way is put back at the next
//    start (recoverInterruptedSwap);
// 4. after the restart, the new version must answer /readyz within a bound, or
//    rollBack() moves the backup entries back (the supervisor does it).
//
// Only the release's own entries move: data/ or coffer.toml beside them stay.
import { createHash, randomBytes } from 'node:crypto'
import { createWriteStream, existsSync } from 'node:fs'
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import { BadGateway, Unprocessable } from '../errors.js'
import { describeFetchError, type ReleaseAsset } from './feed.js'

/** Where updates are staged, inside the install. */
export const UPDATE_DIR = '.coffer-update'
const JOURNAL = 'journal.json'
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000

/** The package root this program runs from (dist/update/ → ../..; src/update/ under tsx alike). */
export function installRoot(): string {
  return fileURLToPath(new URL('../../', import.meta.url))
}

/** What a swap did, written before it starts: enough to undo it after a crash. */
export interface SwapJournal {
  from: string
  to: string
  root: string
  /** Top-level entries of the release, moved into place. */
  entries: string[]
  /** Where the running install's entries went. */
  backup: string
  /** Where the new entries came from. */
  staged: string
  /** 'swapping' until every entry moved; 'swapped' while the new version proves itself. */
  state: 'swapping' | 'swapped'
}

export function journalPath(root: string): string {
  return join(root, UPDATE_DIR, JOURNAL)
}

export async function readJournal(root: string): Promise<SwapJournal | null> {
  try {
    return JSON.parse(await readFile(journalPath(root), 'utf8')) as SwapJournal
  } catch {
    return null
  }
}

async function writeJournal(journal: SwapJournal): Promise<void> {
  const path = journalPath(journal.root)
  await writeFile(`${path}.tmp`, JSON.stringify(journal, null, 2))
  await rename(`${path}.tmp`, path)
}

/**
 * Downloads the asset into `dir` (created), checking size and SHA-256 as it
 * comes. Returns the tarball's path. Nothing outside `dir` is written.
 */
export async function downloadAsset(asset: ReleaseAsset, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true })
  const file = join(dir, 'release.tgz')
  let response: Response
  try {
    response = await fetch(asset.url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) })
  } catch (error) {
    throw new BadGateway(`the release could not be downloaded: ${describeFetchError(error)}`)
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel()
    throw new BadGateway(`the release download answered HTTP ${response.status}`)
  }
  const hash = createHash('sha256')
  let received = 0
  const check = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length
      if (received > asset.size) {
        done(new Unprocessable(`the release is larger than the feed's ${asset.size} bytes`))
        return
      }
      hash.update(chunk)
      done(null, chunk)
    },
  })
  try {
    await pipeline(Readable.fromWeb(response.body as never), check, createWriteStream(file))
  } catch (error) {
    await rm(dir, { recursive: true, force: true })
    if (error instanceof Unprocessable) throw error
    throw new BadGateway(`the release download failed: ${describeFetchError(error)}`)
  }
  const fail = async (message: string) => {
    await rm(dir, { recursive: true, force: true })
    return new Unprocessable(message)
  }
  if (received !== asset.size)
    throw await fail(`the release is ${received} bytes, the feed says ${asset.size}`)
  const digest = hash.digest('hex')
  if (digest !== asset.sha256.toLowerCase())
    throw await fail(`the release's SHA-256 is ${digest}, the feed says ${asset.sha256}`)
  return file
}

/**
 * Unpacks the tarball into `<dir>/package` and checks that it is this program
 * (package.json named like ours, the running entry present) at `version`.
 */
export async function unpackRelease(
  tarball: string,
  dir: string,
  /** `entry`: the program file, relative to the root (dist/cli.js; src/cli.ts under tsx). */
  expected: { name: string; version: string; entry: string },
  /** Top-level names in the install that hold what it keeps (data.dir, the database, plugins.dir). */
  kept: readonly string[] = [],
): Promise<string> {
  const fail = async (message: string) => {
    await rm(dir, { recursive: true, force: true })
    return new Unprocessable(message)
  }
  // Not `strict`: it rejects at the first warning while the extraction goes on
  // writing. Every warning (an absolute or escaping path, a bad entry) is
  // collected instead, and any fails the release once the extraction is over.
  const warnings: string[] = []
  // Loaded here, at an update, not at every start; outside the try below, since
  // a package that fails to load is this install's fault, not the release's.
  const tar = await import('tar').catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true })
    throw error
  })
  try {
    await tar.x({
      file: tarball,
      cwd: dir,
      preservePaths: false,
      onwarn: (code: string, message: string | Error) =>
        warnings.push(`${code}: ${message instanceof Error ? message.message : message}`),
    })
  } catch (error) {
    warnings.push(error instanceof Error ? error.message : String(error))
  }
  if (warnings.length > 0)
    throw await fail(`the release is not a tarball this service unpacks: ${warnings[0]}`)
  await rm(tarball, { force: true })
  const staged = join(dir, 'package')
  let pkg: { name?: unknown; version?: unknown; files?: unknown }
  try {
    pkg = JSON.parse(await readFile(join(staged, 'package.json'), 'utf8')) as typeof pkg
  } catch {
    throw await fail('the release has no package/package.json')
  }
  if (pkg.name !== expected.name)
    throw await fail(`the release is package ${JSON.stringify(pkg.name)}, not ${expected.name}`)
  if (pkg.version !== expected.version)
    throw await fail(
      `the release holds version ${String(pkg.version)}, the feed says ${expected.version}`,
    )
  if (!existsSync(join(staged, expected.entry)))
    throw await fail(`the release has no ${expected.entry}, the program this service runs`)
  if (!existsSync(join(staged, 'node_modules')))
    throw await fail('the release has no node_modules (an asset is packed with its dependencies)')
  // Every entry the release holds replaces the install's own at the swap: one
  // named like the data folder would put the ledger in a backup that the
  // confirmed update then deletes.
  const foreign = (await readdir(staged)).filter(
    (entry) => !isProgramEntry(entry, pkg.files) || KEPT_ENTRIES.has(entry) || kept.includes(entry),
  )
  if (foreign.length > 0)
    throw await fail(
      `the release holds ${foreign.map((e) => JSON.stringify(e)).join(', ')}, which is not the program's ` +
        `(package.json "files", package.json, node_modules, README, LICENSE): an update replaces only the ` +
        `program, never what the install keeps (${[...KEPT_ENTRIES, ...kept].join(', ')})`,
    )
  return staged
}

/** What an install keeps whatever a release says: its data, its configuration, the update's own folder. */
const KEPT_ENTRIES = new Set(['data', 'coffer.toml', '.env', '.git', UPDATE_DIR])

/** Files npm packs whatever `files` says. */
const ALWAYS_PACKED =
  /^(package\.json|package-lock\.json|npm-shrinkwrap\.json|node_modules|(readme|license|licence|changelog|notice)(\..*)?)$/i

/** Whether a top-level entry of a release is part of the program: packed always, or under `files`. */
function isProgramEntry(entry: string, files: unknown): boolean {
  if (ALWAYS_PACKED.test(entry)) return true
  if (!Array.isArray(files)) return false
  return files.some(
    (pattern) =>
      typeof pattern === 'string' && pattern.replace(/^\.?\//, '').split('/')[0] === entry,
  )
}

/**
 * Moves the staged release's entries into the install, the running ones into a
 * backup folder beside. Journal first; a failure half-way puts back what moved.
 */
export async function swapIn(
  root: string,
  staged: string,
  versions: { from: string; to: string },
): Promise<SwapJournal> {
  const entries = (await readdir(staged)).sort()
  const backup = join(root, UPDATE_DIR, `backup-${versions.from}-${randomBytes(3).toString('hex')}`)
  await mkdir(backup, { recursive: true })
  const journal: SwapJournal = { ...versions, root, entries, backup, staged, state: 'swapping' }
  await writeJournal(journal)
  try {
    for (const entry of entries) {
      if (existsSync(join(root, entry))) await rename(join(root, entry), join(backup, entry))
      await rename(join(staged, entry), join(root, entry))
    }
  } catch (error) {
    await rollBack(journal)
    throw error
  }
  journal.state = 'swapped'
  await writeJournal(journal)
  return journal
}

/** Puts the running install's entries back (the new ones go back to the staging folder). */
export async function rollBack(journal: SwapJournal): Promise<void> {
  for (const entry of journal.entries) {
    const current = join(journal.root, entry)
    const fresh = join(journal.staged, entry)
    const saved = join(journal.backup, entry)
    // The new entry moved in when it is no longer staged: it goes back there.
    if (!existsSync(fresh) && existsSync(current)) await rename(current, fresh)
    if (existsSync(saved)) await rename(saved, current)
  }
  await rm(journalPath(journal.root), { force: true })
  await rm(join(journal.root, UPDATE_DIR), { recursive: true, force: true })
}

/** The new version answered healthy: the backup and the journal go. */
export async function confirmSwap(journal: SwapJournal): Promise<void> {
  await rm(journalPath(journal.root), { force: true })
  await rm(join(journal.root, UPDATE_DIR), { recursive: true, force: true })
}

/**
 * At start: a swap that a crash cut half-way is put back (the old version runs
 * again; the update can be applied again). A completed swap awaiting its health
 * check is left to the supervisor that started this process.
 */
export async function recoverInterruptedSwap(root: string): Promise<SwapJournal | null> {
  const journal = await readJournal(root)
  if (!journal || journal.state !== 'swapping') return null
  await rollBack(journal)
  return journal
}

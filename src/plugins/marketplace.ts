// The plugin marketplace (CONTRACT 9): the index at plugins.registry_url, and
// installing one of its plugins into plugins.dir. Every file is downloaded and
// checked (size, SHA-256, a safe relative path) before anything is written; the
// checked files go into a staging folder that is swapped in by renames, so the
// plugin folder is always the old version or the new one, never half of each.
import { createHash, randomUUID } from 'node:crypto'
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Logger } from 'pino'
import semver from 'semver'
import { BadGateway, Conflict, Unprocessable } from '../errors.js'
import { PLUGIN_NAME } from './manifest.js'

export const INDEX_MAX_BYTES = 2 * 1024 * 1024
export const FILES_MAX = 64
export const FILE_MAX_BYTES = 16 * 1024 * 1024
export const TOTAL_MAX_BYTES = 20 * 1024 * 1024
const TIMEOUT_MS = 10_000
/** The longest file or folder name common file systems hold (ext4, APFS, NTFS), in bytes. */
const NAME_MAX_BYTES = 255

export interface RegistryFile {
  path: string
  url: string
  sha256: string
  size: number
}

export interface RegistryEntry {
  name: string
  version: string
  description: string
  author: string
  capabilities: string[]
  files: RegistryFile[]
}

/**
 * Reads at most `max` bytes of a response; more is an error naming `what`. Bytes,
 * not readBoundedText's UTF-8 text: a file's SHA-256 is over its exact bytes.
 */
async function readCapped(response: Response, max: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of response.body ?? []) {
    size += (chunk as Uint8Array).byteLength
    if (size > max) throw new Unprocessable(`${what} is larger than ${max} bytes`)
    chunks.push(Buffer.from(chunk as Uint8Array))
  }
  return Buffer.concat(chunks)
}

const timedOut = (error: unknown) => (error as { name?: string }).name === 'TimeoutError'

/**
 * The body at `url`, at most `max` bytes (more is a 422 naming `what`). The
 * timeout covers the body as well as the headers; a request that fails, times
 * out or breaks off part-way is a 502.
 */
async function download(
  url: string,
  what: string,
  max: number,
  timeoutMs: number,
): Promise<Buffer> {
  let response: Response
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' })
  } catch (error) {
    throw new BadGateway(`${what}: the request ${timedOut(error) ? 'timed out' : 'failed'}`)
  }
  if (!response.ok) {
    await response.body?.cancel()
    throw new BadGateway(`${what}: answered HTTP ${response.status}`)
  }
  try {
    return await readCapped(response, max, what)
  } catch (error) {
    if (error instanceof Unprocessable) throw error
    throw new BadGateway(`${what}: the download ${timedOut(error) ? 'timed out' : 'broke off'}`)
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const str = (value: unknown) => (typeof value === 'string' ? value : '')

/**
 * The index at `url`: `{schema_version: 1, plugins: [...]}`. Entries with an
 * invalid name or version are left out (with a warning); file URLs are made
 * absolute against the index URL. 502 when it cannot be fetched or read.
 */
export async function fetchRegistryIndex(
  url: string,
  options: { log?: Logger; timeoutMs?: number } = {},
): Promise<RegistryEntry[]> {
  let body: Buffer
  try {
    body = await download(url, 'the plugin index', INDEX_MAX_BYTES, options.timeoutMs ?? TIMEOUT_MS)
  } catch (error) {
    // Too large is the marketplace's fault here, not the caller's.
    if (error instanceof Unprocessable) throw new BadGateway(error.message)
    throw error
  }
  let doc: unknown
  try {
    doc = JSON.parse(body.toString('utf8'))
  } catch {
    throw new BadGateway('the plugin index is not valid JSON')
  }
  if (!isRecord(doc) || doc.schema_version !== 1 || !Array.isArray(doc.plugins))
    throw new BadGateway('the plugin index is not {schema_version: 1, plugins: [...]}')
  const entries: RegistryEntry[] = []
  for (const raw of doc.plugins) {
    const name = isRecord(raw) ? str(raw.name) : ''
    const version = isRecord(raw) ? str(raw.version) : ''
    if (!isRecord(raw) || !PLUGIN_NAME.test(name) || semver.valid(version) === null) {
      options.log?.warn(
        { name },
        'plugins: an index entry without a valid name and version is left out',
      )
      continue
    }
    const files = Array.isArray(raw.files) ? raw.files : []
    entries.push({
      name,
      version,
      description: str(raw.description),
      author: str(raw.author),
      capabilities: Array.isArray(raw.capabilities)
        ? raw.capabilities.filter((c): c is string => typeof c === 'string')
        : [],
      files: files.map((file: unknown) => {
        const f = isRecord(file) ? file : {}
        let absolute = ''
        try {
          absolute = new URL(str(f.url), url).toString()
        } catch {
          absolute = ''
        }
        return {
          path: str(f.path),
          url: absolute,
          sha256: str(f.sha256).toLowerCase(),
          size: typeof f.size === 'number' ? f.size : -1,
        }
      }),
    })
  }
  return entries
}

/** A relative path with no `..`, no absolute start, no backslash, no empty segment. */
export function isSafePath(path: string): boolean {
  if (path === '' || path.length > 255 || path.startsWith('/') || path.includes('\\')) return false
  if (/^[A-Za-z]:/.test(path) || path.includes('\0')) return false
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..')
}

/** Checks the file list of an entry before anything is downloaded. */
function checkFileList(entry: RegistryEntry): void {
  const fail = (why: string) => new Unprocessable(`plugin "${entry.name}": ${why}`)
  if (entry.files.length === 0) throw fail('the index lists no files')
  if (entry.files.length > FILES_MAX) throw fail(`more than ${FILES_MAX} files`)
  const seen = new Set<string>()
  let total = 0
  for (const file of entry.files) {
    if (!isSafePath(file.path)) throw fail(`unsafe file path ${JSON.stringify(file.path)}`)
    if (file.path.split('/').some((name) => Buffer.byteLength(name) > NAME_MAX_BYTES))
      throw fail(`a name in ${JSON.stringify(file.path)} is longer than ${NAME_MAX_BYTES} bytes`)
    if (seen.has(file.path)) throw fail(`file "${file.path}" is listed twice`)
    seen.add(file.path)
    if (!/^[0-9a-f]{64}$/.test(file.sha256)) throw fail(`file "${file.path}" has no valid sha256`)
    if (!Number.isSafeInteger(file.size) || file.size < 0 || file.size > FILE_MAX_BYTES)
      throw fail(`file "${file.path}" has a size over ${FILE_MAX_BYTES} bytes or none`)
    if (!/^https?:\/\//.test(file.url)) throw fail(`file "${file.path}" has no http(s) URL`)
    total += file.size
  }
  if (total > TOTAL_MAX_BYTES) throw fail(`the files add up to more than ${TOTAL_MAX_BYTES} bytes`)
  // `x` and `x/y` cannot both be written: one needs `x` a file, the other a folder.
  for (const path of seen) {
    const names = path.split('/')
    for (let depth = 1; depth < names.length; depth++) {
      const folder = names.slice(0, depth).join('/')
      if (seen.has(folder)) throw fail(`"${folder}" is both a file and a folder`)
    }
  }
}

/**
 * Installs `entry` into `<pluginsDir>/<name>`: every file is downloaded and
 * checked first; only then is the folder written (staged, then renamed into
 * place). 422 when a file fails its check, 502 when one cannot be fetched;
 * nothing is written in either case. 409 when another process put its own
 * install of the plugin in place meanwhile (this process's installs of one
 * plugin are queued by PluginService).
 */
export async function installFromRegistry(options: {
  pluginsDir: string
  entry: RegistryEntry
  log?: Logger
  timeoutMs?: number
}): Promise<{ folder: string; replaced: boolean }> {
  const { pluginsDir, entry } = options
  checkFileList(entry)
  const contents = new Map<string, Buffer>()
  for (const file of entry.files) {
    const what = `plugin "${entry.name}": file "${file.path}"`
    const body = await download(file.url, what, file.size, options.timeoutMs ?? TIMEOUT_MS)
    if (body.byteLength !== file.size)
      throw new Unprocessable(`${what} is ${body.byteLength} bytes but the index says ${file.size}`)
    const digest = createHash('sha256').update(body).digest('hex')
    if (digest !== file.sha256)
      throw new Unprocessable(
        `${what} has SHA-256 ${digest.slice(0, 12)}… but the index says ${file.sha256.slice(0, 12)}…`,
      )
    contents.set(file.path, body)
  }

  await mkdir(pluginsDir, { recursive: true })
  const tag = randomUUID().slice(0, 8)
  const staging = join(pluginsDir, `.staging-${entry.name}-${tag}`)
  const folder = join(pluginsDir, entry.name)
  const aside = join(pluginsDir, `.old-${entry.name}-${tag}`)
  try {
    for (const [path, body] of contents) {
      const target = join(staging, path)
      await mkdir(dirname(target), { recursive: true })
      await writeFile(target, body)
    }
    let replaced = false
    try {
      await rename(folder, aside)
      replaced = true
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    try {
      await rename(staging, folder)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // Another process put its install of the plugin in place between the two renames: it stays.
      if (code === 'ENOTEMPTY' || code === 'EEXIST') {
        if (replaced) await rm(aside, { recursive: true, force: true })
        throw new Conflict(
          `plugin "${entry.name}" was installed by another process meanwhile; try again`,
        )
      }
      if (replaced) await rename(aside, folder)
      throw error
    }
    if (replaced) await rm(aside, { recursive: true, force: true })
    options.log?.info(
      { plugin: entry.name, version: entry.version, files: contents.size, replaced },
      'plugins: installed from the marketplace',
    )
    return { folder, replaced }
  } finally {
    await rm(staging, { recursive: true, force: true })
  }
}

/**
 * Puts plugins.dir back in order after a crash in the middle of an install or an
 * uninstall: a folder set aside (`.old-<name>-*`) whose plugin folder is gone is
 * renamed back; leftover staging, set-aside and removed folders are deleted.
 * Runs at start, before anything else touches the folder.
 */
export async function recoverInterruptedInstalls(pluginsDir: string, log?: Logger): Promise<void> {
  let names: string[]
  try {
    names = await readdir(pluginsDir)
  } catch {
    return
  }
  for (const name of names) {
    const aside = /^\.old-([a-z0-9][a-z0-9_-]{0,63})-[0-9a-f]{8}$/.exec(name)
    const path = join(pluginsDir, name)
    if (aside) {
      const folder = join(pluginsDir, aside[1]!)
      const present = await stat(folder).then(
        () => true,
        () => false,
      )
      if (!present) {
        await rename(path, folder)
        log?.warn(
          { plugin: aside[1] },
          'plugins: put back a plugin folder an interrupted install had set aside',
        )
        continue
      }
    }
    if (aside || /^\.(staging|removed)-/.test(name))
      await rm(path, { recursive: true, force: true })
  }
}

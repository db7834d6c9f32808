// A release feed on 127.0.0.1 (CONTRACT 10) serving one tarball: what
// `npm pack` writes (`package/...`) with node_modules beside it. Tests build
// the "next version" from this checkout's source, as an install would run it.
import { createHash } from 'node:crypto'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import type { TestContext } from 'node:test'
import * as tar from 'tar'
import { CHECKOUT, PROGRAM_FILE, PROGRAM_ROOT } from '../helpers/program.js'

/** How a test release differs from a good one. */
export interface ReleaseShape {
  /** Its program exits at once: a release that never becomes ready. */
  breakCli?: boolean
  /** More files it holds, by path under package/. */
  extra?: Record<string, string>
  /** More entries its package.json `files` names. */
  moreFiles?: string[]
}

/**
 * Lays out an install of this checkout at `version` in `dir`: package.json,
 * tsconfig.json, src/ as the tests run it (compiled, or TypeScript run by tsx:
 * helpers/program.ts) and node_modules, shaped by `release`.
 */
export function layOutInstall(dir: string, version: string, release: ReleaseShape = {}): void {
  mkdirSync(dir, { recursive: true })
  const pkg = JSON.parse(readFileSync(join(CHECKOUT, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >
  // `files` names what this layout ships, as a packed release's package.json does.
  const files = ['src/', 'tsconfig.json', ...(release.moreFiles ?? [])]
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...pkg, version, files }, null, 2))
  cpSync(join(CHECKOUT, 'tsconfig.json'), join(dir, 'tsconfig.json'))
  cpSync(join(PROGRAM_ROOT, 'src'), join(dir, 'src'), {
    recursive: true,
    // The compiled tree links its non-TypeScript files to the checkout's.
    dereference: true,
    filter: (source) => !/\.test\.[jt]s$/.test(source),
  })
  if (release.breakCli) writeFileSync(join(dir, PROGRAM_FILE), 'process.exit(3)\n')
  for (const [path, text] of Object.entries(release.extra ?? {})) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  // A release carries its node_modules; this one holds a marker only, and Node
  // finds the packages in this checkout's node_modules, above every test
  // install (installsDir()).
  mkdirSync(join(dir, 'node_modules'))
  writeFileSync(join(dir, 'node_modules', '.release'), `${version}\n`)
}

/** Where test installs live: inside this checkout, so that its node_modules serve them. */
export function installsDir(): string {
  const dir = join(CHECKOUT, 'test-artifacts', 'installs')
  mkdirSync(dir, { recursive: true })
  return dir
}

export interface Release {
  tarball: Buffer
  sha256: string
}

/** A release asset of this checkout at `version`. */
export async function buildRelease(version: string, shape: ReleaseShape = {}): Promise<Release> {
  const dir = mkdtempSync(join(installsDir(), 'release-'))
  try {
    layOutInstall(join(dir, 'package'), version, shape)
    const file = join(dir, 'release.tgz')
    await tar.c({ gzip: true, cwd: dir, file, portable: true }, ['package'])
    const tarball = readFileSync(file)
    return { tarball, sha256: createHash('sha256').update(tarball).digest('hex') }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export interface FeedServer {
  url: string
  /** How many times the asset was downloaded. */
  downloads(): number
  /** What the feed says next (the asset's size, checksum and address may be made wrong). */
  publish(feed: {
    version: string
    release: Release | null
    sha256?: string
    size?: number
    assetStatus?: number
  }): void
}

export async function startFeed(t: TestContext): Promise<FeedServer> {
  let feed: Parameters<FeedServer['publish']>[0] | null = null
  let downloads = 0
  const server: Server = createServer((req, res) => {
    if (req.url === '/feed.json' && feed) {
      const release = feed.release
      res.setHeader('content-type', 'application/json')
      res.end(
        JSON.stringify({
          version: feed.version,
          published_at: '2026-11-01T00:00:00Z',
          notes_url: `https://example.invalid/releases/${feed.version}`,
          assets: release
            ? [
                {
                  platform: `${process.platform}-${process.arch}`,
                  url: `${base}/release.tgz`,
                  sha256: feed.sha256 ?? release.sha256,
                  size: feed.size ?? release.tarball.length,
                },
              ]
            : [],
        }),
      )
      return
    }
    if (req.url === '/release.tgz' && feed?.release) {
      downloads++
      if (feed.assetStatus) {
        res.statusCode = feed.assetStatus
        res.end('gone')
        return
      }
      res.setHeader('content-type', 'application/gzip')
      res.end(feed.release.tarball)
      return
    }
    res.statusCode = 404
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return {
    url: `${base}/feed.json`,
    downloads: () => downloads,
    publish(next) {
      feed = next
    },
  }
}

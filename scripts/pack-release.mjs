// Builds a release asset for self-update (docs/operations.md "Self-update"):
// `npm pack` of this project, its production dependencies installed into the
// packed `package/` (native modules built here: run it on the platform the
// asset is for), then `coffer-<version>-<os>-<arch>.tgz` and the feed entry.
//   npm run build && node scripts/pack-release.mjs [out-dir]
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const out = resolve(process.argv[2] ?? join(root, 'release'))
const work = mkdtempSync(join(tmpdir(), 'coffer-pack-'))

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] })
  if (result.status !== 0) {
    console.error(`${command} ${args.join(' ')} failed`)
    process.exit(result.status ?? 1)
  }
  return result.stdout.toString().trim()
}

try {
  const packed = run('npm', ['pack', '--silent', '--pack-destination', work], root)
  run('tar', ['xzf', packed.split('\n').at(-1)], work)
  const pkgDir = join(work, 'package')
  // The lock file pins what the release runs; dev dependencies stay out.
  run('cp', [join(root, 'package-lock.json'), pkgDir], root)
  run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts=false'], pkgDir)
  const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'))
  const platform = `${process.platform}-${process.arch}`
  mkdirSync(out, { recursive: true })
  const asset = join(out, `coffer-${version}-${platform}.tgz`)
  run('tar', ['czf', asset, 'package'], work)
  const bytes = readFileSync(asset)
  const entry = {
    platform,
    url: `https://example.com/releases/${version}/coffer-${version}-${platform}.tgz`,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    size: bytes.length,
  }
  console.log(`wrote ${asset}\nfeed asset (set its url):\n${JSON.stringify(entry, null, 2)}`)
} finally {
  rmSync(work, { recursive: true, force: true })
}

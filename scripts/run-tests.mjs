// Runs every unit test (src/**/*.test.ts) and integration test (test/**/*.test.ts)
// with node's own test runner. Pass paths or substrings to run a subset:
//   npm test -- test/accounts   (substring match on the file path)
// The suite runs compiled to JavaScript in .test-build/ (see compileSuite); a
// single file also runs from source: node --import tsx --test test/x.test.ts
import { spawnSync } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  statSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { build } from 'esbuild'

const root = new URL('..', import.meta.url).pathname

function findTests(dir) {
  const out = []
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...findTests(path))
    else if (name.endsWith('.test.ts')) out.push(relative(root, path))
  }
  return out
}

const filters = process.argv.slice(2)
let files = ['src', 'test']
  .flatMap((dir) => findTests(join(root, dir)))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort()

// The dashboard's browser tests (test/web/) run a spawned `coffer serve` on
// SQLite whatever the engine, so the PostgreSQL run leaves them to the SQLite runs.
// COFFER_TEST_BROWSER=0 leaves them out too: CI's extra run on the next Node LTS
// uses it, since the dashboard is static files the API tests already serve.
const browserTests = files.filter((file) => file.startsWith('test/web/'))
const browserOff = process.env.COFFER_TEST_BROWSER === '0'
if ((process.env.COFFER_TEST_POSTGRES_DSN || browserOff) && browserTests.length > 0) {
  const why = browserOff ? 'COFFER_TEST_BROWSER=0' : 'they run on SQLite only'
  console.log(`# the ${browserTests.length} browser test files are skipped here (${why})`)
  files = files.filter((file) => !file.startsWith('test/web/'))
} else if (browserTests.length > 0) {
  prepareBrowserTests()
}

if (files.length === 0) {
  console.error('no test files matched')
  process.exit(1)
}

/**
 * Builds the dashboard the browser tests load, and installs Debian's chromium
 * when it is missing (sessions and CI run as root; playwright-core never
 * downloads a browser).
 */
function prepareBrowserTests() {
  const build = spawnSync('npm', ['run', 'build', '-w', 'web'], { cwd: root, stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
  if (
    process.env.COFFER_CHROMIUM ||
    ['/usr/bin/chromium', '/usr/bin/chromium-browser'].some(existsSync)
  )
    return
  console.log('# chromium is missing: installing it with apt-get')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', 'chromium'],
  ]) {
    const apt = spawnSync('apt-get', args, { stdio: 'inherit', env })
    if (apt.status !== 0) {
      console.error(`apt-get ${args.join(' ')} failed: the browser tests need chromium`)
      process.exit(1)
    }
  }
}

// Each PostgreSQL test runs in a schema of its own, dropped at its end. pg_trgm
// is installed once here, in public: were a test's migration to install it in
// that test's schema, dropping the schema would drop it under the other tests.
if (process.env.COFFER_TEST_POSTGRES_DSN) {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: process.env.COFFER_TEST_POSTGRES_DSN })
  await client.connect()
  try {
    await client.query('create extension if not exists pg_trgm with schema public')
  } catch (error) {
    console.error(`pg_trgm is not available (${error.message}); search runs unindexed`)
  } finally {
    await client.end()
  }
}

const BUILD_DIR = '.test-build'
/** The TypeScript trees the tests import, each compiled with its own tsconfig. */
const COMPILED_TREES = [
  { dir: 'src', tsconfig: 'tsconfig.json' },
  { dir: 'test', tsconfig: 'tsconfig.json' },
  { dir: 'web/src', tsconfig: 'web/tsconfig.json' },
]

/**
 * Compiles src/, test/ and web/src/ into .test-build/ (esbuild, file by file,
 * inline source maps) and links every other file of the checkout beside them,
 * so that the copy reads as the checkout does (package.json, docs/, dist/web,
 * fixtures). Node then runs the tests, and the programs and workers they start,
 * without module hooks: tsx's hooks cost each process about 1.3 s of CPU on
 * Node 20, and a run of the suite starts some 300 of them. Compiling takes
 * about a second.
 */
async function compileSuite() {
  const out = join(root, BUILD_DIR)
  const sources = new Map(COMPILED_TREES.map((tree) => [tree, []]))
  const link = (path) => {
    const target = join(out, path)
    if (lstatSync(target, { throwIfNoEntry: false })) return
    mkdirSync(dirname(target), { recursive: true })
    symlinkSync(relative(dirname(target), join(root, path)), target)
  }
  const walk = (dir) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = join(dir, name)
      if (path === BUILD_DIR || path === '.git') continue
      const tree = COMPILED_TREES.find((t) => path === t.dir || path.startsWith(`${t.dir}/`))
      const holdsTree = COMPILED_TREES.some((t) => t.dir.startsWith(`${path}/`))
      const isDir = statSync(join(root, path)).isDirectory()
      if (isDir && (tree || holdsTree)) walk(path)
      else if (tree && /\.tsx?$/.test(name) && !name.endsWith('.d.ts')) sources.get(tree).push(path)
      else link(path)
    }
  }
  // A compiled tree, or a folder holding one, must be a real folder here: were
  // it a link (a copy laid out before the tree was compiled), esbuild would
  // write into the checkout through it.
  for (const tree of COMPILED_TREES) {
    const parts = tree.dir.split('/')
    for (let i = 1; i <= parts.length; i++) {
      const path = join(out, ...parts.slice(0, i))
      if (isLink(path)) unlinkSync(path)
    }
  }
  walk('')
  for (const [tree, paths] of sources) {
    await build({
      entryPoints: paths.map((path) => join(root, path)),
      outdir: out,
      outbase: root,
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node.split('.')[0]}`,
      sourcemap: 'inline',
      tsconfig: join(root, tree.tsconfig),
      logLevel: 'warning',
    })
  }
}

function isLink(path) {
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false
}

await compileSuite()
const compiled = files.map((file) => join(BUILD_DIR, file.replace(/\.ts$/, '.js')))
const concurrency = process.env.COFFER_TEST_CONCURRENCY ?? '2'
const result = spawnSync(
  process.execPath,
  ['--enable-source-maps', '--test', `--test-concurrency=${concurrency}`, ...compiled],
  { cwd: root, stdio: 'inherit' },
)
process.exit(result.status ?? 1)

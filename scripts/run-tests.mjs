// Runs every unit test (src/**/*.test.ts) and integration test (test/**/*.test.ts)
// with node's own test runner. Pass paths or substrings to run a subset:
//   npm test -- test/accounts   (substring match on the file path)
// The suite runs compiled to JavaScript in .test-build/ (compiled-checkout.mjs); a
// single file also runs from source: node --import tsx --test test/x.test.ts
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { BUILD_DIR, compileCheckout } from './compiled-checkout.mjs'

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

// The unit tests (src/) open SQLite whatever the engine (test/helpers/context.ts),
// so the whole suite's PostgreSQL run would only repeat them; named, they run.
if (process.env.COFFER_TEST_POSTGRES_DSN && filters.length === 0) {
  const units = files.filter((file) => file.startsWith('src/'))
  console.log(`# the ${units.length} unit test files (src/) are skipped here: they run on SQLite`)
  files = files.filter((file) => !file.startsWith('src/'))
}

if (files.length === 0) {
  console.error('no test files matched')
  process.exit(1)
}

// The browser tests are the longest files: started first, they do not leave one
// of two cores idle at the end of the run while the last of them finishes.
files = [
  ...files.filter((file) => file.startsWith('test/web/')),
  ...files.filter((file) => !file.startsWith('test/web/')),
]

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

await compileCheckout()
const compiled = files.map((file) => join(BUILD_DIR, file.replace(/\.ts$/, '.js')))
const concurrency = process.env.COFFER_TEST_CONCURRENCY ?? '2'
const result = spawnSync(
  process.execPath,
  ['--enable-source-maps', '--test', `--test-concurrency=${concurrency}`, ...compiled],
  { cwd: root, stdio: 'inherit' },
)
process.exit(result.status ?? 1)

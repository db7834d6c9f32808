// The built `coffer` program (CONTRACT 1, 2, 5; SPEC 5.3), spawned as a user runs
// it: `node dist/cli.js <command>`, from `npm run build`'s output (below).
import assert from 'node:assert/strict'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { after, before, test, type TestContext } from 'node:test'
import SqliteDatabase from '../src/db/sqlite-binding.js'
import pg from 'pg'
import { ENGINE, POSTGRES_DSN, processSandbox } from './helpers/app.js'
import { CHECKOUT } from './helpers/program.js'

const PACKAGE = JSON.parse(readFileSync(join(CHECKOUT, 'package.json'), 'utf8')) as {
  version: string
  bin: Record<string, string>
}
const DEADLINE_MS = 30_000

// The build goes to a private copy of the package layout (package.json and
// node_modules linked, dist/ copied or built), so that the bin runs exactly as
// installed while a concurrent build of the shared tree cannot rewrite dist/
// under a running test, nor this build under anyone else.
const PACKAGE_DIR = mkdtempSync(join(tmpdir(), 'coffer-cli-build-'))
const CLI = join(PACKAGE_DIR, PACKAGE.bin.coffer ?? 'dist/cli.js')

/** What tsconfig.build.json compiles: the service's sources, not their tests. */
function serviceSources(dir = join(CHECKOUT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return serviceSources(path)
    return /\.ts$/.test(entry.name) && !/\.(test|d)\.ts$/.test(entry.name) ? [path] : []
  })
}

/**
 * Whether the checkout's dist/ is `npm run build`'s output of the sources as they
 * are (CI builds just before the tests): every source has its .js there, written
 * after the newest source and build setting. A copy of it then spares this file
 * the 20 s of CPU that compiling the service again takes.
 */
function checkoutDistIsCurrent(): boolean {
  const sources = serviceSources()
  const inputs = [...sources, 'tsconfig.json', 'tsconfig.build.json', 'package.json']
  const newest = Math.max(...inputs.map((path) => statSync(resolve(CHECKOUT, path)).mtimeMs))
  return sources.every((source) => {
    const built = join(CHECKOUT, 'dist', relative(join(CHECKOUT, 'src'), source)).replace(
      /\.ts$/,
      '.js',
    )
    return (statSync(built, { throwIfNoEntry: false })?.mtimeMs ?? 0) >= newest
  })
}

before(() => {
  assert.equal(PACKAGE.bin.coffer, 'dist/cli.js')
  symlinkSync(join(CHECKOUT, 'package.json'), join(PACKAGE_DIR, 'package.json'))
  symlinkSync(join(CHECKOUT, 'node_modules'), join(PACKAGE_DIR, 'node_modules'), 'dir')
  if (checkoutDistIsCurrent()) {
    cpSync(join(CHECKOUT, 'dist'), join(PACKAGE_DIR, 'dist'), { recursive: true })
  } else {
    // The service's half of `npm run build` (the dashboard's half is not needed here).
    const build = spawnSync(
      'npx',
      ['tsc', '-p', 'tsconfig.build.json', '--outDir', join(PACKAGE_DIR, 'dist')],
      { cwd: CHECKOUT, encoding: 'utf8' },
    )
    assert.equal(build.status, 0, `npm run build failed:\n${build.stdout}\n${build.stderr}`)
  }
  assert.ok(existsSync(CLI), 'the build did not produce dist/cli.js')
})

after(() => rmSync(PACKAGE_DIR, { recursive: true, force: true }))

interface Run {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

interface Sandbox {
  dir: string
  /** SERVICE_* variables pointing the program at a fresh database of the engine under test. */
  env: Record<string, string>
  /** Names the tables the database holds (to see what migrate did). */
  tables(): Promise<string[]>
  /** Runs one statement on the database, as another program would. */
  exec(statement: string): Promise<void>
}

/** A temp working directory and a fresh database (SQLite file, or PostgreSQL schema). */
async function sandbox(t: TestContext): Promise<Sandbox> {
  const { dir, dbPath, schema, env } = await processSandbox(
    t,
    'cli',
    join('nested', 'dir', 'coffer.db'),
  )
  return {
    dir,
    env,
    async exec(statement) {
      if (schema) {
        const client = new pg.Client({ connectionString: POSTGRES_DSN! })
        await client.connect()
        try {
          await client.query(`set search_path to "${schema}"`)
          await client.query(statement)
        } finally {
          await client.end()
        }
        return
      }
      const db = new SqliteDatabase(dbPath)
      try {
        db.exec(statement)
      } finally {
        db.close()
      }
    },
    async tables() {
      if (schema) {
        const client = new pg.Client({ connectionString: POSTGRES_DSN! })
        await client.connect()
        try {
          const res = await client.query<{ table_name: string }>(
            'select table_name from information_schema.tables where table_schema = $1',
            [schema],
          )
          return res.rows.map((r) => r.table_name).sort()
        } finally {
          await client.end()
        }
      }
      if (!existsSync(dbPath)) return []
      const db = new SqliteDatabase(dbPath, { readonly: true })
      try {
        const rows = db
          .prepare("select name from sqlite_master where type = 'table'")
          .all() as Array<{ name: string }>
        return rows.map((r) => r.name).sort()
      } finally {
        db.close()
      }
    },
  }
}

/** The parent's environment without any SERVICE_* variable, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SERVICE_')) out[name] = value
  }
  return { ...out, ...env }
}

function launch(args: string[], env: Record<string, string>, cwd: string): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

function collect(child: ChildProcess): { stdout: () => string; stderr: () => string } {
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  return { stdout: () => stdout, stderr: () => stderr }
}

function exited(child: ChildProcess, output: ReturnType<typeof collect>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`coffer did not exit in time:\n${output.stdout()}\n${output.stderr()}`))
    }, DEADLINE_MS)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout: output.stdout(), stderr: output.stderr() })
    })
  })
}

/** Runs a command to completion. */
async function run(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<Run> {
  const dir = cwd ?? mkdtempSync(join(tmpdir(), 'coffer-cli-cwd-'))
  try {
    const child = launch(args, env, dir)
    return await exited(child, collect(child))
  } finally {
    if (!cwd) rmSync(dir, { recursive: true, force: true })
  }
}

interface Server {
  url: string
  output(): string
  /** Sends SIGTERM and waits for the exit. */
  stop(): Promise<Run>
}

/** Starts `coffer serve` and reads its output until the listening line appears. */
async function serve(t: TestContext, env: Record<string, string>, cwd: string): Promise<Server> {
  const child = launch(['serve'], env, cwd)
  const output = collect(child)
  const done = exited(child, output)
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  const deadline = Date.now() + DEADLINE_MS
  const url = await new Promise<string>((resolve, reject) => {
    const check = (): boolean => {
      const match = /listening on (http:\/\/[^\s"]+)/.exec(output.stdout() + output.stderr())
      if (match) resolve(match[1]!)
      return match !== null
    }
    const timer = setInterval(() => {
      if (check()) clearInterval(timer)
      else if (Date.now() > deadline) {
        clearInterval(timer)
        child.kill('SIGKILL')
        reject(new Error(`no listening line in time:\n${output.stdout()}\n${output.stderr()}`))
      }
    }, 20)
    done.then((r) => {
      clearInterval(timer)
      if (!check()) reject(new Error(`coffer serve exited early (${r.code}):\n${r.stderr}`))
    }, reject)
  })
  return {
    url,
    output: () => output.stdout() + output.stderr(),
    async stop() {
      child.kill('SIGTERM')
      return done
    },
  }
}

async function healthz(url: string): Promise<string> {
  const res = await fetch(`${url}/healthz`)
  assert.equal(res.status, 200)
  return res.text()
}

test('--version prints the package version', async () => {
  const r = await run(['--version'])
  assert.equal(r.code, 0, r.stderr)
  assert.equal(r.stdout, `${PACKAGE.version}\n`)
})

test('--help lists the commands and exits 0', async () => {
  for (const args of [['--help'], ['-h'], ['help']]) {
    const r = await run(args)
    assert.equal(r.code, 0, r.stderr)
    for (const command of ['serve', 'sync', 'mcp', 'migrate', 'token']) {
      assert.match(r.stdout, new RegExp(`^ +${command} `, 'm'), `${args.join(' ')}: ${command}`)
    }
    assert.match(r.stdout, /--config <path>/)
  }
})

test('each command describes itself: coffer <command> --help, coffer help <command>', async () => {
  const commands = ['serve', 'sync', 'mcp', 'migrate', 'token', 'healthcheck', 'export', 'backup']
  const answers = await Promise.all(
    commands.flatMap((command) => [run([command, '--help']), run(['help', command])]),
  )
  for (const [i, command] of commands.entries()) {
    for (const r of answers.slice(2 * i, 2 * i + 2)) {
      assert.equal(r.code, 0, `${command}: ${r.stderr}`)
      assert.match(r.stdout, new RegExp(`^Usage: coffer ${command}`), command)
      assert.doesNotMatch(r.stdout, /^Commands:/m, `${command} printed the program's help`)
    }
  }
  const unknown = await run(['help', 'frobnicate'])
  assert.equal(unknown.code, 2)
  assert.match(unknown.stderr, /^coffer: unknown command "frobnicate"\n/)
})

test('no command prints the usage and exits non-zero', async () => {
  const r = await run([])
  assert.notEqual(r.code, 0)
  assert.match(r.stdout + r.stderr, /Usage: coffer/)
})

test('token prints a fresh dashboard token', async () => {
  const a = await run(['token'])
  const b = await run(['token'])
  assert.equal(a.code, 0, a.stderr)
  assert.match(a.stdout, /^\S{16,}\n$/)
  assert.match(b.stdout, /^\S{16,}\n$/)
  assert.notEqual(a.stdout, b.stdout)
})

test('a usage error (an unknown command or option, an extra argument) exits 2 and names it', async () => {
  const cases: Array<[string[], RegExp, RegExp]> = [
    [['frobnicate'], /^coffer: unknown command "frobnicate"\n/, /Usage: coffer <command>/],
    [
      ['serve', '--frobnicate'],
      /^coffer serve: Unknown option '--frobnicate'/,
      /Usage: coffer serve \[--config <path>\]/,
    ],
    [['--bogus'], /^coffer: Unknown option '--bogus'/, /Usage: coffer <command>/],
    [['token', 'extra'], /^coffer token: unexpected argument "extra"\n/, /Usage: coffer token/],
    [['migrate', 'now'], /^coffer migrate: unexpected argument "now"\n/, /Usage: coffer migrate/],
    [
      ['export', '--format', 'csv', '--bogus'],
      /^coffer export: Unknown option '--bogus'/,
      /Usage: coffer export --format/,
    ],
    [
      ['export', 'csv'],
      /^coffer export: Unexpected argument 'csv'/,
      /Usage: coffer export --format/,
    ],
  ]
  for (const [args, first, usage] of cases) {
    const r = await run(args)
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
    assert.equal(r.stdout, '', args.join(' '))
    assert.match(r.stderr, first)
    assert.match(r.stderr, usage)
  }
})

test('mcp serves stdio until its input closes, then exits 0 with nothing on stdout', async (t) => {
  // stdin is /dev/null here: the client "closes" at once (protocol: test/mcp-stdio.test.ts).
  const box = await sandbox(t)
  const r = await run(['mcp'], box.env, box.dir)
  assert.equal(r.code, 0, r.stderr)
  assert.equal(r.stdout, '')
})

test('sync with no source configured succeeds and prints a summary on stdout', async (t) => {
  const box = await sandbox(t)
  const r = await run(['sync'], box.env, box.dir)
  assert.equal(r.code, 0, r.stdout + r.stderr)
  assert.match(r.stdout, /^sync \S+: success/)
  assert.match(r.stdout, /no source is configured/)
})

test('migrate creates the database and is idempotent', async (t) => {
  const box = await sandbox(t)
  assert.deepEqual(await box.tables(), [])
  const r = await run(['migrate'], box.env, box.dir)
  assert.equal(r.code, 0, r.stderr + r.stdout)
  if (ENGINE === 'sqlite') assert.ok(existsSync(box.env.SERVICE_DATABASE_PATH!))
  const tables = await box.tables()
  for (const table of ['accounts', 'transactions', 'events', 'api_keys', 'stored_tokens']) {
    assert.ok(tables.includes(table), `migrate did not create ${table}: ${tables.join(', ')}`)
  }
  const again = await run(['migrate'], { ...box.env, SERVICE_BOGUS_KEY: '1' }, box.dir)
  assert.equal(again.code, 0, again.stderr + again.stdout)
  assert.deepEqual(await box.tables(), tables)
  // Logs and the configuration's warnings go to stderr, as every command's do.
  assert.equal(again.stdout, '')
  assert.match(again.stderr, /SERVICE_BOGUS_KEY/)
  assert.match(again.stderr, /database is up to date/)
  assert.doesNotMatch(again.stderr, /newer Coffer/)

  // A database a newer Coffer upgraded runs, and says so.
  await box.exec(
    "insert into coffer_migrations (name, applied_at) values ('0099-future', '2030-01-01T00:00:00Z')",
  )
  const older = await run(['migrate'], box.env, box.dir)
  assert.equal(older.code, 0, older.stderr)
  assert.match(older.stderr, /upgraded by a newer Coffer \(migrations 0099-future are unknown/)
})

test(
  'a SQLite file of another program is refused, not given Coffer’s tables beside its own',
  { skip: ENGINE === 'postgres' && 'a PostgreSQL schema may hold other programs’ tables' },
  async (t) => {
    const box = await sandbox(t)
    mkdirSync(dirname(box.env.SERVICE_DATABASE_PATH!), { recursive: true })
    await box.exec('create table foo (x); create table bar (y)')
    const r = await run(['migrate'], box.env, box.dir)
    assert.equal(r.code, 1, r.stderr)
    assert.match(
      r.stderr,
      /^coffer: database\.path: the SQLite file holds another program's tables \("bar", "foo"\) and no Coffer schema; point database\.path at a new file or at a Coffer database\n$/,
    )
    assert.deepEqual(await box.tables(), ['bar', 'foo'])
  },
)

test('serve prints the listening address, answers, and stops on SIGTERM with exit 0', async (t) => {
  const box = await sandbox(t)
  const server = await serve(t, { ...box.env, SERVICE_SERVER_ADDR: '127.0.0.1:0' }, box.dir)
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:[1-9]\d*$/)
  assert.match(server.output(), /listening on http:\/\/127\.0\.0\.1:\d+/)
  assert.equal(await healthz(server.url), 'ok')
  const ready = await fetch(`${server.url}/readyz`)
  assert.deepEqual(await ready.json(), { status: 'ready' })
  // A write lands, so the process is serving the real database.
  const created = await fetch(`${server.url}/api/v1/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'CLI', currency: 'USD' }),
  })
  assert.equal(created.status, 201, await created.text())
  // SPEC 5.3: with no token a warning is logged at startup.
  assert.match(server.output(), /no dashboard token/i)
  const r = await server.stop()
  assert.equal(r.signal, null)
  assert.equal(r.code, 0, r.stderr)
})

test('a database.path that is no SQLite database, or a folder, exits 1 naming the key and the path', async (t) => {
  const box = await sandbox(t)
  const notes = join(box.dir, 'notes.txt')
  writeFileSync(notes, 'not a database\n')
  for (const [path, reason] of [
    [notes, 'file is not a database'],
    [box.dir, 'unable to open database file'],
  ] as const) {
    const r = await run(
      ['migrate'],
      { ...box.env, SERVICE_DATABASE_DRIVER: 'sqlite', SERVICE_DATABASE_PATH: path },
      box.dir,
    )
    assert.equal(r.code, 1, r.stdout + r.stderr)
    const said = `database.path ${JSON.stringify(path)}: ${reason}`
    assert.ok(r.stderr.includes(said), r.stderr)
  }
})

test('a config file with an unknown key exits 1 naming the key', async (t) => {
  const box = await sandbox(t)
  const file = join(box.dir, 'custom.toml')
  writeFileSync(file, '[server]\nadr = "x"\n')
  const r = await run(['serve', '--config', file], box.env, box.dir)
  assert.equal(r.code, 1, r.stdout + r.stderr)
  assert.match(r.stderr, /server\.adr/)
  // The default ./coffer.toml is read too, and so is refused the same way.
  writeFileSync(join(box.dir, 'coffer.toml'), '[server]\nadr = "x"\n')
  const d = await run(['migrate'], box.env, box.dir)
  assert.equal(d.code, 1, d.stdout + d.stderr)
  assert.match(d.stderr, /server\.adr/)
  // Neither run touched the database.
  assert.deepEqual(await box.tables(), [])
})

test('a missing config file given with --config exits 1', async (t) => {
  const box = await sandbox(t)
  const r = await run(['serve', '--config', join(box.dir, 'nope.toml')], box.env, box.dir)
  assert.equal(r.code, 1, r.stdout + r.stderr)
  assert.match(r.stderr, /nope\.toml/)
})

test('a wrong type in the environment exits 1 naming the variable', async (t) => {
  const box = await sandbox(t)
  const r = await run(
    ['serve'],
    { ...box.env, SERVICE_SERVER_ADDR: '127.0.0.1:0', SERVICE_WEBHOOKS_MAX_ATTEMPTS: 'five' },
    box.dir,
  )
  assert.equal(r.code, 1, r.stdout + r.stderr)
  assert.match(r.stderr, /SERVICE_WEBHOOKS_MAX_ATTEMPTS/)
  assert.doesNotMatch(r.stdout + r.stderr, /listening on/)
})

test('serve refuses to bind beyond loopback without a token (SPEC 5.3)', async (t) => {
  const box = await sandbox(t)
  const r = await run(['serve'], { ...box.env, SERVICE_SERVER_ADDR: '0.0.0.0:0' }, box.dir)
  assert.equal(r.code, 1, r.stdout + r.stderr)
  assert.match(r.stderr, /0\.0\.0\.0:0/)
  assert.match(r.stderr, /dashboard\.token/)
  assert.match(r.stderr, /allow_unauthenticated/)
  assert.doesNotMatch(r.stdout + r.stderr, /listening on/)
})

test('serve binds beyond loopback when allowed unauthenticated', async (t) => {
  const box = await sandbox(t)
  const server = await serve(
    t,
    {
      ...box.env,
      SERVICE_SERVER_ADDR: '0.0.0.0:0',
      SERVICE_SERVER_ALLOW_UNAUTHENTICATED: 'true',
    },
    box.dir,
  )
  const port = new URL(server.url).port
  assert.equal(await healthz(`http://127.0.0.1:${port}`), 'ok')
  const r = await server.stop()
  assert.equal(r.code, 0, r.stderr)
})

test('serve binds beyond loopback with a token printed by coffer token', async (t) => {
  const box = await sandbox(t)
  const token = (await run(['token'])).stdout.trim()
  const server = await serve(
    t,
    { ...box.env, SERVICE_SERVER_ADDR: '0.0.0.0:0', SERVICE_DASHBOARD_TOKEN: token },
    box.dir,
  )
  const base = `http://127.0.0.1:${new URL(server.url).port}`
  assert.equal(await healthz(base), 'ok')
  const denied = await fetch(`${base}/api/v1/accounts`)
  assert.equal(denied.status, 401)
  const allowed = await fetch(`${base}/api/v1/accounts`, {
    headers: { authorization: `Bearer ${token}` },
  })
  assert.equal(allowed.status, 200, await allowed.text())
  assert.ok(!server.output().includes(token), 'the token appears in the log')
  const r = await server.stop()
  assert.equal(r.code, 0, r.stderr)
})

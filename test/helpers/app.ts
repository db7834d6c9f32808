// Boots the real service (app.ts) on 127.0.0.1 with a fresh database: a temp
// SQLite file, or a fresh schema on PostgreSQL when COFFER_TEST_POSTGRES_DSN is
// set, so that the same suite runs on both engines. Stops itself after the test.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import type { TestContext } from 'node:test'
import pg from 'pg'
import { startApp, type RunningApp } from '../../src/app.js'
import { loadConfig } from '../../src/config/index.js'
import type { Clock } from '../../src/clock.js'
import { createLogger } from '../../src/log.js'

export const POSTGRES_DSN = process.env.COFFER_TEST_POSTGRES_DSN || null
export const ENGINE = POSTGRES_DSN ? 'postgres' : 'sqlite'

export interface TestApp extends RunningApp {
  dir: string
  /** Every log line the service wrote, for checks that no secret leaks. */
  logs: string[]
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>
  stop(): Promise<void>
}

export interface RequestOptions {
  body?: unknown
  /** Sent as-is (for malformed bodies); overrides `body`. */
  rawBody?: string
  token?: string
  headers?: Record<string, string>
}

export interface TestResponse {
  status: number
  headers: Headers
  text: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
}

export interface TestAppOptions {
  /** Extra SERVICE_* variables, e.g. { SERVICE_DASHBOARD_TOKEN: '…' }. */
  env?: Record<string, string>
  clock?: Clock
  /** A TOML configuration file to read before the environment. */
  configFile?: string
  /** Reuse a database (directory or schema) of an earlier app, to test restarts. */
  reuse?: { dir: string; schema: string | null }
  /** Delay of the first release feed check (15 s in the service). */
  firstUpdateCheckMs?: number
  /** What POST /system/restart asks for; without it the route answers 503 (no `coffer serve`). */
  onRestart?: () => void
}

export interface TestAppHandle extends TestApp {
  schema: string | null
}

/** Creates a fresh, empty PostgreSQL schema (needs COFFER_TEST_POSTGRES_DSN). */
export async function createSchema(): Promise<string> {
  const schema = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const client = new pg.Client({ connectionString: POSTGRES_DSN! })
  await client.connect()
  await client.query(`create schema ${schema}`)
  await client.end()
  return schema
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_DSN! })
  await client.connect()
  await client.query(`drop schema if exists ${schema} cascade`)
  await client.end()
}

/** The test DSN with search_path pinned to `schema`, e.g. for a spawned `coffer`. */
export function dsnWithSchema(schema: string): string {
  const url = new URL(POSTGRES_DSN!)
  url.searchParams.set('options', `-c search_path=${schema}`)
  return url.toString()
}

/** Requests to a running service at `baseUrl`, as the tests send them (JSON, a bearer token). */
export function requester(baseUrl: string): TestApp['request'] {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers }
    let body: string | undefined
    if (opts.rawBody !== undefined) body = opts.rawBody
    else if (opts.body !== undefined) body = JSON.stringify(opts.body)
    if (
      body !== undefined &&
      !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')
    ) {
      headers['content-type'] = 'application/json'
    }
    if (opts.token) headers.authorization = `Bearer ${opts.token}`
    const res = await fetch(baseUrl + path, { method, headers, body })
    const text = await res.text()
    let parsed: unknown = undefined
    if (text && (res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text)
    return { status: res.status, headers: res.headers, text, body: parsed }
  }
}

export async function startTestApp(
  t: TestContext | null,
  options: TestAppOptions = {},
): Promise<TestAppHandle> {
  const dir = options.reuse?.dir ?? mkdtempSync(join(tmpdir(), 'coffer-test-'))
  const schema = options.reuse ? options.reuse.schema : POSTGRES_DSN ? await createSchema() : null
  const env: Record<string, string> = {
    SERVICE_SERVER_ADDR: '127.0.0.1:0',
    SERVICE_DATA_DIR: join(dir, 'data'),
    SERVICE_DATABASE_PATH: join(dir, 'coffer.db'),
    SERVICE_PLUGINS_DIR: join(dir, 'plugins'),
    SERVICE_LOG_LEVEL: 'info',
    SERVICE_LOG_FORMAT: 'json',
    SERVICE_SYNC_INTERVAL: '0',
    // Tests send wrong credentials on purpose, many from one address; the
    // brute-force limit itself is tested with its own value (test/abuse.test.ts).
    SERVICE_AUTH_MAX_FAILURES: '100000',
    ...(schema
      ? { SERVICE_DATABASE_DRIVER: 'postgres', SERVICE_DATABASE_DSN: dsnWithSchema(schema) }
      : {}),
    ...options.env,
  }
  const { config, source } = loadConfig({ file: options.configFile ?? null, env })
  const logs: string[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean))
      cb()
    },
  })
  const logger = createLogger({ level: config.log.level, format: 'json', destination: sink })
  const app = await startApp({
    config,
    source,
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.onRestart ? { onRestart: options.onRestart } : {}),
    ...(options.firstUpdateCheckMs !== undefined
      ? { firstUpdateCheckMs: options.firstUpdateCheckMs }
      : {}),
  })
  let stopped = false
  const handle: TestAppHandle = {
    ...app,
    dir,
    schema,
    logs,
    request: requester(app.url),
    async stop() {
      if (stopped) return
      stopped = true
      await app.close()
    },
  }
  t?.after(async () => {
    await handle.stop()
    if (!options.reuse) {
      if (schema) await dropSchema(schema)
      rmSync(dir, { recursive: true, force: true })
    }
  })
  return handle
}

/** A temp directory and a fresh database for a `coffer` process, with the environment that points it there. */
export interface ProcessSandbox {
  dir: string
  dbPath: string
  schema: string | null
  /** SERVICE_* variables: data dir, database (SQLite file or PostgreSQL schema), no schedule. */
  env: Record<string, string>
}

/** Removed (directory and schema) after the test. `dbPath` is relative to the directory. */
export async function processSandbox(
  t: TestContext,
  label: string,
  dbPath = 'coffer.db',
): Promise<ProcessSandbox> {
  const dir = mkdtempSync(join(tmpdir(), `coffer-${label}-`))
  const schema = POSTGRES_DSN ? await createSchema() : null
  t.after(async () => {
    if (schema) await dropSchema(schema)
    rmSync(dir, { recursive: true, force: true })
  })
  const path = join(dir, dbPath)
  const env: Record<string, string> = {
    SERVICE_DATA_DIR: join(dir, 'data'),
    SERVICE_DATABASE_PATH: path,
    SERVICE_SYNC_INTERVAL: '0',
    ...(schema
      ? { SERVICE_DATABASE_DRIVER: 'postgres', SERVICE_DATABASE_DSN: dsnWithSchema(schema) }
      : {}),
  }
  return { dir, dbPath: path, schema, env }
}

/** The first `start` makes a fresh database; each later one reuses it. */
export interface SharedDatabase {
  start(options?: Omit<TestAppOptions, 'reuse'>): Promise<TestAppHandle>
}

/**
 * Services on one database (processes sharing PostgreSQL, or a restart), all stopped
 * before the database is removed: `startTestApp(t)` would remove it under the others.
 */
export function sharedDatabase(t: TestContext): SharedDatabase {
  const apps: TestAppHandle[] = []
  t.after(async () => {
    for (const app of [...apps].reverse()) await app.stop()
    const first = apps[0]
    if (first?.schema) await dropSchema(first.schema)
    if (first) rmSync(first.dir, { recursive: true, force: true })
  })
  return {
    async start(options = {}) {
      const first = apps[0]
      const app = await startTestApp(null, {
        ...options,
        ...(first ? { reuse: { dir: first.dir, schema: first.schema } } : {}),
      })
      apps.push(app)
      return app
    },
  }
}

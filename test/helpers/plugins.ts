// Real plugin folders for the plugin tests: plugin.toml and an entrypoint
// written into the test app's plugins.dir (SERVICE_PLUGINS_DIR, helpers/app.ts).
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TestApp } from './app.js'

export interface PluginFiles {
  hooks: string[]
  capabilities?: string[]
  code: string
  entrypoint?: string
  version?: string
  /** Extra TOML appended to the manifest ([config], [ui], [net] tables). */
  extra?: string
}

/** The plugin tools /mcp offers, listed once for mcp-http's catalogue and plugins-net's check. */
export const PLUGIN_MCP_TOOL_NAMES: readonly string[] = [
  'list_plugins',
  'get_plugin',
  'enable_plugin',
  'disable_plugin',
  'reload_plugin',
  'uninstall_plugin',
  'browse_plugin_registry',
  'install_plugin',
  'render_plugin_page',
]

export function pluginsDir(app: Pick<TestApp, 'ctx'>): string {
  return app.ctx.config.plugins.dir
}

/** Writes `<plugins.dir>/<name>/plugin.toml` and its entrypoint; answers the folder. */
export function writePlugin(app: Pick<TestApp, 'ctx'>, name: string, files: PluginFiles): string {
  const dir = join(pluginsDir(app), name)
  mkdirSync(dir, { recursive: true })
  const entrypoint = files.entrypoint ?? 'main.js'
  const list = (items: string[]) => `[${items.map((i) => JSON.stringify(i)).join(', ')}]`
  writeFileSync(
    join(dir, 'plugin.toml'),
    [
      `name = "${name}"`,
      `version = "${files.version ?? '1.0.0'}"`,
      `description = "test plugin ${name}"`,
      `author = "tests"`,
      `runtime = "js"`,
      `entrypoint = "${entrypoint}"`,
      `hooks = ${list(files.hooks)}`,
      `capabilities = ${list(files.capabilities ?? [])}`,
      files.extra ?? '',
    ].join('\n'),
  )
  writeFileSync(join(dir, entrypoint), files.code)
  return dir
}

/** Polls GET /plugins/{name} until `done` holds (hooks run in the background). */
/** Polls `probe` until it answers something (plugin hooks and their writes land asynchronously). */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export async function waitForPlugin(
  app: TestApp,
  name: string,
  done: (plugin: Record<string, unknown>) => boolean,
  token?: string,
  timeoutMs = 20_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const res = await app.request('GET', `/api/v1/plugins/${name}`, token ? { token } : {})
    if (res.status === 200 && done(res.body)) return res.body
    if (Date.now() > deadline)
      throw new Error(`plugin ${name} did not get there: ${JSON.stringify(res.body)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A manual account (as the dashboard token `token`); answers its id. */
export async function newAccount(app: TestApp, token: string): Promise<string> {
  const res = await app.request('POST', '/api/v1/accounts', {
    token,
    body: { name: 'Checking', currency: 'USD' },
  })
  if (res.status !== 201) throw new Error(`creating an account: ${res.status} ${res.text}`)
  return res.body.id as string
}

/** A manual transaction (defaults: -12.34 on 2026-11-01); answers its id. */
export async function newTransaction(
  app: TestApp,
  token: string,
  body: Record<string, unknown>,
): Promise<string> {
  const res = await app.request('POST', '/api/v1/transactions', {
    token,
    body: { amount: '-12.34', date: '2026-11-01', ...body },
  })
  if (res.status !== 201) throw new Error(`creating a transaction: ${res.status} ${res.text}`)
  return res.body.id as string
}

// The plugin manager (CONTRACT 9): finds plugins in plugins.dir, keeps what is
// stored about them (store.ts), runs each enabled one in its sandbox, and feeds
// its event hooks from the log (hooks.ts, a batch at a time: batches.ts) in the
// process that holds the plugin lease (index.ts). Pages and actions run in
// whichever process is asked. Outcomes and health: health.ts.
import { randomUUID } from 'node:crypto'
import { readdir, rename, rm, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { BundleError, bundlePlugin } from './bundle.js'
import type { Logger } from 'pino'
import type { ServiceContext } from '../context.js'
import { BadGateway, Invalid, NotFound, Unavailable } from '../errors.js'
import { logHead } from '../events/store.js'
import { announceChange } from '../db/coordination.js'
import { isoNow } from '../clock.js'
import { parseDuration } from '../config/index.js'
import type { PluginJson, RenderedPageJson } from '../schemas/plugins.js'
import { HookRunner } from './hooks.js'
import { callHost, type HostDeps, type PluginHostState } from './host.js'
import {
  isBareHost,
  ManifestError,
  NET_ALLOW_MAX,
  PLUGIN_NAME,
  readManifest,
  type HookName,
} from './manifest.js'
import { checkPage, PageError } from './pages.js'
import { effectiveConfig, hasPage, Plugin, pluginJson } from './plugin.js'
import type { WriteBatch } from './writes.js'
import { EventBatches } from './batches.js'
import { PluginHealth } from './health.js'
import { recoverInterruptedInstalls } from './marketplace.js'
import { PluginSandbox, SandboxLoadError, type CallOutcome } from './sandbox/index.js'
import {
  deletePluginRow,
  grantsOf,
  readPluginRow,
  readPluginRows,
  saveCursor,
  savePluginRow,
  storedConfigOf,
  type PluginRow,
} from './store.js'

const ENTRYPOINT_MAX_BYTES = 5 * 1024 * 1024
/** Processes sharing PostgreSQL hear of each other's enables and disables on this channel. */
export const PLUGINS_CHANNEL = 'coffer_plugins'

export class PluginManager {
  private readonly plugins = new Map<string, Plugin>()
  private hooksOn = false
  /** Lifecycle changes run one at a time. */
  private lifecycle: Promise<unknown> = Promise.resolve()
  private readonly log: Logger
  private readonly health: PluginHealth
  private readonly batches: EventBatches

  constructor(
    private readonly ctx: ServiceContext,
    private readonly host: HostDeps,
  ) {
    this.log = ctx.log.child({ part: 'plugins' })
    this.health = new PluginHealth(ctx, this.log)
    this.batches = new EventBatches(
      ctx,
      this.health,
      (plugin, batch, work) => this.inTurn(plugin, batch, work),
      this.log,
    )
  }

  get dir(): string {
    return resolve(this.ctx.config.plugins.dir)
  }

  /** Scans the folder and loads every enabled plugin. */
  async start(): Promise<void> {
    await this.serial(async () => {
      await recoverInterruptedInstalls(this.dir, this.log)
      try {
        await this.scan()
      } catch (error) {
        // The ledger serves on without plugins, and so do the settings that can
        // point plugins.dir elsewhere; the plugin routes answer 503 naming it.
        if (!(error instanceof Unavailable)) throw error
        this.log.error(error.message)
        return
      }
      const rows = await readPluginRows(this.ctx.db.kysely)
      for (const plugin of this.plugins.values()) {
        if (rows.get(plugin.name)?.enabled && plugin.manifest) await this.load(plugin)
      }
    })
  }

  async stop(): Promise<void> {
    await this.serial(async () => {
      await this.stopHooks()
      for (const plugin of this.plugins.values()) await this.unload(plugin)
    })
  }

  /** Starts (or stops) following the log for every loaded plugin. */
  async runHooks(on: boolean): Promise<void> {
    await this.serial(async () => {
      this.hooksOn = on
      if (!on) return this.stopHooks()
      const rows = await readPluginRows(this.ctx.db.kysely)
      for (const plugin of this.plugins.values()) {
        const row = rows.get(plugin.name)
        if (row?.enabled && plugin.sandbox) await this.startHooks(plugin, row)
      }
    })
  }

  // ---- reads -------------------------------------------------------------

  async list(): Promise<{ enabled: boolean; plugins: PluginJson[] }> {
    if (!this.ctx.config.plugins.enabled) return { enabled: false, plugins: [] }
    return this.serial(async () => {
      await this.scan()
      const rows = await readPluginRows(this.ctx.db.kysely)
      const names = new Set([...this.plugins.keys(), ...rows.keys()])
      const plugins = [...names].sort().map((name) => this.json(name, rows.get(name) ?? null))
      return { enabled: true, plugins }
    })
  }

  async get(name: string): Promise<PluginJson> {
    this.checkName(name)
    return this.serial(async () => {
      await this.scan()
      const row = await readPluginRow(this.ctx.db.kysely, name)
      if (!this.plugins.has(name) && !row) throw new NotFound(`plugin ${name} not found`)
      return this.json(name, row)
    })
  }

  // ---- lifecycle ---------------------------------------------------------

  async enable(name: string, grants: string[] = []): Promise<PluginJson> {
    this.checkName(name)
    for (const host of grants)
      if (!isBareHost(host))
        throw new Invalid(
          `net_grants: ${JSON.stringify(host)} is not a bare host name or IP address`,
        )
    if (grants.length > NET_ALLOW_MAX)
      throw new Invalid(`net_grants: at most ${NET_ALLOW_MAX} hosts`)
    return this.serial(async () => {
      await this.scan()
      const plugin = this.found(name)
      const db = this.ctx.db.kysely
      const row = await readPluginRow(db, name)
      // First enable: start at the log's head (a plugin is not handed history).
      const cursor = row?.cursor ?? (await logHead(db))
      await savePluginRow(
        db,
        name,
        { enabled: 1, net_grants: JSON.stringify(grants.map((h) => h.toLowerCase())), cursor },
        this.now(),
      )
      this.log.info({ plugin: name, net_grants: grants }, 'plugins: enabled')
      this.announce()
      await this.unload(plugin)
      await this.readFiles(plugin)
      if (plugin.manifest) await this.load(plugin)
      return this.json(name, await readPluginRow(db, name))
    })
  }

  async disable(name: string): Promise<PluginJson> {
    this.checkName(name)
    return this.serial(async () => {
      await this.scan()
      const db = this.ctx.db.kysely
      if (!this.plugins.has(name) && !(await readPluginRow(db, name)))
        throw new NotFound(`plugin ${name} not found`)
      const plugin = this.plugins.get(name)
      if (plugin) await this.unload(plugin)
      // A sandbox that failed to start is no longer a problem once disabled; a bad manifest stays one.
      if (plugin?.manifest) plugin.problem = null
      await savePluginRow(db, name, { enabled: 0 }, this.now())
      this.log.info({ plugin: name }, 'plugins: disabled')
      this.announce()
      return this.json(name, await readPluginRow(db, name))
    })
  }

  async reload(name: string): Promise<PluginJson> {
    this.checkName(name)
    return this.serial(async () => {
      await this.scan()
      const plugin = this.found(name)
      await this.unload(plugin)
      await this.readFiles(plugin)
      const row = await readPluginRow(this.ctx.db.kysely, name)
      if (row?.enabled && plugin.manifest) await this.load(plugin)
      this.log.info({ plugin: name, problem: plugin.problem }, 'plugins: reloaded')
      return this.json(name, row)
    })
  }

  /**
   * Runs onUninstall (bounded by the hook timeout, whatever it does), then
   * removes the files and the row.
   */
  async uninstall(name: string): Promise<void> {
    this.checkName(name)
    await this.serial(async () => {
      await this.scan()
      const db = this.ctx.db.kysely
      const plugin = this.plugins.get(name)
      const row = await readPluginRow(db, name)
      if (!plugin && !row) throw new NotFound(`plugin ${name} not found`)
      if (plugin?.code && plugin.manifest?.hooks.includes('onUninstall')) {
        if (!plugin.sandbox) await this.startSandbox(plugin, row).catch(() => undefined)
        if (plugin.sandbox) {
          const outcome = await this.call(plugin, 'onUninstall', {})
          this.log.info({ plugin: name, status: outcome.status }, 'plugins: onUninstall ran')
        }
      }
      if (plugin) await this.unload(plugin)
      this.plugins.delete(name)
      // Aside first, then removed: the folder is gone at once even if removal is slow.
      const aside = join(this.dir, `.removed-${name}-${randomUUID().slice(0, 8)}`)
      await rename(join(this.dir, name), aside).catch(() => undefined)
      await rm(aside, { recursive: true, force: true })
      await deletePluginRow(db, name)
      this.host.egress.forget(name)
      this.log.info({ plugin: name }, 'plugins: uninstalled')
      this.announce()
    })
  }

  // ---- pages -------------------------------------------------------------

  async pages(): Promise<
    Array<{ name: string; plugin: string; title: string; icon: string | null }>
  > {
    if (!this.ctx.config.plugins.enabled) return []
    return this.serial(async () => {
      await this.scan()
      const rows = await readPluginRows(this.ctx.db.kysely)
      return [...this.plugins.values()]
        .filter((p) => rows.get(p.name)?.enabled && p.manifest && hasPage(p.manifest))
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map((p) => ({
          name: p.name,
          plugin: p.name,
          title: p.manifest!.ui.title,
          icon: p.manifest!.ui.icon,
        }))
    })
  }

  async renderPage(name: string, params: Record<string, unknown>): Promise<RenderedPageJson> {
    return this.runPage(name, 'onPageRender', { params })
  }

  async pageAction(
    name: string,
    action: string,
    params: Record<string, unknown>,
  ): Promise<RenderedPageJson> {
    return this.runPage(name, 'onPageAction', { action, params })
  }

  private async runPage(name: string, hook: HookName, arg: unknown): Promise<RenderedPageJson> {
    this.checkName(name)
    const plugin = await this.serial(async () => {
      const row = await readPluginRow(this.ctx.db.kysely, name)
      let found = this.plugins.get(name)
      if (!found || !row?.enabled) {
        await this.scan()
        found = this.plugins.get(name)
      }
      if (!found || !row?.enabled || !found.manifest || !hasPage(found.manifest))
        throw new NotFound(`no page ${name}: no enabled plugin of that name has a page`)
      // Another process may have enabled it: load it here too.
      if (!found.sandbox && !found.problem) await this.load(found)
      return found
    })
    if (!plugin.manifest!.hooks.includes(hook))
      throw new NotFound(`plugin ${name} has no ${hook} hook`)
    if (plugin.problem && !plugin.sandbox)
      throw new BadGateway(`plugin ${name} cannot run: ${plugin.problem}`)
    // Recorded here once the page passed its check, not as a bare successful call.
    const outcome = await this.call(plugin, hook, arg, { record: false })
    if (outcome.status !== 'ok') {
      await this.health.record(plugin, outcome.status, `${hook}: ${outcome.message}`)
      throw new BadGateway(`plugin ${name}: ${hook} failed (${outcome.status}): ${outcome.message}`)
    }
    try {
      const page = await checkPage(outcome.value)
      await this.health.record(plugin, 'ok', null)
      return { name, page }
    } catch (error) {
      if (!(error instanceof PageError)) throw error
      await this.health.record(plugin, 'error', `${hook}: ${error.message}`)
      throw new BadGateway(
        `plugin ${name}: ${hook} returned a page that cannot be shown: ${error.message}`,
      )
    }
  }

  /** The installed version of each plugin folder (for the marketplace). */
  async installedVersions(): Promise<Map<string, string | null>> {
    return this.serial(async () => {
      await this.scan()
      return new Map([...this.plugins.values()].map((p) => [p.name, p.manifest?.version ?? null]))
    })
  }

  /** After the marketplace swapped a folder in: an update keeps its enabled state and reloads. */
  async installed(name: string, replaced: boolean): Promise<PluginJson> {
    if (replaced) return this.reload(name)
    return this.get(name)
  }

  /** Resolves once the plugin's hooks dealt with every event up to `sequence` (tests, bench). */
  async whenHandled(name: string, sequence: number): Promise<void> {
    const runner = this.plugins.get(name)?.runner
    if (!runner) throw new Error(`plugins: ${name} runs no hooks in this process`)
    await runner.whenHandled(sequence)
  }

  /**
   * Each plugin whose hooks run in this process: the events in the log after
   * its cursor (GET /metrics, `service_plugin_lag_events`).
   */
  async lags(): Promise<Map<string, number>> {
    const running = [...this.plugins.values()].filter((plugin) => plugin.runner)
    if (running.length === 0) return new Map()
    const head = await logHead(this.ctx.db.kysely)
    return new Map(
      running.map((plugin) => [plugin.name, Math.max(0, head - (plugin.runner?.cursor ?? head))]),
    )
  }

  // ---- inside ------------------------------------------------------------

  /**
   * Another process enabled, disabled or removed a plugin (PostgreSQL): load what
   * is enabled and not loaded here, unload what is no longer enabled.
   */
  async resync(): Promise<void> {
    await this.serial(async () => {
      await this.scan()
      const rows = await readPluginRows(this.ctx.db.kysely)
      for (const plugin of this.plugins.values()) {
        const row = rows.get(plugin.name)
        if (row?.enabled && !plugin.sandbox && plugin.manifest && !plugin.problem)
          await this.load(plugin)
        else if (!row?.enabled && plugin.sandbox) await this.unload(plugin)
      }
    })
  }

  private announce(): void {
    announceChange(this.ctx.db.kysely, PLUGINS_CHANNEL).catch((error: unknown) =>
      this.log.warn({ err: error }, 'plugins: could not announce a change'),
    )
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lifecycle.then(work)
    this.lifecycle = run.catch(() => undefined)
    return run
  }

  private now(): string {
    return isoNow(this.ctx.clock)
  }

  private checkName(name: string): void {
    if (!this.ctx.config.plugins.enabled)
      throw new NotFound('plugins are turned off (plugins.enabled = false)')
    if (!PLUGIN_NAME.test(name)) throw new NotFound(`plugin ${name} not found`)
  }

  private found(name: string): Plugin {
    const plugin = this.plugins.get(name)
    if (!plugin) throw new NotFound(`plugin ${name} not found in ${this.ctx.config.plugins.dir}`)
    return plugin
  }

  /** Reads the folder: new plugins appear (disabled), removed ones go. Running ones keep running. */
  private async scan(): Promise<void> {
    let names: string[] = []
    try {
      const entries = await readdir(this.dir, { withFileTypes: true })
      names = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unusableFolder(this.dir, error)
    }
    for (const name of names) {
      if (this.plugins.has(name)) continue
      const plugin = new Plugin(name, join(this.dir, name))
      await this.readFiles(plugin)
      this.plugins.set(name, plugin)
    }
    for (const plugin of [...this.plugins.values()]) {
      if (names.includes(plugin.name)) continue
      await this.unload(plugin)
      this.plugins.delete(plugin.name)
    }
  }

  /** Reads plugin.toml and bundles the entrypoint (bundle.ts); a problem is kept, not thrown. */
  private async readFiles(plugin: Plugin): Promise<void> {
    plugin.manifest = null
    plugin.code = null
    plugin.problem = null
    try {
      if (!PLUGIN_NAME.test(plugin.name))
        throw new ManifestError('name: the folder name must match ^[a-z0-9][a-z0-9_-]{0,63}$')
      const manifest = await readManifest(plugin.dir, plugin.name)
      const file = join(plugin.dir, manifest.entrypoint)
      const info = await stat(file).catch(() => null)
      if (!info?.isFile()) throw new ManifestError(`entrypoint: ${manifest.entrypoint} is missing`)
      if (info.size > ENTRYPOINT_MAX_BYTES)
        throw new ManifestError(`entrypoint: ${manifest.entrypoint} is over 5 MiB`)
      // Kept even when the code does not bundle: the list still shows what the plugin is.
      plugin.manifest = manifest
      plugin.code = await bundlePlugin(plugin.dir, manifest.entrypoint)
    } catch (error) {
      plugin.problem =
        error instanceof ManifestError
          ? `plugin.toml: ${error.message}`
          : error instanceof BundleError
            ? `entrypoint: ${error.message}`
            : `${plugin.name}: ${(error as { message?: string }).message ?? String(error)}`
    }
  }

  private hostState(plugin: Plugin, row: PluginRow | null): PluginHostState {
    const manifest = plugin.manifest!
    let stored = storedConfigOf(row)
    const effective = () => effectiveConfig(manifest, stored)
    return {
      manifest,
      grants: grantsOf(row),
      batch: () => plugin.batch,
      log: this.ctx.log.child({ plugin: plugin.name }),
      config: effective,
      saveConfig: async (changes) => {
        stored = { ...stored, ...changes }
        await savePluginRow(
          this.ctx.db.kysely,
          plugin.name,
          { config: JSON.stringify(stored) },
          this.now(),
        )
        return effective()
      },
    }
  }

  private async startSandbox(plugin: Plugin, row: PluginRow | null): Promise<void> {
    const state = this.hostState(plugin, row)
    const { plugins } = this.ctx.config
    const { sandbox, exports } = await PluginSandbox.start(
      {
        name: plugin.name,
        code: plugin.code!,
        filename: plugin.manifest!.entrypoint,
        config: JSON.stringify(state.config()),
        memoryBytes: plugins.memory_mib * 1024 * 1024,
        timeoutMs: parseDuration(plugins.hook_timeout),
        capabilities: [...plugin.manifest!.capabilities],
      },
      (method, args) => callHost(this.host, state, method, args),
    )
    const missing = plugin.manifest!.hooks.filter((hook) => !exports.includes(hook))
    if (missing.length > 0) {
      await sandbox.close()
      throw new SandboxLoadError(
        'error',
        `hooks: ${missing.join(', ')} listed in plugin.toml but not exported by ${plugin.manifest!.entrypoint}`,
      )
    }
    plugin.sandbox = sandbox
  }

  /** Starts the sandbox of an enabled plugin (and its hooks where this process runs them). */
  private async load(plugin: Plugin): Promise<void> {
    // Code that did not bundle stays in "error" with its problem until a reload.
    if (!plugin.code) return
    const row = await readPluginRow(this.ctx.db.kysely, plugin.name)
    try {
      await this.startSandbox(plugin, row)
      plugin.problem = null
    } catch (error) {
      const status = error instanceof SandboxLoadError ? error.status : 'error'
      plugin.problem = `loading failed (${status}): ${(error as Error).message}`
      this.log.warn({ plugin: plugin.name, status }, `plugins: ${plugin.problem}`)
      await this.health.record(plugin, status, plugin.problem)
      return
    }
    if (this.hooksOn && row) await this.startHooks(plugin, row)
  }

  private async startHooks(plugin: Plugin, row: PluginRow): Promise<void> {
    if (plugin.runner || !plugin.manifest) return
    const cursor = row.cursor ?? (await logHead(this.ctx.db.kysely))
    const runner = new HookRunner(
      this.ctx,
      {
        name: plugin.name,
        hooks: plugin.manifest.hooks,
        runBatch: (calls, signal) => this.batches.runBatch(plugin, calls, signal),
        prepare: (calls) => this.batches.prepare(plugin, calls),
        writePending: () => this.batches.writePending(plugin),
        saveCursor: (sequence) => saveCursor(this.ctx.db.kysely, plugin.name, sequence),
      },
      cursor,
    )
    plugin.runner = runner
    runner.start()
  }

  private async stopHooks(): Promise<void> {
    for (const plugin of this.plugins.values()) {
      const runner = plugin.runner
      plugin.runner = null
      await runner?.stop()
    }
  }

  private async unload(plugin: Plugin): Promise<void> {
    const runner = plugin.runner
    plugin.runner = null
    await runner?.stop()
    // After the calls queued on it.
    await plugin.turn
    if (plugin.healthDirty) await this.health.saveHealth(plugin)
    const sandbox = plugin.sandbox
    plugin.sandbox = null
    await sandbox?.close()
  }

  /** Calls one hook (a page, an action, onUninstall) and records its outcome on the plugin. */
  private async call(
    plugin: Plugin,
    hook: HookName,
    arg: unknown,
    options: { record: boolean } = { record: true },
  ): Promise<CallOutcome> {
    const result = await this.inTurn(plugin, null, (sandbox) => sandbox.call(hook, arg))
    const outcome: CallOutcome =
      'problem' in result ? { status: 'error', message: result.problem } : result
    this.health.countRuns(plugin, outcome.status, 1)
    if (outcome.status === 'ok') {
      if (options.record) await this.health.record(plugin, 'ok', null)
    } else await this.health.recordFailure(plugin, hook, outcome, options)
    return outcome
  }

  /**
   * Runs `work` on the plugin's sandbox when its turn comes (one call or batch
   * at a time), starting a fresh sandbox first when the last one broke a limit.
   * Host calls made meanwhile keep their writes in `batch` (null: written at once).
   */
  private inTurn<T>(
    plugin: Plugin,
    batch: WriteBatch | null,
    work: (sandbox: PluginSandbox) => Promise<T>,
  ): Promise<T | { problem: string }> {
    const run = plugin.turn.then(async (): Promise<T | { problem: string }> => {
      if (plugin.sandbox?.broken) {
        await plugin.sandbox.close()
        plugin.sandbox = null
        try {
          await this.startSandbox(plugin, await readPluginRow(this.ctx.db.kysely, plugin.name))
        } catch (error) {
          plugin.problem = `restarting the sandbox failed: ${(error as Error).message}`
          return { problem: plugin.problem }
        }
      }
      if (!plugin.sandbox) return { problem: 'the plugin is not loaded' }
      plugin.batch = batch
      try {
        return await work(plugin.sandbox)
      } finally {
        plugin.batch = null
      }
    })
    plugin.turn = run.catch(() => undefined)
    return run
  }

  private json(name: string, row: PluginRow | null): PluginJson {
    return pluginJson(name, this.plugins.get(name), row)
  }
}

/** Why plugins.dir cannot be read, in words that name the key; fs says only "ENOTDIR". */
function unusableFolder(dir: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code ?? ''
  const reasons: Record<string, string> = {
    ENOTDIR: 'it or a folder above it is a file',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    ELOOP: 'too many symbolic links',
    ENAMETOOLONG: 'the path is too long',
  }
  const reason = reasons[code]
  if (reason === undefined) return error
  return new Unavailable(
    `plugins.dir ${dir} cannot be read: ${reason} (${code}); set plugins.dir to a folder (docs/plugins.md)`,
  )
}

// plugins/ (CONTRACT 9): manifest.ts reads plugin.toml, sandbox/ runs a plugin in a
// QuickJS engine in a worker thread, host.ts answers its `coffer.*` calls with
// capability checks, egress.ts is its only network door, hooks.ts feeds its event
// hooks from the durable log, pages.ts checks the pages it renders, marketplace.ts
// installs from the marketplace, manager.ts ties them together. app.ts starts
// PluginService: every process loads enabled plugins (pages and actions run
// anywhere); the event hooks run in one process at a time on PostgreSQL (the
// plugins lease of db/lease.ts), like webhook delivery.
import semver from 'semver'
import type { ServiceContext } from '../context.js'
import { hasSessionLocks } from '../db/dialect.js'
import { PostgresLease } from '../db/lease.js'
import { watchChanges, type ChangeWatch } from '../db/coordination.js'
import { AsyncLock } from '../async-lock.js'
import { NotFound } from '../errors.js'
import type { SearchInput, SearchResult } from '../search/index.js'
import type { PluginJson } from '../schemas/plugins.js'
import { PluginEgress } from './egress.js'
import { PluginManager, PLUGINS_CHANNEL } from './manager.js'
import { fetchRegistryIndex, installFromRegistry } from './marketplace.js'

export class PluginService {
  readonly manager: PluginManager
  readonly egress: PluginEgress
  private lease: PostgresLease | null = null
  private watch: ChangeWatch | null = null
  private started = false
  /** Installs run one at a time: two of one plugin would mix their folder's renames. */
  private readonly installs = new AsyncLock()

  constructor(
    private readonly ctx: ServiceContext,
    search: (input: SearchInput) => Promise<SearchResult>,
  ) {
    this.egress = new PluginEgress({
      log: ctx.log.child({ part: 'plugins' }),
      clock: ctx.clock,
      onAttempt: (plugin, attempt) =>
        ctx.metrics.pluginEgress.inc({ plugin, outcome: attempt.outcome }),
    })
    this.manager = new PluginManager(ctx, { ctx, search, egress: this.egress })
  }

  /** Loads enabled plugins and starts their hooks (here, or in the process holding the lease). */
  async start(): Promise<void> {
    const { ctx } = this
    if (!ctx.config.plugins.enabled) {
      ctx.log.info('plugins: off (plugins.enabled = false)')
      return
    }
    this.started = true
    await this.manager.start()
    ctx.metrics.readPluginLag.current = async () => {
      try {
        return await this.manager.lags()
      } catch (error) {
        // A scrape answers without the gauge rather than fail (the log head could not be read).
        ctx.log.warn({ err: error }, 'plugins: reading the lag for /metrics failed')
        return new Map()
      }
    }
    if (hasSessionLocks(ctx.db.kysely)) {
      // Enables and disables made through another process reach this one.
      this.watch = await watchChanges(ctx.db, ctx.config.database.dsn, {
        channel: PLUGINS_CHANNEL,
        pollMs: 5_000,
        log: ctx.log,
        onChange: () => void this.manager.resync().catch(() => undefined),
      })
      this.lease = new PostgresLease(ctx.config.database.dsn!, ctx.log, 'plugins', {
        acquired: () => this.manager.runHooks(true),
        lost: () => this.manager.runHooks(false),
      })
      await this.lease.start()
    } else {
      await this.manager.runHooks(true)
    }
  }

  async stop(): Promise<void> {
    if (!this.started) return
    this.ctx.metrics.readPluginLag.current = null
    this.lease?.stopTrying()
    await this.watch?.close()
    await this.manager.stop()
    await this.lease?.release()
  }

  /** GET /plugins/registry: the index with what is installed; 502 when it cannot be read. */
  async registry() {
    const url = this.ctx.config.plugins.registry_url
    if (!this.ctx.config.plugins.enabled)
      throw new NotFound('plugins are turned off (plugins.enabled = false)')
    if (!url) return { available: false, plugins: [] }
    const entries = await fetchRegistryIndex(url, { log: this.ctx.log })
    const installed = await this.manager.installedVersions()
    return {
      available: true,
      plugins: entries.map((entry) => {
        const version = installed.get(entry.name) ?? null
        return {
          name: entry.name,
          version: entry.version,
          description: entry.description,
          author: entry.author,
          capabilities: entry.capabilities,
          installed: installed.has(entry.name),
          installed_version: version,
          update_available:
            version !== null && semver.valid(version) !== null && semver.gt(entry.version, version),
        }
      }),
    }
  }

  /** POST /plugins/registry/{name}/install: 201 for a new plugin, 200 for an update. */
  async install(name: string): Promise<{ created: boolean; plugin: PluginJson }> {
    const url = this.ctx.config.plugins.registry_url
    if (!this.ctx.config.plugins.enabled)
      throw new NotFound('plugins are turned off (plugins.enabled = false)')
    // Nothing can be installed from a marketplace that is not there: a 404, not a gateway error.
    if (!url)
      throw new NotFound(
        `no marketplace is configured (plugins.registry_url): ${name} cannot be installed`,
      )
    return this.installs.run(async () => {
      const entries = await fetchRegistryIndex(url, { log: this.ctx.log })
      const entry = entries.find((e) => e.name === name)
      if (!entry) throw new NotFound(`plugin ${name} is not in the marketplace`)
      const { replaced } = await installFromRegistry({
        pluginsDir: this.manager.dir,
        entry,
        log: this.ctx.log,
      })
      this.ctx.log.info(
        { plugin: name, version: entry.version, replaced },
        'plugins: installed from the marketplace',
      )
      return { created: !replaced, plugin: await this.manager.installed(name, replaced) }
    })
  }
}

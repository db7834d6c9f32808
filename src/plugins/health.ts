// What a plugin's calls come to: each outcome counted in the metrics, a failure
// logged, and the plugin's health (last_status, last_error, last_run_at,
// last_success_at: CONTRACT 9) kept in memory and saved, a change at once and the
// same outcome again at most once a second. The manager and the event batches
// (batches.ts) both record through this.
import type { Logger } from 'pino'
import { isoNow } from '../clock.js'
import type { ServiceContext } from '../context.js'
import type { HookName } from './manifest.js'
import type { Plugin, Status } from './plugin.js'
import type { BatchOutcome } from './sandbox/index.js'
import { saveHealth, type Health } from './store.js'

const HEALTH_SAVE_INTERVAL_MS = 1_000

export class PluginHealth {
  constructor(
    private readonly ctx: ServiceContext,
    private readonly log: Logger,
  ) {}

  /** Counts, logs and records the outcomes of calls of `hooks` (health ends at the last). */
  async recordOutcomes(
    plugin: Plugin,
    hooks: readonly HookName[],
    outcomes: readonly BatchOutcome[],
  ): Promise<void> {
    let ok = 0
    for (const [i, outcome] of outcomes.entries()) {
      if (outcome.status === 'ok') {
        ok++
        continue
      }
      this.countRuns(plugin, outcome.status, 1)
      await this.recordFailure(plugin, hooks[i]!, outcome)
    }
    this.countRuns(plugin, 'ok', ok)
    if (outcomes.at(-1)?.status === 'ok') await this.record(plugin, 'ok', null)
  }

  countRuns(plugin: Plugin, status: Status, count: number): void {
    if (count > 0) this.ctx.metrics.pluginHookRuns.inc({ plugin: plugin.name, status }, count)
  }

  /** Logs a failed call and (unless told not to) records it on the plugin. */
  async recordFailure(
    plugin: Plugin,
    hook: HookName,
    outcome: { status: Exclude<Status, 'ok'>; message: string },
    options = { record: true },
  ): Promise<void> {
    const message = `${hook}: ${outcome.message}`
    this.log.warn({ plugin: plugin.name, hook, status: outcome.status }, `plugins: ${message}`)
    if (options.record) await this.record(plugin, outcome.status, message)
  }

  /**
   * Records a hook's outcome. A change of status or message is written at once;
   * the same outcome again at most once a second (a busy plugin's every event
   * would otherwise cost a write), and at unload.
   */
  async record(plugin: Plugin, status: Status, message: string | null): Promise<void> {
    const health: Health = {
      last_status: status,
      last_error: message,
      last_run_at: isoNow(this.ctx.clock),
    }
    const last = plugin.health
    plugin.health = {
      ...health,
      last_success_at: status === 'ok' ? health.last_run_at : (last.last_success_at ?? null),
    }
    const same = last.last_status === status && last.last_error === message
    if (same && Date.now() - plugin.healthSavedAt < HEALTH_SAVE_INTERVAL_MS) {
      plugin.healthDirty = true
      return
    }
    await this.saveHealth(plugin)
  }

  async saveHealth(plugin: Plugin): Promise<void> {
    const { last_status, last_error, last_run_at } = plugin.health
    if (!last_status || !last_run_at) return
    plugin.healthDirty = false
    plugin.healthSavedAt = Date.now()
    try {
      await saveHealth(this.ctx.db.kysely, plugin.name, {
        last_status,
        last_error: last_error ?? null,
        last_run_at,
      })
    } catch (error) {
      this.log.warn({ err: error, plugin: plugin.name }, 'plugins: saving health failed')
    }
  }
}

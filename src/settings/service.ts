// Editable settings (CONTRACT 10): the settable keys of the one key table
// (config/schema.ts), stored in the database (store.ts) and applied over the file
// and the environment: default < file < env < stored. A value is checked with the
// config file's own rules, alone and as part of the whole configuration that
// would result. Keys marked `live` in the table apply at once; any other change
// waits for a restart (POST /system/restart), and says so.
import { isDeepStrictEqual } from 'node:util'
import {
  CONFIG_KEYS,
  ConfigError,
  findConfigKey,
  isSettable,
  loadConfig,
  splitKey,
  validateConfigValue,
  type Config,
  type ConfigKeySpec,
  type ConfigSource,
  type LoadResult,
} from '../config/index.js'
import type { ServiceContext } from '../context.js'
import { Conflict, Invalid, NotFound } from '../errors.js'
import { setLogFormat } from '../log.js'
import type { SettingChangeJson, SettingJson, SettingsListJson } from '../schemas/settings.js'
import { deleteStoredSetting, readStoredSettings, writeStoredSetting } from './store.js'

const SETTABLE = CONFIG_KEYS.filter(isSettable)
const LIVE = SETTABLE.filter((spec) => spec.live)

function valueOf(config: Config, key: string): unknown {
  const [section, name] = splitKey(key)
  return (config as unknown as Record<string, Record<string, unknown>>)[section]?.[name]
}

function assign(config: Config, key: string, value: unknown): void {
  const [section, name] = splitKey(key)
  ;(config as unknown as Record<string, Record<string, unknown>>)[section]![name] =
    structuredClone(value)
}

/**
 * Puts `next`'s value of each key into the running configuration, in place (every
 * part reads ctx.config when it acts), and points the logger at the new level
 * and format. Answers the keys that changed.
 */
function applyKeys(ctx: ServiceContext, next: Config, specs: readonly ConfigKeySpec[]): string[] {
  const changed: string[] = []
  for (const spec of specs) {
    const value = valueOf(next, spec.key)
    if (isDeepStrictEqual(valueOf(ctx.config, spec.key), value)) continue
    assign(ctx.config, spec.key, value)
    changed.push(spec.key)
  }
  ctx.log.level = ctx.config.log.level
  setLogFormat(ctx.log, ctx.config.log.format)
  return changed
}

/**
 * At start (app.ts openServiceContext): the configuration read from `source`,
 * with the stored settings over it, becomes ctx.config.
 */
export async function applyStoredSettings(
  ctx: ServiceContext,
  source: ConfigSource,
): Promise<void> {
  const stored = await readStoredSettings(ctx)
  if (Object.keys(stored).length === 0) return
  const { config, warnings } = loadConfig({ ...source, stored })
  for (const warning of warnings) {
    if (warning.startsWith('stored setting')) ctx.log.warn(warning)
  }
  applyKeys(ctx, config, SETTABLE)
}

function settableSpec(key: string): ConfigKeySpec {
  const spec = findConfigKey(key)
  // CONTRACT 10: a key that is not a setting is answered like an unknown one.
  if (!spec || !isSettable(spec)) throw new NotFound(`unknown setting ${JSON.stringify(key)}`)
  return spec
}

function invalidValue(error: unknown): never {
  if (!(error instanceof ConfigError)) throw error
  // The loader's messages name the key and the kind, never a secret's text.
  throw new Invalid(error.message, [{ field: 'value', message: error.message }])
}

/** The settings of one running service (GET, PUT, DELETE /settings; the MCP tools). */
export class Settings {
  /** The value of each settable key when this process started: what a restart would change. */
  private readonly started = new Map<string, unknown>()

  constructor(
    private readonly ctx: ServiceContext,
    private readonly source: ConfigSource,
  ) {
    for (const spec of SETTABLE) {
      this.started.set(spec.key, structuredClone(valueOf(ctx.config, spec.key)))
    }
  }

  async list(): Promise<SettingsListJson> {
    const next = await this.load()
    return {
      restart_required: this.restartRequired(next),
      settings: SETTABLE.map((spec) => this.entry(spec, next)),
    }
  }

  async set(key: string, value: unknown): Promise<SettingChangeJson> {
    const spec = settableSpec(key)
    let checked: unknown
    try {
      checked = validateConfigValue(key, value)
    } catch (error) {
      invalidValue(error)
    }
    const stored = await readStoredSettings(this.ctx)
    stored[key] = checked
    let next: LoadResult
    try {
      next = loadConfig({ ...this.source, stored })
    } catch (error) {
      invalidValue(error)
    }
    await writeStoredSetting(this.ctx, spec, checked)
    this.ctx.log.info({ setting: key, live: spec.live === true }, 'setting stored')
    this.applyLive(next)
    return this.answer(spec, next)
  }

  async reset(key: string): Promise<SettingChangeJson> {
    const spec = settableSpec(key)
    await deleteStoredSetting(this.ctx, spec)
    this.ctx.log.info({ setting: key, live: spec.live === true }, 'stored setting removed')
    return this.answer(spec, await this.load())
  }

  private answer(spec: ConfigKeySpec, next: LoadResult): SettingChangeJson {
    return { setting: this.entry(spec, next), restart_required: this.restartRequired(next) }
  }

  /**
   * The configuration that applies now: file and environment as read at start,
   * with the stored settings over them. Live keys take its values here, so that a
   * change stored by another process on the same database applies too.
   */
  private async load(): Promise<LoadResult> {
    const stored = await readStoredSettings(this.ctx)
    let next: LoadResult
    try {
      next = loadConfig({ ...this.source, stored })
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error
      throw new Conflict(`the configuration no longer loads: ${error.message}`)
    }
    this.applyLive(next)
    return next
  }

  private applyLive(next: LoadResult): void {
    const changed = applyKeys(this.ctx, next.config, LIVE)
    if (changed.length === 0) return
    this.ctx.log.info({ settings: changed }, 'settings applied')
    this.ctx.signals.emit('settings.applied', changed)
  }

  private waitsForRestart(spec: ConfigKeySpec, next: LoadResult): boolean {
    if (spec.live) return false
    return !isDeepStrictEqual(this.started.get(spec.key), valueOf(next.config, spec.key))
  }

  private restartRequired(next: LoadResult): boolean {
    return SETTABLE.some((spec) => this.waitsForRestart(spec, next))
  }

  private entry(spec: ConfigKeySpec, next: LoadResult): SettingJson {
    const value = valueOf(next.config, spec.key)
    return {
      key: spec.key,
      title: spec.title,
      // No settable key is a list today; one would be shown as JSON.
      kind: spec.kind === 'string_list' ? 'json' : spec.kind,
      ...(spec.enum ? { enum: [...spec.enum] } : {}),
      // CONTRACT 10: a secret's value is never echoed, only whether one is set.
      value: spec.secret ? null : value,
      default: spec.secret ? null : spec.default,
      origin: next.origins[spec.key] ?? 'default',
      secret: spec.secret,
      ...(spec.secret ? { set: value !== null } : {}),
      restart_required: this.waitsForRestart(spec, next),
    }
  }
}

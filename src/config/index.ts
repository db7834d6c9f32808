// Configuration: the key table (schema.ts), loading TOML + SERVICE_* environment into a
// typed Config, durations, listen-address checks and secret redaction for GET /config.

export { parseDuration } from './duration.js'
export { CONFIG_KEYS, envName, findConfigKey, isNullable, isSettable, splitKey } from './schema.js'
export type { ConfigKeySpec, ConfigKind } from './schema.js'
export {
  ConfigError,
  defaultConfigPath,
  isLoopbackAddr,
  loadConfig,
  splitHostPort,
  validateConfigValue,
} from './load.js'
export type {
  Config,
  ConfigOrigin,
  ConfigSource,
  CsvColumn,
  CsvFolder,
  CsvMapping,
  DatabaseDriver,
  LoadOptions,
  LoadResult,
  LogFormat,
  LogLevel,
} from './load.js'
export { configSecrets, REDACTED, redactConfig, redactDsn, redactText } from './redact.js'

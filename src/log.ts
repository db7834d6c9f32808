// The process logger (pino). `log.format = "json"` writes pino's JSON lines;
// "text" writes one readable line per entry: time, level, message, key=value.
import { Writable } from 'node:stream'
import { pino, type Logger } from 'pino'
import type { LoadResult } from './config/index.js'

export type LogFormat = 'text' | 'json'

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
}

const SKIP = new Set(['level', 'time', 'msg', 'pid', 'hostname'])

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) ? JSON.stringify(value) : value
  return JSON.stringify(value)
}

/**
 * Turns one pino JSON line into `2024-01-01T00:00:00.000Z INFO message key=value`.
 * An error's stack follows on its own indented lines, so that a 500 can be
 * traced from the text log as well as from the JSON one.
 */
export function formatTextLine(line: string): string {
  let entry: Record<string, unknown>
  try {
    entry = JSON.parse(line) as Record<string, unknown>
  } catch {
    return line
  }
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString() : ''
  const level = LEVEL_NAMES[entry.level as number] ?? String(entry.level)
  let stack = ''
  const fields = Object.entries(entry)
    .filter(([key]) => !SKIP.has(key))
    .map(([key, value]) => {
      if (key === 'err' && value && typeof value === 'object') {
        const err = value as { message?: string; stack?: string }
        if (typeof err.stack === 'string' && err.stack !== '') {
          stack = err.stack
            .split('\n')
            .map((frame) => `    ${frame.trim()}`)
            .join('\n')
        }
        return `err=${formatValue(err.message ?? '')}`
      }
      return `${key}=${formatValue(value)}`
    })
  const msg = typeof entry.msg === 'string' ? entry.msg : ''
  const head = [time, level.padEnd(5), msg, ...fields].filter(Boolean).join(' ')
  return stack ? `${head}\n${stack}` : head
}

// The format of each logger createLogger made: a stored log.format applies at once
// (settings/), so the format is read at every line, not fixed at creation.
const FORMATS = new WeakMap<Logger, { format: LogFormat }>()

export function createLogger(options: {
  level: string
  format: LogFormat
  destination?: NodeJS.WritableStream
}): Logger {
  const destination = options.destination ?? process.stdout
  const state = { format: options.format }
  const out = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (state.format === 'json') {
        destination.write(chunk)
      } else {
        const lines = chunk.toString('utf8').split('\n').filter(Boolean)
        for (const line of lines) destination.write(formatTextLine(line) + '\n')
      }
      callback()
    },
  })
  const logger = pino({ level: options.level, base: undefined }, out)
  FORMATS.set(logger, state)
  return logger
}

/** Switches a logger of createLogger to `format` from its next line (a no-op for others). */
export function setLogFormat(logger: Logger, format: LogFormat): void {
  const state = FORMATS.get(logger)
  if (state) state.format = format
}

/**
 * The logger of a `coffer` command, built from its loaded configuration, with
 * the configuration's warnings logged first. `destination` is stderr for the
 * commands whose stdout carries their answer (sync, mcp).
 */
export function commandLogger(loaded: LoadResult, destination?: NodeJS.WritableStream): Logger {
  const { level, format } = loaded.config.log
  const logger = createLogger({ level, format, ...(destination ? { destination } : {}) })
  for (const warning of loaded.warnings) logger.warn(warning)
  return logger
}

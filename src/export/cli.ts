// `coffer export` (docs/export.md): the export service's text to stdout or to a
// file. A bad format, query or date is reported before anything is written (exit
// 2); a file appears under its name only once the whole export is in it
// (written to <file>.partial, then renamed; a device such as /dev/null is
// written in place).
import { createWriteStream } from 'node:fs'
import { rename, rm, stat } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { parseCommandLine, UsageError } from '../cli/usage.js'
import type { LoadResult } from '../config/index.js'
import type { OpenContext } from '../context.js'
import { Invalid } from '../errors.js'
import { commandLogger } from '../log.js'
import { EXPORT_FORMATS, exportTransactions } from './service.js'

export const EXPORT_HELP = `Usage: coffer export --format <${EXPORT_FORMATS.join('|')}> [options]

Streams transactions, oldest first, with their labels and extensions.

Options:
  --format <name>    ${EXPORT_FORMATS.join(', ')} (ledger: an hledger journal)
  --query <text>     Only transactions matching this search (docs/search.md)
  --since <day>      From this day on (YYYY-MM-DD, inclusive)
  --until <day>      Up to this day (YYYY-MM-DD, inclusive)
  --output <file>    Write to this file instead of stdout
  --config <path>    TOML configuration (default: ./coffer.toml when it exists)`

/** `readConfig` and `open` are cli.ts's: the configuration and context every command uses. */
export async function runExportCommand(
  args: string[],
  readConfig: (path: string | undefined) => LoadResult,
  open: OpenContext,
): Promise<number> {
  const { values } = parseCommandLine(
    'coffer export',
    {
      args,
      options: {
        config: { type: 'string' },
        format: { type: 'string' },
        query: { type: 'string' },
        since: { type: 'string' },
        until: { type: 'string' },
        output: { type: 'string', short: 'o' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    EXPORT_HELP,
  )
  if (values.help) {
    console.log(EXPORT_HELP)
    return 0
  }
  if (values.format === undefined) {
    throw new UsageError('coffer export: --format is required', EXPORT_HELP)
  }
  const loaded = readConfig(values.config)
  // Logs go to stderr: stdout may carry the export.
  const ctx = await open(loaded.config, { logger: commandLogger(loaded, process.stderr) })
  try {
    let out
    try {
      out = exportTransactions(
        { db: ctx.db.kysely, today: ctx.clock.now().toISOString().slice(0, 10) },
        { format: values.format, q: values.query, since: values.since, until: values.until },
      )
    } catch (error) {
      if (!(error instanceof Invalid)) throw error
      console.error(`coffer export: ${error.message}`)
      return 2
    }
    const source = Readable.from(out.chunks)
    if (values.output === undefined) {
      await pipeline(source, process.stdout, { end: false })
      return 0
    }
    if (!(await isFileOrAbsent(values.output))) {
      // A device or a pipe (/dev/null, a FIFO): written in place.
      await pipeline(source, createWriteStream(values.output))
      return 0
    }
    const partial = `${values.output}.partial`
    try {
      await pipeline(source, createWriteStream(partial))
      await rename(partial, values.output)
    } catch (error) {
      await rm(partial, { force: true })
      throw error
    }
    return 0
  } finally {
    await ctx.close()
  }
}

async function isFileOrAbsent(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true
    throw error
  }
}

// `coffer backup <file>` and `coffer restore <file>` (docs/operations.md "Backup
// and restore"). On a terminal, progress goes to stderr; the summary (rows per
// table, the event head) goes to stdout. Only counts are printed: never a value.
import { closeSync, existsSync, openSync, renameSync, rmSync } from 'node:fs'
import type { LoadResult } from '../config/index.js'
import {
  readSnapshot,
  restoreBackup,
  RestoreRefused,
  sqliteOnlineBackup,
  writeLogicalBackup,
  type BackupSummary,
  type Progress,
} from '../db/backup.js'
import { openDatabase, openSqliteReader } from '../db/connect.js'
import { parseCommandLine, UsageError } from './usage.js'

/** Progress redraws at most this often, so a fast copy is not slowed by the terminal. */
const PROGRESS_REDRAW_MS = 100

const USAGE = {
  backup: 'Usage: coffer backup <file> [--portable] [--config <path>]',
  restore: 'Usage: coffer restore <file> [--config <path>]',
}

/**
 * `coffer backup` and `coffer restore` from the whole command line (`argv`,
 * the command and options in any order). They read their own arguments so
 * that a usage error (an unknown option, no file or two) names the command (exit 2,
 * src/cli/usage.ts).
 */
export async function runBackupCli(
  command: 'backup' | 'restore',
  argv: string[],
  readConfig: (path: string | undefined) => LoadResult,
): Promise<number> {
  const parsed = parseCommandLine(
    `coffer ${command}`,
    {
      args: argv,
      options: {
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        ...(command === 'backup' ? { portable: { type: 'boolean' as const } } : {}),
      },
      allowPositionals: true,
    },
    USAGE[command],
  )
  const { values, positionals } = parsed
  if (values.help) {
    console.log(USAGE[command])
    return 0
  }
  // positionals[0] is the command itself.
  const files = positionals.slice(1)
  if (files.length !== 1) {
    const problem = files.length === 0 ? 'which file?' : `one file only, not ${files.length}`
    throw new UsageError(`coffer ${command}: ${problem}`, USAGE[command])
  }
  const loaded = readConfig(values.config)
  return command === 'backup'
    ? runBackupCommand(loaded, files[0]!, { portable: values.portable === true })
    : runRestoreCommand(loaded, files[0]!)
}

interface BackupOptions {
  /** Write the portable logical dump even on SQLite (it always is on PostgreSQL). */
  portable: boolean
}

async function runBackupCommand(
  loaded: LoadResult,
  file: string,
  options: BackupOptions,
): Promise<number> {
  if (existsSync(file)) {
    console.error(`coffer backup: ${file} already exists; choose a new file`)
    return 1
  }
  const { database } = loaded.config
  if (database.driver === 'sqlite' && !existsSync(database.path)) {
    console.error(`coffer backup: there is no database at ${database.path}`)
    return 1
  }
  // Written beside the target, then renamed: a file named `file` is always complete.
  const partial = `${file}.partial`
  const scratch = [partial, `${partial}-wal`, `${partial}-shm`, `${partial}-journal`]
  // Claimed before anything is written: another backup's file is never reused or removed.
  const taken = scratch.find((path) => existsSync(path))
  if (taken !== undefined || !claim(partial)) {
    console.error(
      `coffer backup: ${taken ?? partial} already exists: another backup to ${file} is running or was interrupted; remove it if none is running`,
    )
    return 1
  }
  const progress = terminalProgress('backup')
  try {
    let summary: BackupSummary
    let kind: string
    if (database.driver === 'sqlite' && !options.portable) {
      kind = 'SQLite database file'
      summary = await sqliteOnlineBackup(database.path, partial, progress?.update)
    } else {
      kind = 'portable dump (gzipped JSON lines)'
      const source =
        database.driver === 'sqlite'
          ? { kysely: openSqliteReader(database.path), close: () => Promise.resolve() }
          : openDatabase(database)
      try {
        summary = await writeLogicalBackup(
          (sink) => readSnapshot(source.kysely, database.driver, sink),
          partial,
          progress?.update,
        )
      } finally {
        await source.kysely.destroy()
      }
    }
    progress?.done()
    renameSync(partial, file)
    process.stdout.write(`backup written to ${file} (${kind})\n${summaryText(summary)}`)
    return 0
  } catch (error) {
    progress?.done()
    for (const leftover of scratch) rmSync(leftover, { force: true })
    throw error
  }
}

/** Creates `path` (0600) unless it exists; answers whether this call created it. */
function claim(path: string): boolean {
  try {
    closeSync(openSync(path, 'wx', 0o600))
    return true
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EEXIST') return false
    throw error
  }
}

async function runRestoreCommand(loaded: LoadResult, file: string): Promise<number> {
  if (!existsSync(file)) {
    console.error(`coffer restore: ${file} does not exist`)
    return 1
  }
  const target = openDatabase(loaded.config.database)
  const progress = terminalProgress('restore')
  try {
    const summary = await restoreBackup(target, file, progress?.update)
    progress?.done()
    process.stdout.write(
      `restored ${file} into the ${target.dialect} database\n${summaryText(summary)}`,
    )
    return 0
  } catch (error) {
    progress?.done()
    if (error instanceof RestoreRefused) {
      console.error(`coffer ${error.message}`)
      return 1
    }
    throw error
  } finally {
    await target.close()
  }
}

function summaryText(summary: BackupSummary): string {
  const width = Math.max(...summary.tables.map((t) => t.name.length), 5)
  const lines = summary.tables.map((t) => `  ${t.name.padEnd(width)}  ${t.rows}`)
  return `${lines.join('\n')}\nevent head: ${summary.event_head}\n`
}

/** A one-line progress display on stderr, only when it is a terminal. */
function terminalProgress(verb: string): { update: Progress; done: () => void } | null {
  if (!process.stderr.isTTY) return null
  let last = 0
  let drawn = false
  return {
    update(done, total, what) {
      const now = Date.now()
      if (now - last < PROGRESS_REDRAW_MS && done < total) return
      last = now
      const unit = what === 'pages' ? 'pages' : `rows (${what})`
      process.stderr.write(`\r\x1b[2K${verb}: ${done}/${total} ${unit}`)
      drawn = true
    },
    done() {
      if (drawn) process.stderr.write('\n')
      drawn = false
    },
  }
}

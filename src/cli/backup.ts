// `coffer backup <file>` and `coffer restore <file>` (docs/operations.md "Backup
// and restore"). On a terminal, progress goes to stderr; the summary (rows per
// table, the event head) goes to stdout. Only counts are printed: never a value.
import { existsSync, renameSync, rmSync } from 'node:fs'
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

/** Progress redraws at most this often, so a fast copy is not slowed by the terminal. */
const PROGRESS_REDRAW_MS = 100

export interface BackupOptions {
  /** Write the portable logical dump even on SQLite (it always is on PostgreSQL). */
  portable: boolean
}

export async function runBackupCommand(
  loaded: LoadResult,
  file: string | undefined,
  options: BackupOptions,
): Promise<number> {
  if (!file) {
    console.error('coffer backup: which file? Usage: coffer backup <file> [--portable]')
    return 2
  }
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
    for (const leftover of [partial, `${partial}-wal`, `${partial}-shm`, `${partial}-journal`])
      rmSync(leftover, { force: true })
    throw error
  }
}

export async function runRestoreCommand(
  loaded: LoadResult,
  file: string | undefined,
): Promise<number> {
  if (!file) {
    console.error('coffer restore: which file? Usage: coffer restore <file>')
    return 2
  }
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

// `coffer sync` (CONTRACT 1): one sync of every configured source, trigger "cli".
// On a terminal, progress goes to stderr (source by source, rows so far); the
// summary goes to stdout; the exit code is 0 only for a run that succeeded.
import type { LoadResult } from '../config/index.js'
import type { OpenContext } from '../context.js'
import { commandLogger } from '../log.js'
import { SyncService, type SyncProgress } from './index.js'
import type { SyncRunJson } from './runs.js'

/** Progress redraws at most this often, so a fast import is not slowed by the terminal. */
const PROGRESS_REDRAW_MS = 100

/** `open` is app.ts's openServiceContext (cli.ts passes it): the context every process uses. */
export async function runSyncCommand(loaded: LoadResult, open: OpenContext): Promise<number> {
  const { config } = loaded
  // Logs go to stderr: stdout carries the summary.
  const logger = commandLogger(loaded, process.stderr)
  const ctx = await open(config, { logger, source: loaded.source })
  // No schedule here: a running `coffer serve` owns it; this process runs one sync.
  const { engine } = new SyncService(ctx)
  const stopProgress = process.stderr.isTTY ? drawProgress(engine.onProgress.bind(engine)) : null
  try {
    const started = await engine.trigger({ trigger: 'cli', source: null })
    const run = await started.done
    stopProgress?.()
    process.stdout.write(summary(run))
    return run.status === 'success' ? 0 : 1
  } finally {
    stopProgress?.()
    await engine.stop()
    await ctx.close()
  }
}

function drawProgress(subscribe: (listener: (p: SyncProgress) => void) => () => void): () => void {
  const state = new Map<string, string>()
  let last = 0
  let drawn = false
  const draw = (force: boolean) => {
    const now = Date.now()
    if (!force && now - last < PROGRESS_REDRAW_MS) return
    last = now
    const line = [...state].map(([source, text]) => `${source}: ${text}`).join('  ')
    process.stderr.write(`\r\x1b[2K${line}`)
    drawn = true
  }
  const unsubscribe = subscribe((p) => {
    const text =
      p.phase === 'started'
        ? 'fetching…'
        : p.phase === 'rows'
          ? `${p.rows.toLocaleString('en-US')} rows`
          : p.phase === 'skipped'
            ? 'skipped'
            : `${p.phase} (${p.rows.toLocaleString('en-US')} rows)`
    state.set(p.source, text)
    draw(p.phase !== 'rows')
  })
  let stopped = false
  return () => {
    if (stopped) return
    stopped = true
    unsubscribe()
    if (drawn) process.stderr.write('\n')
  }
}

export function summary(run: SyncRunJson): string {
  const seconds =
    run.completed_at !== null
      ? (Date.parse(run.completed_at) - Date.parse(run.started_at)) / 1000
      : null
  const lines = [`sync ${run.id}: ${run.status}${seconds !== null ? ` in ${seconds}s` : ''}`]
  const sources = Object.entries(run.counts)
  if (sources.length === 0) lines.push('  no source is configured')
  for (const [source, c] of sources) {
    lines.push(
      `  ${source}: ${c.inserted} inserted, ${c.updated} updated, ${c.unchanged} unchanged, ${c.skipped} skipped`,
    )
  }
  for (const warning of run.warnings) lines.push(`  warning: ${warning}`)
  if (run.error !== null) lines.push(`  error: ${run.error}`)
  return `${lines.join('\n')}\n`
}

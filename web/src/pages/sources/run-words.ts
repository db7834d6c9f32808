// A sync run (CONTRACT 6 "Sync run") and a source's readiness said in words, so
// the page reads as sentences rather than a dump of flags.
import type { Result } from '../../api/client.js'
import { plural } from '../../components/format.js'

export type SyncRun = NonNullable<Result<'GET /sync'>['latest']>
export type SourceEntry = Result<'GET /sources'>['sources'][number]
export type SourceCounts = SyncRun['counts'][string]

export const STATUS_WORDS: Record<SyncRun['status'], string> = {
  running: 'Running',
  success: 'Succeeded',
  partial: 'Partly failed',
  error: 'Failed',
}

export const TRIGGER_WORDS: Record<SyncRun['trigger'], string> = {
  manual: 'by hand',
  schedule: 'on schedule',
  cli: 'from the command line',
}

/** The badge class of a status: green for success, red for a failure. */
export function statusClass(status: SyncRun['status']): string {
  if (status === 'success') return 'badge ok'
  if (status === 'running') return 'badge'
  return 'badge bad'
}

/**
 * How long a run took ("under 1 s", "12 s", "2 min 5 s"), or has run so far.
 * Run times are kept to the second, so nothing finer is claimed.
 */
export function duration(run: SyncRun, now = Date.now()): string {
  const start = Date.parse(run.started_at)
  const end = run.completed_at ? Date.parse(run.completed_at) : now
  if (!Number.isFinite(start) || !Number.isFinite(end)) return '—'
  const seconds = Math.round(Math.max(0, end - start) / 1000)
  if (seconds < 1) return 'under 1 s'
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`
}

/** "3 new, 1 updated, 10 unchanged, 0 skipped". */
export function countsWords(counts: SourceCounts): string {
  return [
    `${counts.inserted.toLocaleString()} new`,
    `${counts.updated.toLocaleString()} updated`,
    `${counts.unchanged.toLocaleString()} unchanged`,
    `${counts.skipped.toLocaleString()} skipped`,
  ].join(', ')
}

/** One sentence for the outcome of a finished (or running) run. */
export function outcomeWords(run: SyncRun, titleOf: (type: string) => string): string {
  const scope = run.source === null ? 'Sync of all sources' : `Sync of ${titleOf(run.source)}`
  if (run.status === 'running') return `${scope} is running…`
  const sources = Object.keys(run.counts)
  const what =
    sources.length === 0
      ? 'no source had anything to fetch'
      : `${plural(sources.length, 'source')} fetched`
  switch (run.status) {
    case 'success':
      return `${scope} succeeded in ${duration(run)}: ${what}.`
    case 'partial':
      return `${scope} finished, but some sources failed (${duration(run)}).`
    default:
      return `${scope} failed (${duration(run)}).`
  }
}

/** What a source is doing, and what to do about it, in one or two sentences. */
export function readinessWords(source: SourceEntry): { state: string; advice: string | null } {
  if (!source.active) {
    return { state: 'Not configured: syncs leave it out.', advice: setupAdvice(source.type) }
  }
  if (!source.connected) {
    return {
      state: 'Configured, but not connected: syncs skip it until it is.',
      advice: connectAdvice(source),
    }
  }
  return { state: 'Ready: every sync fetches from it.', advice: null }
}

function setupAdvice(type: string): string | null {
  switch (type) {
    case 'ethereum':
      return 'Set ethereum.api_key (SERVICE_ETHEREUM_API_KEY) in the configuration and restart to watch addresses.'
    case 'csv':
      return 'Add [[csv.folders]] entries to the configuration file and restart to import CSV files.'
    case 'aggregator':
      return 'Paste a SimpleFIN setup token or access URL below, or set aggregator.access_url in the configuration.'
    default:
      return null
  }
}

function connectAdvice(source: SourceEntry): string | null {
  switch (source.type) {
    case 'ethereum':
      return (source.credential.entries ?? []).length === 0
        ? 'Add an address to watch below.'
        : 'Check the explorer API key (ethereum.api_key) and that the addresses are valid.'
    case 'csv':
      return 'Its drive folders need Google Drive: connect it below, or paste a refresh token.'
    case 'aggregator':
      return 'The bridge refused the access URL, or none is set: paste a new setup token below.'
    default:
      return null
  }
}

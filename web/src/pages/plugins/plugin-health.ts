// A plugin's state and health in words, from what GET /plugins answers
// (CONTRACT 9): the state badge, and a sentence on how its last run went.
import type { Result } from '../../api/client.js'
import { ago, formatTime } from '../../components/format.js'

export type Plugin = Result<'GET /plugins'>['plugins'][number]

export interface StateBadge {
  word: string
  tone: 'ok' | 'bad' | 'neutral'
  /** What the state means, for the badge's title. */
  meaning: string
}

const STATES: Record<Plugin['state'], StateBadge> = {
  loaded: { word: 'loaded', tone: 'ok', meaning: 'enabled and running' },
  disabled: { word: 'disabled', tone: 'neutral', meaning: 'its hooks and pages do not run' },
  error: { word: 'error', tone: 'bad', meaning: 'its manifest or code failed; see the error' },
  missing: { word: 'missing', tone: 'bad', meaning: 'enabled, but its folder is gone' },
}

export function stateOf(plugin: Plugin): StateBadge {
  return STATES[plugin.state]
}

const FAILURES: Record<Exclude<Plugin['last_status'], 'ok' | null>, string> = {
  error: 'failed',
  timeout: 'ran out of time (plugins.hook_timeout)',
  memory: 'ran out of memory (plugins.memory_mib)',
}

/** How the last hook or page run went, as a sentence. */
export function healthOf(plugin: Plugin, now = Date.now()): string {
  if (plugin.state === 'missing')
    return 'Its folder is no longer in plugins.dir: put it back and reload, or remove it.'
  if (plugin.last_status === null || plugin.last_run_at === null) return 'It has not run yet.'
  if (plugin.last_status === 'ok') return `The last run went fine, ${ago(plugin.last_run_at, now)}.`
  const since = plugin.last_success_at
    ? `the last good one was ${formatTime(plugin.last_success_at)}`
    : 'no run has succeeded yet'
  return `The last run ${FAILURES[plugin.last_status]}, ${ago(plugin.last_run_at, now)}; ${since}.`
}

/** A plugin that may reach the network asks, when enabled, which hosts to grant. */
export function fetchesNetwork(plugin: Plugin): boolean {
  return plugin.capabilities.includes('net:fetch')
}

/** The hosts typed one per line (spaces and commas separate too), without blanks or repeats. */
export function hostsOf(text: string): string[] {
  const hosts = text
    .split(/[\s,]+/)
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '')
  return [...new Set(hosts)]
}

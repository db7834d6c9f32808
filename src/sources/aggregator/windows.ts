// Which windows of history a sync asks the bridge for (CONTRACT 4): at most 90
// days a request, newest first, back to `sync.lookback_days`; with lookback 0 the
// walk goes on until a window comes back empty. And how many requests a
// scheduled sync may spend, since the bridge allows about 24 a day.
import type { FeedWindow } from './bridge.js'

export const WINDOW_DAYS = 90
const DAY_SECONDS = 86_400
const DAY_MS = DAY_SECONDS * 1000
/** What the SimpleFIN bridge allows an access URL in a day. */
export const BRIDGE_REQUESTS_PER_DAY = 24
/** A walk of all history stops here (about 30 years) even if no window came back empty. */
export const MAX_HISTORY_WINDOWS = 120

/**
 * The `index`-th window back from `now` (0 = the newest), or null past the
 * lookback. `end` is exclusive; the oldest window of a lookback is shortened to it.
 */
export function windowBack(
  nowSeconds: number,
  lookbackDays: number,
  index: number,
): FeedWindow | null {
  if (index >= windowCount(lookbackDays)) return null
  const end = nowSeconds - index * WINDOW_DAYS * DAY_SECONDS
  const oldest = lookbackDays === 0 ? -Infinity : nowSeconds - lookbackDays * DAY_SECONDS
  return { start: Math.max(end - WINDOW_DAYS * DAY_SECONDS, oldest), end }
}

/** Windows a lookback needs; a walk of all history (0) is bounded by MAX_HISTORY_WINDOWS. */
export function windowCount(lookbackDays: number): number {
  return lookbackDays === 0 ? MAX_HISTORY_WINDOWS : Math.ceil(lookbackDays / WINDOW_DAYS)
}

/**
 * Requests one scheduled sync may spend: the bridge's daily allowance shared by
 * the syncs `sync.interval` allows in a day, and always at least one.
 */
export function scheduledRequestBudget(intervalMs: number): number {
  return Math.max(1, Math.floor((BRIDGE_REQUESTS_PER_DAY * intervalMs) / DAY_MS))
}

/** A window's start as the run shows it: the UTC date. */
export function windowDate(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10)
}

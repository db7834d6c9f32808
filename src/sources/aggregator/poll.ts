// One poll of the bridge (CONTRACT 4): decide whether a scheduled sync may poll
// and how many requests it may spend, then ask for the windows newest first and
// gather what they return. A sync asked for by hand (REST, MCP, `coffer sync`)
// always polls and is never capped; so is every sync with `sync.interval = "0"`.
import { parseDuration, redactText } from '../../config/index.js'
import type { IngestAccount, IngestOrganization, IngestTransaction } from '../../ledger/ingest.js'
import { formatInstant, isoNow } from '../../clock.js'
import type { Skip, SourceContext } from '../source.js'
import { fetchAccounts } from './bridge.js'
import { lastPollAt, recordPoll, type AccessCredential } from './credential.js'
import { readFeedPage } from './feed.js'
import {
  BRIDGE_REQUESTS_PER_DAY,
  MAX_HISTORY_WINDOWS,
  scheduledRequestBudget,
  WINDOW_DAYS,
  windowBack,
  windowCount,
  windowDate,
} from './windows.js'

export interface PollResult {
  organizations: IngestOrganization[]
  accounts: IngestAccount[]
  transactions: IngestTransaction[]
  /** The feed's errors, then problems of the answers and the cap, for the run. */
  warnings: string[]
  /** Why rows were left out; each one counts as skipped. */
  skipped: string[]
  requests: number
}

function intervalMs(sctx: SourceContext): number {
  try {
    return parseDuration(sctx.ctx.config.sync.interval)
  } catch {
    return 0 // validated at load; a bad live value turns the schedule off, as in the scheduler
  }
}

/**
 * Requests this sync may spend, or a Skip when a scheduled sync comes sooner
 * than `sync.interval` after the last poll (of any sync, in any process).
 */
export async function requestBudget(sctx: SourceContext): Promise<number | Skip> {
  const interval = intervalMs(sctx)
  if (sctx.trigger !== 'schedule' || interval === 0) return Infinity
  const now = sctx.ctx.clock.now().getTime()
  const last = await lastPollAt(sctx)
  if (last !== null && last <= now && now - last < interval) {
    return {
      skip:
        `the schedule polls the bridge at most once every ${sctx.ctx.config.sync.interval} ` +
        `(sync.interval; the bridge allows about ${BRIDGE_REQUESTS_PER_DAY} requests a day): ` +
        `last poll ${formatInstant(new Date(last))}, next after ${formatInstant(new Date(last + interval))}; ` +
        'a sync by hand fetches now',
    }
  }
  return scheduledRequestBudget(interval)
}

/** Asks for the windows of `sync.lookback_days`, newest first, within `budget` requests. */
export async function pollBridge(
  sctx: SourceContext,
  credential: AccessCredential,
  budget: number,
): Promise<PollResult> {
  const { ctx } = sctx
  await recordPoll(sctx, isoNow(ctx.clock))
  const now = Math.floor(ctx.clock.now().getTime() / 1000)
  const lookback = ctx.config.sync.lookback_days
  const organizations = new Map<string, IngestOrganization>()
  const accounts = new Map<string, IngestAccount>()
  const transactions = new Map<string, IngestTransaction>()
  const feedErrors = new Set<string>()
  const notes: string[] = []
  const skipped = new Set<string>()
  let requests = 0
  let endedEmpty = false

  for (let index = 0; ; index++) {
    const window = windowBack(now, lookback, index)
    if (window === null) break
    if (requests >= budget) {
      notes.push(capMessage(lookback, budget, window.end))
      break
    }
    requests++
    const page = readFeedPage(await fetchAccounts(credential.access, window, ctx.signals.closing))
    addNew(organizations, page.organizations)
    addNew(accounts, page.accounts)
    addNew(transactions, page.transactions)
    for (const error of page.errors) feedErrors.add(error)
    notes.push(...page.warnings)
    // A row seen in two windows is skipped once.
    for (const reason of page.skipped) skipped.add(reason)
    // With lookback 0 the walk back through all history ends at the first empty window.
    if (lookback === 0 && page.transactions.length === 0) {
      endedEmpty = true
      break
    }
  }
  if (lookback === 0 && !endedEmpty && requests === MAX_HISTORY_WINDOWS) {
    notes.push(
      `history walk stopped after ${MAX_HISTORY_WINDOWS} windows of ${WINDOW_DAYS} days without an empty one`,
    )
  }
  return {
    organizations: [...organizations.values()],
    accounts: [...accounts.values()],
    transactions: [...transactions.values()],
    // A bridge may repeat the access URL in its own error text (the feed's errors
    // reach the run, the source entry, events and logs): its secrets are masked.
    warnings: [
      ...[...feedErrors].map((e) => `bridge error: ${redactText(e, credential.access.secrets)}`),
      ...new Set(notes),
    ],
    skipped: [...skipped],
    requests,
  }
}

/** Adds the items whose id is new: windows come newest first, so the newest version wins. */
function addNew<T extends { id: string }>(into: Map<string, T>, items: readonly T[]): void {
  for (const item of items) if (!into.has(item.id)) into.set(item.id, item)
}

// CONTRACT 4: the source says so when the request budget caps a window.
function capMessage(lookback: number, budget: number, reachedEnd: number): string {
  const suffix =
    `to stay within the bridge's ${BRIDGE_REQUESTS_PER_DAY} requests a day; ` +
    'a sync by hand fetches all of it'
  if (lookback === 0) {
    return `history window capped: this scheduled sync walked back ${budget} window(s) of ${WINDOW_DAYS} days, to ${windowDate(reachedEnd)}, ${suffix}`
  }
  return (
    `history window capped: this scheduled sync fetched the newest ${budget * WINDOW_DAYS} of ` +
    `${lookback} days (${budget} of ${windowCount(lookback)} requests), back to ${windowDate(reachedEnd)}, ${suffix}`
  )
}

// One answer of GET /accounts in neutral form (CONTRACT 4). Both shapes of the
// protocol: version 1 (`errors`, an `org` per account) and version 2 (`errlist`,
// `connections`, `conn_id` per account). Ids: the feed's transaction ids are
// unique only within an account, so rows are `aggregator:<account>:<transaction>`.
import type { IngestAccount, IngestOrganization, IngestTransaction } from '../../ledger/ingest.js'
import { normalizeAmount } from '../../decimal.js'
import { holdsControlChars, NAME_MAX, syncedText } from '../../ledger/fields.js'
import { parseInstant } from '../../ledger/time.js'

export interface FeedPage {
  organizations: IngestOrganization[]
  accounts: IngestAccount[]
  transactions: IngestTransaction[]
  /** The feed's own errors (`errors` or `errlist`), for the run and the source entry. */
  errors: string[]
  /** Why a row could not be used; each one counts as skipped. */
  skipped: string[]
  /** Other problems of the answer (an account without an id, a bad balance). */
  warnings: string[]
}

/** Feed text shown on the run is bounded, whatever the bridge sends. */
const MAX_MESSAGE_CHARS = 500
/** Used when an account names no institution at all. */
const UNKNOWN_ORG: IngestOrganization = { id: 'aggregator:unknown', name: 'Unknown institution' }

type Json = Record<string, unknown>

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null
}

/**
 * The longest account or transaction id taken from the feed: the row's id
 * (`aggregator:<account>:<transaction>`) then fits the 512 characters a client
 * can name in a path, so every synced row can be read, labelled and linked.
 */
export const FEED_ID_MAX = 240

/** A feed id the ledger can keep as it is (ids are never cut): some text, no control character. */
function usableId(value: unknown): string | null {
  const id = text(value)
  return id !== null && id.length <= FEED_ID_MAX && !holdsControlChars(id) ? id : null
}

function shownId(id: string): string {
  return JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id)
}

function bounded(message: string): string {
  return message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message
}

function hostOf(url: unknown): string | null {
  if (typeof url !== 'string') return null
  try {
    return new URL(url).host || null
  } catch {
    return null
  }
}

export function accountId(feedAccountId: string): string {
  return `aggregator:${feedAccountId}`
}

export function transactionId(feedAccountId: string, feedTransactionId: string): string {
  return `aggregator:${feedAccountId}:${feedTransactionId}`
}

/** Version 1: `org` on the account; id `aggregator:<org id, else domain>`. */
function organizationV1(org: unknown): IngestOrganization | null {
  if (!isObject(org)) return null
  const domain = syncedText(org.domain, NAME_MAX)
  // The protocol makes `id` and `domain` optional; the sfin-url's host names the
  // institution when both are missing.
  const key = usableId(org.id) ?? usableId(domain) ?? hostOf(org['sfin-url'])
  if (key === null) return null
  return { id: `aggregator:${key}`, name: syncedText(org.name, NAME_MAX) ?? domain ?? key, domain }
}

/** Version 2: the connection named by the account's `conn_id`; id `aggregator:<org_id>`. */
function organizationV2(connection: Json): IngestOrganization | null {
  const orgId = usableId(connection.org_id)
  if (orgId === null) return null
  return {
    id: `aggregator:${orgId}`,
    name:
      syncedText(connection.org_name, NAME_MAX) ?? syncedText(connection.name, NAME_MAX) ?? orgId,
    domain: hostOf(connection.org_url),
  }
}

function feedErrors(body: Json): string[] {
  const out: string[] = []
  if (Array.isArray(body.errors)) {
    for (const error of body.errors) {
      const message = text(error)
      if (message !== null) out.push(bounded(message))
    }
  }
  if (Array.isArray(body.errlist)) {
    for (const error of body.errlist) {
      if (!isObject(error)) continue
      const message = text(error.msg) ?? text(error.message)
      const code = text(error.code)
      if (message === null && code === null) continue
      out.push(bounded(message === null ? code! : code === null ? message : `${message} (${code})`))
    }
  }
  return out
}

/** The date of a row: `posted`, or `transacted_at` while pending (CONTRACT 4). */
function rowDate(row: Json, pending: boolean): string | null {
  const posted = typeof row.posted === 'number' && row.posted > 0 ? row.posted : null
  const transacted =
    typeof row.transacted_at === 'number' && row.transacted_at > 0 ? row.transacted_at : null
  const seconds = pending ? (transacted ?? posted) : (posted ?? transacted)
  return seconds === null ? null : parseInstant(seconds)
}

/** Turns one parsed answer into rows; throws only when it is not an accounts answer at all. */
export function readFeedPage(body: unknown): FeedPage {
  if (!isObject(body) || !Array.isArray(body.accounts)) {
    throw new Error('reading accounts: the bridge answered JSON without an accounts list')
  }
  const connections = new Map<string, Json>()
  if (Array.isArray(body.connections)) {
    for (const c of body.connections) {
      if (isObject(c) && text(c.conn_id) !== null) connections.set(c.conn_id as string, c)
    }
  }
  const page: FeedPage = {
    organizations: [],
    accounts: [],
    transactions: [],
    errors: feedErrors(body),
    skipped: [],
    warnings: [],
  }
  const organizations = new Map<string, IngestOrganization>()

  for (const account of body.accounts) {
    if (!isObject(account) || text(account.id) === null) {
      page.warnings.push('an account without an id was left out')
      continue
    }
    if (usableId(account.id) === null) {
      page.warnings.push(
        `an account whose id is longer than ${FEED_ID_MAX} characters or holds a control character was left out`,
      )
      continue
    }
    const feedId = account.id as string
    const where = `account ${JSON.stringify(feedId)}`
    const connection =
      text(account.conn_id) !== null ? connections.get(account.conn_id as string) : undefined
    const org =
      (connection ? organizationV2(connection) : null) ?? organizationV1(account.org) ?? UNKNOWN_ORG
    if (!organizations.has(org.id)) organizations.set(org.id, org)

    const balance = typeof account.balance === 'string' ? normalizeAmount(account.balance) : null
    if (balance === null) page.warnings.push(`${where}: its balance is not a decimal; shown as 0`)
    page.accounts.push({
      id: accountId(feedId),
      org_id: org.id,
      name: syncedText(account.name, NAME_MAX) ?? feedId,
      // A custom currency is a URL in the protocol; kept as sent.
      currency: syncedText(account.currency, NAME_MAX) ?? 'USD',
      balance: balance ?? '0',
    })

    const rows = Array.isArray(account.transactions) ? account.transactions : []
    for (const row of rows) {
      if (!isObject(row) || text(row.id) === null) {
        page.skipped.push(`${where}: a transaction without an id`)
        continue
      }
      if (usableId(row.id) === null) {
        // Named (cut short), so that two such rows count as two.
        page.skipped.push(
          `${where}: transaction id ${shownId(row.id as string)} is longer than ${FEED_ID_MAX} characters or holds a control character`,
        )
        continue
      }
      const id = transactionId(feedId, row.id as string)
      // Amounts are the feed's strings verbatim (positive = money in); never a number.
      const amount = typeof row.amount === 'string' ? normalizeAmount(row.amount) : null
      const pending = row.pending === true
      const date = rowDate(row, pending)
      if (amount === null || date === null) {
        page.skipped.push(`${id}: ${amount === null ? 'amount' : 'date'} is not usable`)
        continue
      }
      page.transactions.push({
        id,
        account_id: accountId(feedId),
        amount,
        date,
        description: syncedText(row.description),
        payee: syncedText(row.payee),
        memo: syncedText(row.memo),
        pending,
      })
    }
  }
  page.organizations = [...organizations.values()]
  return page
}

// The block explorer's Etherscan-v2 dialect (CONTRACT 3): `GET <api_url>` with
// `chainid` and `apikey` on every call. Hosted Etherscan and self-hosted
// Blockscout both speak it, with small differences handled here: an error's text
// is in `result` (Etherscan) or in `message` (Blockscout), and the block-by-time
// answer is a string or `{blockNumber}`.
// SPEC 1.2 rule 11: the key goes only into the query string, and no message made
// here contains it (an explorer's own text is scrubbed of it as well).
import { redactText } from '../../config/index.js'
import { throwIfClosing } from '../../signals.js'
import { BodyTooLarge, readBoundedText } from '../../response-body.js'
import type { ExplorerTransaction } from './ledger-row.js'
import { sleep, type RateLimiter } from './rate-limit.js'

/** Records asked for per `txlist` page; an explorer may send fewer (Blockscout caps lower). */
export const TXLIST_PAGE_RECORDS = 1000
/** The last block any chain will reach for a long time; `txlist` needs an end. */
const END_BLOCK = '9999999999'
/** Waits before each retry of a call the explorer refused for its rate limit. */
const RATE_LIMIT_RETRY_DELAYS_MS = [1000, 2000, 4000]
const REQUEST_TIMEOUT_MS = 30_000
/**
 * The most of one answer read. A page of 1,000 ordinary transactions is about
 * 1 MB; this leaves 16 KB a record for input data, and bounds the memory of
 * the pages read ahead.
 */
export const ANSWER_MAX_BYTES = 16 * 1024 * 1024
/** An explorer's error text is shown on the run; keep it short. */
const UPSTREAM_TEXT_MAX = 200

export interface ExplorerSettings {
  url: string
  chainId: number
  apiKey: string
  limiter: RateLimiter
  /** The service's closing: a shutdown ends a call in flight and the paging (ShuttingDown). */
  closing?: AbortSignal
}

interface Reply {
  status?: unknown
  message?: unknown
  result?: unknown
}

/** The explorer answered, and said no. */
export class ExplorerError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'ExplorerError'
  }
}

class RateLimited extends ExplorerError {}

const NOTHING_FOUND = /^no (transactions|records) found/i
const RATE_LIMIT = /rate limit|too many requests/i

export class ExplorerClient {
  constructor(private readonly settings: ExplorerSettings) {}

  /** SPEC 1.2 rule 6: the first block at or after `unixSeconds`. */
  async blockAt(unixSeconds: number): Promise<number> {
    const result = await this.call('block lookup', {
      module: 'block',
      action: 'getblocknobytime',
      timestamp: String(unixSeconds),
      closest: 'after',
    })
    // Etherscan: "12712551"; Blockscout: {"blockNumber": "12712551"}.
    const value =
      result !== null && typeof result === 'object' && 'blockNumber' in result
        ? result.blockNumber
        : result
    const text = typeof value === 'number' ? String(value) : value
    const block = blockNumberOf(text, 'block lookup')
    if (block === null) throw new ExplorerError('block lookup: the answer holds no block number')
    return block
  }

  /** The address's balance in wei. */
  async balanceWei(address: string): Promise<bigint> {
    const result = await this.call('balance', {
      module: 'account',
      action: 'balance',
      address,
      tag: 'latest',
    })
    if (typeof result !== 'string' || !/^\d+$/.test(result)) {
      throw new ExplorerError('balance: the answer holds no amount')
    }
    return BigInt(result)
  }

  /**
   * Every normal transaction of `address` from `startBlock` on, oldest first, a
   * page at a time. Paged by block cursor: the next page starts at the last block
   * seen, and the records of that block already yielded are dropped by hash, so
   * no page size is assumed and a short page is not taken as the end. The end is
   * a page that brings nothing new.
   */
  async *transactions(
    address: string,
    startBlock: number,
    warn: (message: string) => void,
  ): AsyncGenerator<ExplorerTransaction[]> {
    let cursor = startBlock
    // Hashes already yielded in the cursor block: the only ones a page can repeat.
    let seenAtCursor = new Set<string>()
    // The explorer's real page size: what was asked, or less if a page that was
    // followed by more records showed a lower cap.
    let pageSize = TXLIST_PAGE_RECORDS
    let previousLength: number | null = null
    for (;;) {
      const result = await this.call('txlist', {
        module: 'account',
        action: 'txlist',
        address,
        startblock: String(cursor),
        endblock: END_BLOCK,
        page: '1',
        offset: String(TXLIST_PAGE_RECORDS),
        sort: 'asc',
      })
      if (!Array.isArray(result)) throw new ExplorerError('txlist: the answer holds no list')
      const fresh: ExplorerTransaction[] = []
      let lastBlock = cursor
      for (const record of result as ExplorerTransaction[]) {
        const block = blockNumberOf(record?.blockNumber, 'txlist')
        // SPEC 1.2 rule 10: confirmed only; a record without a block is pending.
        if (block === null || block < cursor) continue
        const hash = typeof record.hash === 'string' ? record.hash.toLowerCase() : ''
        if (block === cursor && seenAtCursor.has(hash)) continue
        if (block > lastBlock) {
          lastBlock = block
          seenAtCursor = new Set()
        }
        if (block === lastBlock) seenAtCursor.add(hash)
        fresh.push(record)
      }
      if (fresh.length === 0) {
        // A full page of one block brought nothing new: that block holds more
        // records than a page, and the cursor cannot get past them.
        if (result.length >= pageSize) {
          warn(`block ${cursor} holds more transactions than one page; some may be missing`)
        }
        return
      }
      if (previousLength !== null) pageSize = Math.min(pageSize, previousLength)
      previousLength = result.length
      cursor = lastBlock
      yield fresh
    }
  }

  /** One call, spaced by the rate limit, retried a few times when the explorer says "rate limit". */
  private async call(what: string, params: Record<string, string>): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.callOnce(what, params)
      } catch (error) {
        const delay = RATE_LIMIT_RETRY_DELAYS_MS[attempt]
        if (!(error instanceof RateLimited) || delay === undefined) throw error
        await sleep(delay)
      }
    }
  }

  private async callOnce(what: string, params: Record<string, string>): Promise<unknown> {
    const { url, chainId, apiKey, limiter } = this.settings
    const request = new URL(url)
    request.searchParams.set('chainid', String(chainId))
    for (const [name, value] of Object.entries(params)) request.searchParams.set(name, value)
    request.searchParams.set('apikey', apiKey)
    const { closing } = this.settings
    await limiter.take()
    throwIfClosing(closing)
    const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS)
    let response: Response
    try {
      response = await fetch(request, {
        headers: { accept: 'application/json' },
        signal: closing ? AbortSignal.any([timeout, closing]) : timeout,
      })
    } catch (error) {
      throwIfClosing(closing)
      throw new ExplorerError(`${what}: explorer unreachable (${this.networkReason(error)})`)
    }
    if (response.status === 429 || !response.ok) {
      await response.body?.cancel().catch(() => undefined)
      if (response.status === 429) throw new RateLimited(`${what}: explorer rate limit reached`)
      throw new ExplorerError(`${what}: explorer answered HTTP ${response.status}`)
    }
    let body: string
    try {
      body = await readBoundedText(response, ANSWER_MAX_BYTES)
    } catch (error) {
      throwIfClosing(closing)
      if (error instanceof BodyTooLarge) {
        throw new ExplorerError(
          `${what}: the explorer's answer is larger than ${ANSWER_MAX_BYTES / 1024 / 1024} MiB`,
        )
      }
      throw new ExplorerError(
        `${what}: the explorer's answer broke off part-way (${this.networkReason(error)})`,
      )
    }
    let reply: Reply | null = null
    try {
      reply = JSON.parse(body) as Reply
    } catch {
      // judged below
    }
    if (reply === null || typeof reply !== 'object') {
      throw new ExplorerError(`${what}: the explorer's answer is not JSON`)
    }
    // Etherscan sends the status as a string; some explorers as a number.
    const status = typeof reply.status === 'number' ? String(reply.status) : reply.status
    if (status === '1' || (status === undefined && reply.result !== undefined)) {
      return reply.result
    }
    if (status !== undefined && status !== '0') {
      const shown = this.scrub(JSON.stringify(status))
      throw new ExplorerError(`${what}: the answer's status is ${shown}, not "1" or "0"`)
    }
    const message = typeof reply.message === 'string' ? reply.message : ''
    // CONTRACT 3: "No transactions found" is an empty list, not an error.
    if (NOTHING_FOUND.test(message)) return []
    // Etherscan puts the reason in `result` (message "NOTOK"); Blockscout in `message`.
    const reason =
      typeof reply.result === 'string' && reply.result !== '' ? reply.result : message || 'error'
    const text = this.scrub(reason)
    if (RATE_LIMIT.test(text)) throw new RateLimited(`${what}: ${text}`)
    throw new ExplorerError(`${what}: explorer said: ${text}`)
  }

  /**
   * Why a request failed: the socket error's code (ECONNREFUSED), else the
   * cause's own text ("redirect count exceeded"), scrubbed of the key; never the
   * error's text, which could carry the URL.
   */
  private networkReason(error: unknown): string {
    if (error instanceof Error && error.name === 'TimeoutError') return 'timed out'
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause
    if (cause && typeof cause.code === 'string') return cause.code
    if (cause && typeof cause.message === 'string' && cause.message)
      return this.scrub(cause.message)
    return error instanceof Error ? error.name : 'error'
  }

  private scrub(text: string): string {
    // eslint-disable-next-line no-control-regex
    const clean = redactText(text, [this.settings.apiKey]).replace(/[\u0000-\u001f\u007f]/g, ' ')
    return clean.length > UPSTREAM_TEXT_MAX ? `${clean.slice(0, UPSTREAM_TEXT_MAX)}…` : clean
  }
}

/**
 * A block number from the explorer's decimal text; null when there is none (a
 * pending record has none). Digits past 2^53 cannot be a block: an ExplorerError.
 */
function blockNumberOf(text: unknown, what: string): number | null {
  if (typeof text !== 'string' || !/^\d+$/.test(text)) return null
  const block = Number(text)
  if (!Number.isSafeInteger(block)) {
    throw new ExplorerError(`${what}: block number ${text.slice(0, 40)} is out of range`)
  }
  return block
}

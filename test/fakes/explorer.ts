// A fake block explorer on 127.0.0.1 in the Etherscan-v2 dialect (CONTRACT 3),
// in either of its two flavours: `etherscan` (errors in `result`, block lookup a
// string, served at /v2/api) or `blockscout` (errors in `message`, block lookup
// `{blockNumber}`, served at /api). Blocks are 12 s apart from GENESIS_TIME, so
// a transaction's block decides its timestamp. It records every request and can
// be told to fail in the ways a real explorer does, or to answer oddly.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'

export type ExplorerDialect = 'etherscan' | 'blockscout'

export const GENESIS_TIME = 1_600_000_000
export const BLOCK_SECONDS = 12

export function timeOfBlock(block: number): number {
  return GENESIS_TIME + block * BLOCK_SECONDS
}

/** A transaction as the fake stores it; `record()` turns it into a txlist record. */
export interface FakeTx {
  hash: string
  block: number
  from: string
  /** '' for a contract creation. */
  to: string
  contractAddress?: string
  /** Wei, decimal text. */
  value: string
  gasUsed: string
  gasPrice: string
  isError?: '0' | '1'
}

export interface ExplorerRequest {
  params: Record<string, string>
  headers: IncomingHttpHeaders
  at: number
}

export interface FakeExplorer {
  dialect: ExplorerDialect
  /** The api_url to configure. */
  url: string
  apiKey: string
  transactions: FakeTx[]
  /** Wei per address; an address without one has balance 0. */
  balances: Map<string, string>
  /** Most records a txlist page holds, whatever `offset` asks (an explorer's own cap). */
  pageCap: number
  /** Addresses whose txlist answers an error. */
  failingAddresses: Set<string>
  /** Whether getblocknobytime answers an error. */
  failBlockLookup: boolean
  /** Whether the balance call answers an error. */
  failBalance: boolean
  /** The next this-many calls answer "rate limit reached". */
  rateLimitNext: number
  /** Every request, in order (the key included: tests check where it went). */
  requests: ExplorerRequest[]
  /** Changes each JSON answer before it is sent (a status as a number, an odd block number). */
  reshape: ((reply: ExplorerReply, params: Record<string, string>) => unknown) | null
  /** Answers a request itself when it returns true (a redirect loop, say). */
  intercept: ((params: Record<string, string>, res: ServerResponse) => boolean) | null
  close(): Promise<void>
}

export interface ExplorerReply {
  status: string
  message: string
  result: unknown
}

/** Index of the first transaction at or after `block` in a list sorted by block. */
function firstAtOrAfter(history: FakeTx[], block: number): number {
  let low = 0
  let high = history.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (history[mid]!.block < block) low = mid + 1
    else high = mid
  }
  return low
}

export function hashOf(n: number): string {
  return `0x${n.toString(16).padStart(64, '0')}`
}

function recordOf(tx: FakeTx): Record<string, string> {
  return {
    blockNumber: String(tx.block),
    timeStamp: String(timeOfBlock(tx.block)),
    hash: tx.hash,
    nonce: '0',
    blockHash: `0x${'ab'.repeat(32)}`,
    transactionIndex: '0',
    from: tx.from,
    to: tx.to,
    value: tx.value,
    gas: '21000',
    gasPrice: tx.gasPrice,
    isError: tx.isError ?? '0',
    txreceipt_status: tx.isError === '1' ? '0' : '1',
    input: '0x',
    contractAddress: tx.contractAddress ?? '',
    cumulativeGasUsed: tx.gasUsed,
    gasUsed: tx.gasUsed,
    confirmations: '100',
    methodId: '0x',
    functionName: '',
  }
}

export async function startFakeExplorer(
  t: TestContext | null,
  options: { dialect?: ExplorerDialect; apiKey?: string } = {},
): Promise<FakeExplorer> {
  const dialect = options.dialect ?? 'etherscan'
  const path = dialect === 'etherscan' ? '/v2/api' : '/api'
  // One object: the tests change its knobs while the server reads them.
  const fake: FakeExplorer = {
    url: '',
    close: async () => undefined,
    dialect,
    apiKey: options.apiKey ?? 'explorer-key-SECRET-7f3a9c',
    transactions: [],
    balances: new Map(),
    pageCap: 10_000,
    failingAddresses: new Set(),
    failBlockLookup: false,
    failBalance: false,
    rateLimitNext: 0,
    requests: [],
    reshape: null,
    intercept: null,
  }

  const ok = (result: unknown) => ({ status: '1', message: 'OK', result })
  // The two ways explorers say no. The fake repeats the key it was sent in its
  // error text (some indexers do), so that a leak would show in the tests.
  const error = (text: string) =>
    dialect === 'etherscan'
      ? { status: '0', message: 'NOTOK', result: text }
      : { status: '0', message: text, result: null }

  // An address's transactions by block, kept until the list changes (the
  // benchmark serves 50,000 of them page after page).
  let histories = new Map<string, FakeTx[]>()
  let historiesOf: { list: FakeTx[]; length: number } | null = null
  function historyOf(address: string): FakeTx[] {
    if (
      historiesOf?.list !== fake.transactions ||
      historiesOf.length !== fake.transactions.length
    ) {
      histories = new Map()
      historiesOf = { list: fake.transactions, length: fake.transactions.length }
    }
    let history = histories.get(address)
    if (!history) {
      history = fake.transactions
        .filter((tx) =>
          [tx.from, tx.to, tx.contractAddress ?? ''].some((a) => a.toLowerCase() === address),
        )
        .sort((a, b) => a.block - b.block)
      histories.set(address, history)
    }
    return history
  }

  function answer(q: Record<string, string>): ExplorerReply {
    if (fake.rateLimitNext > 0) {
      fake.rateLimitNext--
      return error('Max calls per sec rate limit reached (3/sec)')
    }
    if (q.apikey !== fake.apiKey) return error(`Invalid API Key (#err2)|${q.apikey ?? ''}`)
    if (q.chainid === undefined) return error('Missing chainid parameter')
    const call = `${q.module}/${q.action}`
    if (call === 'block/getblocknobytime') {
      if (fake.failBlockLookup || q.closest !== 'after')
        return error('Error! No closest block found')
      const block = Math.max(0, Math.ceil((Number(q.timestamp) - GENESIS_TIME) / BLOCK_SECONDS))
      return ok(dialect === 'etherscan' ? String(block) : { blockNumber: String(block) })
    }
    const address = (q.address ?? '').toLowerCase()
    if (call === 'account/balance') {
      if (fake.failBalance) return error('Error! Invalid address format')
      return ok(fake.balances.get(address) ?? '0')
    }
    if (call === 'account/txlist') {
      if (fake.failingAddresses.has(address))
        return error('Query Timeout occured. Please select a smaller result dataset')
      const start = Number(q.startblock ?? 0)
      const end = Number(q.endblock ?? Number.MAX_SAFE_INTEGER)
      const offset = Math.min(Number(q.offset ?? 10_000) || 10_000, fake.pageCap)
      const page = Number(q.page ?? 1) || 1
      const history = historyOf(address)
      const first = firstAtOrAfter(history, start)
      const slice = history
        .slice(first + (page - 1) * offset, first + page * offset)
        .filter((tx) => tx.block <= end)
      if (slice.length === 0) return { status: '0', message: 'No transactions found', result: [] }
      return ok(slice.map(recordOf))
    }
    return error(`unknown call ${call}`)
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake')
    const params = Object.fromEntries(url.searchParams)
    fake.requests.push({ params, headers: req.headers, at: performance.now() })
    if (req.method !== 'GET' || url.pathname !== path) {
      res.writeHead(404, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ status: '0', message: 'Not found', result: null }))
    }
    if (fake.intercept?.(params, res)) return
    const reply = answer(params)
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(fake.reshape ? fake.reshape(reply, params) : reply))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  fake.url = `http://127.0.0.1:${port}${path}`
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  t?.after(() => fake.close())
  return fake
}

/** The SERVICE_* variables that point the service at this fake, watching `addresses`. */
export function explorerEnv(
  fake: FakeExplorer,
  addresses: string[],
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    SERVICE_ETHEREUM_API_KEY: fake.apiKey,
    SERVICE_ETHEREUM_API_URL: fake.url,
    SERVICE_ETHEREUM_ADDRESSES: JSON.stringify(addresses),
    // Fast by default; the rate-limit test sets its own.
    SERVICE_ETHEREUM_RATE_LIMIT: '1000',
    ...extra,
  }
}

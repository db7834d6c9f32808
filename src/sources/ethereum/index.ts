// The on-chain source (SPEC 1.2): native-coin activity of watched addresses, read
// from a block explorer in the Etherscan-v2 dialect (explorer.ts). One account per
// address under the institution "Ethereum"; one row per address and transaction
// (ledger-row.ts). Addresses come from config and from runtime entries (addresses.ts).
import { REDACTED, type Config } from '../../config/index.js'
import type { ServiceContext } from '../../context.js'
import { ShuttingDown } from '../../errors.js'
import { findAccountRow } from '../../ledger/accounts.js'
import type { IngestAccount, IngestTransaction } from '../../ledger/ingest.js'
import type { Batch, Skip, Source, SourceContext, SourceState } from '../source.js'
import {
  accountNameOf,
  addRuntimeAddress,
  configAddresses,
  credentialEntries,
  removeRuntimeAddress,
  watchedAddresses,
} from './addresses.js'
import { ExplorerClient } from './explorer.js'
import { accountIdOf, ethAmountOf, ledgerRowOf } from './ledger-row.js'
import { RateLimiter } from './rate-limit.js'
import { readAhead } from './read-ahead.js'

export const ETHEREUM_ORGANIZATION = { id: 'ethereum', name: 'Ethereum' }
const SECONDS_PER_DAY = 86_400
/** Pages fetched ahead of the merge: about one unit of work of the engine. */
const READ_AHEAD_PAGES = 5

export function createEthereumSource(): Source {
  // One limiter for the source's life (one key), so that back-to-back syncs
  // share the budget; built at the first sync, from the config of that time.
  let limiter: RateLimiter | null = null
  return {
    type: 'ethereum',
    title: 'Ethereum',
    // SPEC 1.2 rule 8: started by its key; configured addresses without a key also
    // start it, so that the missing key shows as a sync error rather than silence.
    isConfigured: (config) => apiKeyOf(config) !== null || configAddresses(config).length > 0,
    state,
    fetch: (sctx) =>
      fetchEthereum(sctx, (limiter ??= new RateLimiter(sctx.ctx.config.ethereum.rate_limit))),
    setCredential: (sctx, body) => addRuntimeAddress(sctx, body.token),
    deleteCredential: (sctx, id) => removeRuntimeAddress(sctx, id),
  }
}

function apiKeyOf(config: Config): string | null {
  const key = config.ethereum.api_key
  return key === null || key.trim() === '' ? null : key
}

async function state(sctx: SourceContext): Promise<SourceState> {
  const { ethereum } = sctx.ctx.config
  const watched = await watchedAddresses(sctx)
  return {
    connected: apiKeyOf(sctx.ctx.config) !== null && watched.some((w) => w.valid),
    credential: { kind: 'multi', entries: credentialEntries(watched) },
    config: [
      { key: 'ethereum.api_key', value: ethereum.api_key === null ? null : REDACTED },
      { key: 'ethereum.chain_id', value: ethereum.chain_id },
      { key: 'ethereum.api_url', value: ethereum.api_url },
      { key: 'ethereum.rate_limit', value: ethereum.rate_limit },
    ],
  }
}

async function fetchEthereum(sctx: SourceContext, limiter: RateLimiter): Promise<Batch | Skip> {
  const { ctx } = sctx
  const watched = await watchedAddresses(sctx)
  if (watched.length === 0) return { skip: 'no address to watch' }
  const apiKey = apiKeyOf(ctx.config)
  // SPEC 1.2 rule 8: a sync error, never a start-up failure.
  if (apiKey === null) throw new Error('ethereum.api_key is not set')

  const explorer = new ExplorerClient({
    url: ctx.config.ethereum.api_url,
    chainId: ctx.config.ethereum.chain_id,
    apiKey,
    limiter,
    closing: ctx.signals.closing,
  })
  const warnings: string[] = []
  // Every address that fails, with why; the source fails only when all do (rule 7).
  const failures: string[] = []
  const fail = (address: string, reason: string) => {
    failures.push(`${address}: ${reason}`)
    warnings.push(`address ${address}: ${reason}; skipped`)
    ctx.log.warn({ source: 'ethereum', address, err: reason }, 'ethereum: address skipped')
  }
  const addresses: string[] = []
  for (const w of watched) {
    if (w.valid) addresses.push(w.id)
    else fail(w.id, 'not a valid address (0x followed by 40 hexadecimal characters)')
  }

  const accounts: IngestAccount[] = []
  for (const address of addresses) {
    accounts.push({
      id: accountIdOf(address),
      org_id: ETHEREUM_ORGANIZATION.id,
      name: accountNameOf(address),
      currency: 'ETH',
      balance: await balanceOf(ctx, explorer, address, warnings),
    })
  }
  const startBlock = await lookbackStartBlock(ctx, explorer, warnings)

  let skipped = 0
  async function* rows(): AsyncGenerator<IngestTransaction[]> {
    for (const address of addresses) {
      try {
        const pages = explorer.transactions(address, startBlock, (text) =>
          warnings.push(`address ${address}: ${text}`),
        )
        for await (const records of readAhead(pages, READ_AHEAD_PAGES)) {
          const page: IngestTransaction[] = []
          for (const record of records) {
            try {
              const row = ledgerRowOf(address, record)
              if (row === null) skipped++
              else page.push(row)
            } catch (error) {
              skipped++
              if (skipped <= 5)
                warnings.push(`address ${address}: record skipped: ${message(error)}`)
            }
          }
          yield page
        }
      } catch (error) {
        // A shutdown ends the sync, not one address.
        if (error instanceof ShuttingDown) throw error
        // SPEC 1.2 rule 7: a failing address is logged and skipped; the others go on.
        fail(address, message(error))
      }
    }
    if (failures.length === watched.length) throw new Error(failures.join('; '))
  }

  return {
    organizations: [ETHEREUM_ORGANIZATION],
    accounts,
    transactions: rows(),
    summary: () => ({ skipped, warnings }),
  }
}

/**
 * SPEC 1.2 rule 7: balances are best-effort. When the explorer cannot say, or
 * says an amount too long to be one, the account keeps the balance it had (or
 * "0" for a new one) and the run says why.
 */
async function balanceOf(
  ctx: ServiceContext,
  explorer: ExplorerClient,
  address: string,
  warnings: string[],
): Promise<string> {
  try {
    return ethAmountOf(await explorer.balanceWei(address), 'the balance comes to')
  } catch (error) {
    warnings.push(`address ${address}: balance not updated: ${message(error)}`)
    const existing = await findAccountRow(ctx.db.kysely, accountIdOf(address))
    return existing?.balance ?? '0'
  }
}

/**
 * SPEC 1.2 rule 6: `sync.lookback_days` as a start block, looked up once per
 * sync; when the lookup fails, the full history is fetched.
 */
async function lookbackStartBlock(
  ctx: ServiceContext,
  explorer: ExplorerClient,
  warnings: string[],
): Promise<number> {
  const days = ctx.config.sync.lookback_days
  if (days === 0) return 0
  const since = Math.floor(ctx.clock.now().getTime() / 1000) - days * SECONDS_PER_DAY
  try {
    return await explorer.blockAt(since)
  } catch (error) {
    warnings.push(
      `start block of the ${days}-day window not found (${message(error)}); fetched the full history`,
    )
    ctx.log.warn({ source: 'ethereum', err: message(error) }, 'ethereum: lookback lookup failed')
    return 0
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

// The aggregator source (SPEC 1.1, CONTRACT 4): a SimpleFIN bridge. A setup token
// (config `aggregator.setup_token`, or PUT .../credential) is claimed once for an
// access URL kept in the secret store; each sync reads accounts, balances and
// transactions in windows of at most 90 days (poll.ts), within the bridge's
// request budget on a schedule. Docs: docs/aggregator.md.
import { REDACTED, type Config } from '../../config/index.js'
import { Conflict, Invalid, NotFound } from '../../errors.js'
import type { Batch, CredentialEntry, Skip, Source, SourceContext, SourceState } from '../source.js'
import { decodeSetupToken, parseAccessUrl } from './access.js'
import { BridgeRefused } from './bridge.js'
import {
  accessCredential,
  claimConfiguredSetupToken,
  claimSetupToken,
  forgetAccessUrl,
  hasStoredAccessUrl,
  isRefused,
  setRefused,
  storeAccessUrl,
  unclaimedSetupToken,
  type AccessCredential,
} from './credential.js'
import { pollBridge, requestBudget, type PollResult } from './poll.js'

/** Credential entry ids of GET /sources (DELETE /sources/aggregator/credentials/{id}). */
const ACCESS_URL_ENTRY = 'access_url'
const SETUP_TOKEN_ENTRY = 'setup_token'
/** Rows named in the warning about skipped rows; the count says the rest. */
const SKIPPED_EXAMPLES = 3

export function createAggregatorSource(): Source {
  return {
    type: 'aggregator',
    title: 'SimpleFIN',
    isConfigured: (config: Config) =>
      config.aggregator.access_url !== null || config.aggregator.setup_token !== null,
    // A credential put at runtime starts the source without any configuration.
    hasStoredCredential: hasStoredAccessUrl,
    state,
    fetch: fetchAggregator,
    setCredential,
    deleteCredential,
  }
}

/** The access URL in use, or null when there is none or the configured one is unusable. */
async function usableCredential(sctx: SourceContext): Promise<AccessCredential | null> {
  try {
    return await accessCredential(sctx)
  } catch {
    return null // reported by the next sync, as a sync error
  }
}

async function state(sctx: SourceContext): Promise<SourceState> {
  const { aggregator } = sctx.ctx.config
  const credential = await usableCredential(sctx)
  const pending = await unclaimedSetupToken(sctx)
  const entries: CredentialEntry[] = []
  if (credential !== null) {
    entries.push({
      id: ACCESS_URL_ENTRY,
      label: `SimpleFIN access URL (${credential.access.endpoint.host})`,
      from_config: credential.fromConfig,
    })
  } else if (pending !== null) {
    entries.push({
      id: SETUP_TOKEN_ENTRY,
      label: 'SimpleFIN setup token (claimed on the next sync)',
      from_config: true,
    })
  }
  return {
    // A setup token waiting for its claim is ready to fetch; a refused access URL is not.
    connected: credential !== null ? !(await isRefused(sctx, credential)) : pending !== null,
    credential: { kind: 'token', entries },
    config: [
      { key: 'aggregator.access_url', value: aggregator.access_url === null ? null : REDACTED },
      { key: 'aggregator.setup_token', value: aggregator.setup_token === null ? null : REDACTED },
    ],
  }
}

async function fetchAggregator(sctx: SourceContext): Promise<Batch | Skip> {
  const { ctx } = sctx
  const pending = await unclaimedSetupToken(sctx)
  const refusal = pending === null ? null : await claimConfiguredSetupToken(sctx, pending)
  const credential = await accessCredential(sctx)
  if (credential === null) {
    return {
      skip: `not connected: ${refusal?.message ?? 'no SimpleFIN access URL or setup token; put a setup token with PUT /api/v1/sources/aggregator/credential'}`,
    }
  }
  const budget = await requestBudget(sctx)
  if (typeof budget !== 'number') return budget

  let polled: PollResult
  try {
    polled = await pollBridge(sctx, credential, budget)
  } catch (error) {
    if (!(error instanceof BridgeRefused)) throw error
    // Revoked or disabled at the bridge: not connected until the credential changes
    // or a later sync gets through (SPEC 1.1: skipped, not an error).
    await setRefused(sctx, credential)
    ctx.log.warn({ source: 'aggregator' }, 'aggregator: the bridge refused the access URL (403)')
    return { skip: `not connected: ${error.message}` }
  }
  if (await isRefused(sctx, credential)) await setRefused(sctx, null)
  ctx.log.info(
    {
      source: 'aggregator',
      requests: polled.requests,
      accounts: polled.accounts.length,
      transactions: polled.transactions.length,
    },
    'aggregator: bridge polled',
  )

  // A refused configured token does not stop an access URL that works.
  const warnings = refusal === null ? [] : [`aggregator.setup_token: ${refusal.message}`]
  warnings.push(...polled.warnings)
  if (polled.skipped.length > 0) {
    warnings.push(
      `${polled.skipped.length} row(s) skipped (${polled.skipped.slice(0, SKIPPED_EXAMPLES).join('; ')})`,
    )
  }
  return {
    organizations: polled.organizations,
    accounts: polled.accounts,
    transactions: (async function* () {
      yield polled.transactions
    })(),
    summary: () => ({ skipped: polled.skipped.length, warnings }),
  }
}

/** PUT /sources/aggregator/credential and its alias: `{token}` is a setup token or an access URL. */
async function setCredential(sctx: SourceContext, body: { token: string }): Promise<void> {
  const token = body.token.trim()
  if (parseAccessUrl(token) !== null) {
    await storeAccessUrl(sctx, token)
    sctx.ctx.log.info({ source: 'aggregator' }, 'aggregator: access URL stored')
    return
  }
  if (decodeSetupToken(token) === null) {
    throw Invalid.field(
      'token',
      'must be a SimpleFIN setup token or an access URL (https://user:password@host/path)',
    )
  }
  try {
    await claimSetupToken(sctx, token)
  } catch (error) {
    if (error instanceof Invalid) throw error
    // The claim's messages name the HTTP status or network failure, never the token.
    throw Invalid.field('token', (error as Error).message)
  }
}

async function deleteCredential(sctx: SourceContext, id: string): Promise<void> {
  const { aggregator } = sctx.ctx.config
  if (id === ACCESS_URL_ENTRY && (await hasStoredAccessUrl(sctx))) {
    await forgetAccessUrl(sctx)
    return
  }
  if (
    (id === ACCESS_URL_ENTRY && aggregator.access_url !== null) ||
    (id === SETUP_TOKEN_ENTRY && aggregator.setup_token !== null)
  ) {
    throw new Conflict(`aggregator credential ${id} comes from the configuration; remove it there`)
  }
  throw new NotFound(`aggregator has no credential ${id}`)
}

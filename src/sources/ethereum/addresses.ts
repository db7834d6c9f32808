// Watched addresses (SPEC 1.2 rules 8-9, "Runtime management"): the union of
// `ethereum.address`, `ethereum.addresses` and the addresses added at runtime,
// lowercased and deduplicated. Runtime addresses are kept in the secret store
// (a JSON list), so they survive restarts and are shared by every process of a
// PostgreSQL deployment; addresses are public, the store is simply the place
// that already persists source credentials.
import type { Config } from '../../config/index.js'
import { Conflict, Invalid, NotFound } from '../../errors.js'
import type { SecretStore } from '../../secrets/store.js'
import type { CredentialEntry, SourceContext } from '../source.js'

const RUNTIME_ADDRESSES_SECRET = 'ethereum.watched_addresses'

// SPEC 1.2 rule 9: structural only; checksum casing is accepted, not verified.
const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/

/** The canonical (lower-case) address, or null when the text is not one. */
export function parseAddress(text: string): string | null {
  const trimmed = text.trim()
  return ADDRESS_PATTERN.test(trimmed) ? trimmed.toLowerCase() : null
}

/** CONTRACT 3: the first 6 and last 4 characters of the address, joined by `…`. */
export function accountNameOf(address: string): string {
  return `${address.slice(0, 6)}…${address.slice(-4)}`
}

export interface WatchedAddress {
  /** Lower-case address, or the text as configured when it is not a valid one. */
  id: string
  valid: boolean
  from_config: boolean
}

/** Config addresses first (in file order), then runtime ones, each once. */
export async function watchedAddresses(sctx: SourceContext): Promise<WatchedAddress[]> {
  const out = new Map<string, WatchedAddress>()
  for (const raw of configAddresses(sctx.ctx.config)) {
    const address = parseAddress(raw)
    const id = address ?? raw.trim()
    if (!out.has(id)) out.set(id, { id, valid: address !== null, from_config: true })
  }
  for (const address of await runtimeAddresses(sctx.secrets)) {
    if (!out.has(address)) out.set(address, { id: address, valid: true, from_config: false })
  }
  return [...out.values()]
}

export function configAddresses(config: Config): string[] {
  const { address, addresses } = config.ethereum
  return [...(address === null ? [] : [address]), ...addresses].filter((a) => a.trim() !== '')
}

export function credentialEntries(watched: WatchedAddress[]): CredentialEntry[] {
  return watched.map((w) => ({
    id: w.id,
    label: w.valid ? w.id : `${w.id} (not a valid address)`,
    from_config: w.from_config,
  }))
}

/** PUT /sources/ethereum/credential: appends an address, unless it is watched already. */
export async function addRuntimeAddress(sctx: SourceContext, token: string): Promise<void> {
  const address = parseAddress(token)
  if (address === null) {
    throw Invalid.field('token', 'must be an address: 0x followed by 40 hexadecimal characters')
  }
  await updateRuntime(sctx.secrets, async (list) => {
    const watched = await watchedAddresses(sctx)
    return watched.some((w) => w.id === address) ? list : [...list, address]
  })
}

/** DELETE /sources/ethereum/credentials/{id}: stops watching a runtime address. */
export async function removeRuntimeAddress(sctx: SourceContext, id: string): Promise<void> {
  const address = parseAddress(id) ?? id.trim()
  const watched = (await watchedAddresses(sctx)).find((w) => w.id === address)
  if (watched?.from_config) {
    throw new Conflict(
      `address ${address} comes from the configuration file (ethereum.address or ethereum.addresses); remove it there`,
    )
  }
  await updateRuntime(sctx.secrets, async (list) => {
    if (!list.includes(address)) throw new NotFound(`ethereum has no address ${address}`)
    return list.filter((a) => a !== address)
  })
}

async function runtimeAddresses(secrets: SecretStore): Promise<string[]> {
  return parseRuntimeAddresses(await secrets.get(RUNTIME_ADDRESSES_SECRET))
}

function parseRuntimeAddresses(text: string | null): string[] {
  if (text === null) return []
  try {
    const parsed = JSON.parse(text) as unknown
    if (!Array.isArray(parsed)) return []
    // Only what PUT could have stored; anything else is ignored, not trusted.
    return parsed.flatMap((a) => (typeof a === 'string' && parseAddress(a) === a ? [a] : []))
  } catch {
    return []
  }
}

/** Read-modify-write of the runtime list, one at a time (SecretStore.update). */
function updateRuntime(
  secrets: SecretStore,
  change: (list: string[]) => Promise<string[]>,
): Promise<void> {
  return secrets.update(RUNTIME_ADDRESSES_SECRET, async (text) => {
    const list = parseRuntimeAddresses(text)
    const changed = await change(list)
    if (changed === list) return text
    return changed.length === 0 ? null : JSON.stringify(changed)
  })
}

// API keys (SPEC 2.7): `coffer_` + 43 base64url characters (32 random bytes),
// shown once; only the SHA-256 hash and a 16-character display prefix are kept.
import { randomBytes, randomUUID } from 'node:crypto'
import { apiKeyPrincipal, CREDENTIALS_CHANNEL } from './principal.js'
import { announceChange } from '../db/coordination.js'
import type { ServiceContext } from '../context.js'
import { Invalid, NotFound } from '../errors.js'
import { isoNow } from '../clock.js'
import type { ApiKeyJson, ApiKeyScope, CreatedApiKey } from '../schemas/security.js'
import { sha256Hex } from './hash.js'

export const API_KEY_BRAND = 'coffer'
export const API_KEY_PREFIX_LENGTH = 16
export const LAST_USED_WRITE_INTERVAL_MS = 60_000

export async function createApiKey(
  ctx: ServiceContext,
  input: { name: string; scope: ApiKeyScope },
): Promise<CreatedApiKey> {
  const name = input.name.trim()
  if (name.length === 0 || name.length > 200)
    throw Invalid.field('name', 'must be 1 to 200 characters')
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name))
    throw Invalid.field('name', 'must not contain control characters')
  const key = `${API_KEY_BRAND}_${randomBytes(32).toString('base64url')}`
  const row = {
    id: `key_${randomUUID()}`,
    name,
    prefix: key.slice(0, API_KEY_PREFIX_LENGTH),
    scope: input.scope,
    key_hash: sha256Hex(key),
    created_at: isoNow(ctx.clock),
    last_used_at: null,
  }
  await ctx.db.kysely.insertInto('api_keys').values(row).execute()
  return { id: row.id, name: row.name, prefix: row.prefix, scope: row.scope, key }
}

export async function listApiKeys(ctx: ServiceContext): Promise<{ api_keys: ApiKeyJson[] }> {
  // Index: api_keys_created (created_at, id).
  const rows = await ctx.db.kysely
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'scope', 'created_at', 'last_used_at'])
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  return { api_keys: rows.map((r) => ({ ...r, scope: r.scope as ApiKeyScope })) }
}

export async function revokeApiKey(ctx: ServiceContext, id: string): Promise<void> {
  const result = await ctx.db.kysely.deleteFrom('api_keys').where('id', '=', id).executeTakeFirst()
  if (Number(result.numDeletedRows) === 0) throw new NotFound(`API key ${id} not found`)
  // Its event streams end too: a revoked key hears nothing more, in any process.
  ctx.signals.emit('credential.revoked', apiKeyPrincipal(id))
  await announceChange(ctx.db.kysely, CREDENTIALS_CHANNEL)
}

/**
 * Finds the key a bearer value belongs to (by hash; the unique index makes this a
 * point lookup) and records its use, writing last_used_at at most once a minute.
 */
export class ApiKeyLookup {
  private readonly lastWritten = new Map<string, number>()

  async find(
    ctx: ServiceContext,
    bearer: string,
  ): Promise<{ id: string; scope: ApiKeyScope } | null> {
    const row = await ctx.db.kysely
      .selectFrom('api_keys')
      .select(['id', 'scope', 'last_used_at'])
      .where('key_hash', '=', sha256Hex(bearer))
      .executeTakeFirst()
    if (!row) return null
    const now = ctx.clock.now().getTime()
    const previous =
      this.lastWritten.get(row.id) ?? (row.last_used_at ? Date.parse(row.last_used_at) : 0)
    if (now - previous >= LAST_USED_WRITE_INTERVAL_MS) {
      this.lastWritten.set(row.id, now)
      await ctx.db.kysely
        .updateTable('api_keys')
        .set({ last_used_at: isoNow(ctx.clock) })
        .where('id', '=', row.id)
        .execute()
    }
    return { id: row.id, scope: row.scope as ApiKeyScope }
  }
}

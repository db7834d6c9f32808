// The dashboard token (SPEC 5.3): from config or env (authoritative, changed
// only by editing config and restarting), else one generated or pasted in the
// dashboard and stored as a SHA-256 hash (revocable), else none.
import { randomBytes } from 'node:crypto'
import { CREDENTIALS_CHANNEL, DASHBOARD_PRINCIPAL } from './principal.js'
import type { ServiceContext } from '../context.js'
import type { StoredToken } from '../schemas/security.js'
import { Conflict, Invalid } from '../errors.js'
import { isoNow } from '../clock.js'
import { hashesEqual, sha256Hex } from './hash.js'
import { announceChange } from '../db/coordination.js'

export const PASTED_TOKEN_MIN_LENGTH = 16
const STORED_TOKEN_NAME = 'dashboard'

export type TokenSource = 'config' | 'stored' | 'none'

/** Where the token is checked from; kept in memory so that checks need no query. */
export class DashboardToken {
  private configHash: string | null
  private storedHash: string | null = null

  constructor(configToken: string | null) {
    this.configHash = configToken ? sha256Hex(configToken) : null
  }

  get source(): TokenSource {
    if (this.configHash) return 'config'
    return this.storedHash ? 'stored' : 'none'
  }

  get configured(): boolean {
    return this.source !== 'none'
  }

  matches(bearer: string): boolean {
    const hash = this.configHash ?? this.storedHash
    return hash !== null && hashesEqual(hash, sha256Hex(bearer))
  }

  async load(ctx: ServiceContext): Promise<void> {
    this.storedHash = await readStoredHash(ctx)
  }

  /**
   * Reads the stored token again (another process may have replaced or revoked
   * it); true when a stored token that was in force here no longer is.
   */
  async reload(ctx: ServiceContext): Promise<boolean> {
    const previous = this.storedHash
    this.storedHash = await readStoredHash(ctx)
    return this.configHash === null && previous !== null && previous !== this.storedHash
  }

  /** POST /security/token: generate one, or take a pasted one of at least 16 characters. */
  async set(ctx: ServiceContext, pasted: string | undefined): Promise<StoredToken> {
    if (this.configHash) {
      throw new Conflict(
        'the dashboard token is set in the configuration; change it there and restart',
      )
    }
    if (pasted !== undefined && pasted.length < PASTED_TOKEN_MIN_LENGTH) {
      throw Invalid.field('token', `must be at least ${PASTED_TOKEN_MIN_LENGTH} characters`)
    }
    if (pasted !== undefined && /\s/.test(pasted))
      throw Invalid.field('token', 'must not contain white space')
    const token = pasted ?? generateDashboardToken()
    const hash = sha256Hex(token)
    const now = isoNow(ctx.clock)
    // Read from the database, not memory: another process may have stored one.
    const previous = await ctx.db.kysely
      .selectFrom('stored_tokens')
      .select('name')
      .where('name', '=', STORED_TOKEN_NAME)
      .executeTakeFirst()
    await ctx.db.kysely
      .insertInto('stored_tokens')
      .values({ name: STORED_TOKEN_NAME, token_hash: hash, created_at: now })
      .onConflict((oc) => oc.column('name').doUpdateSet({ token_hash: hash, created_at: now }))
      .execute()
    this.storedHash = hash
    await announceChange(ctx.db.kysely, CREDENTIALS_CHANNEL)
    if (previous === undefined) return { token, source: 'stored', replaced: false }
    // The streams the previous token opened end with it.
    ctx.signals.emit('credential.revoked', DASHBOARD_PRINCIPAL)
    ctx.log.warn(
      'the stored dashboard token was replaced (POST /api/v1/security/token); the previous token no longer works',
    )
    return {
      token,
      source: 'stored',
      replaced: true,
      notice:
        'This replaced the previous dashboard token, which stopped working now: update every client, script and browser that used it.',
    }
  }

  /** DELETE /security/token: revokes the stored token. */
  async revoke(ctx: ServiceContext): Promise<void> {
    if (this.configHash) {
      throw new Conflict(
        'the dashboard token is set in the configuration; remove it there and restart',
      )
    }
    await ctx.db.kysely.deleteFrom('stored_tokens').where('name', '=', STORED_TOKEN_NAME).execute()
    this.storedHash = null
    ctx.signals.emit('credential.revoked', DASHBOARD_PRINCIPAL)
    await announceChange(ctx.db.kysely, CREDENTIALS_CHANNEL)
  }
}

async function readStoredHash(ctx: ServiceContext): Promise<string | null> {
  const row = await ctx.db.kysely
    .selectFrom('stored_tokens')
    .select('token_hash')
    .where('name', '=', STORED_TOKEN_NAME)
    .executeTakeFirst()
  return row?.token_hash ?? null
}

export function generateDashboardToken(): string {
  return `coffer_dt_${randomBytes(32).toString('base64url')}`
}

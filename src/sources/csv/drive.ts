// The drive backend (SPEC 1.3 "Drive backend", 5.4): Google Drive v3 REST. One
// refresh token per instance, in the secret store, obtained by the OAuth 2.0
// authorization-code flow (offline access) or pasted. Access tokens live in
// memory only and are refreshed when they expire and on a 401. Endpoints come
// from csv.drive_api_url / drive_auth_url / drive_token_url (CONTRACT 2).
// No token, code, secret or state ever goes into a message this file produces.
import { createHash, randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import type { ServiceContext } from '../../context.js'
import { Conflict } from '../../errors.js'
import { isoNow } from '../../clock.js'
import { BodyTooLarge, readBoundedText } from '../../response-body.js'
import { throwIfClosing } from '../../signals.js'
import type { SourceContext } from '../source.js'
import type { CsvFileRef } from './backend.js'

export const DRIVE_CREDENTIAL_ID = 'drive'
const REFRESH_TOKEN_SECRET = 'csv.drive_refresh_token'
const DRIVE_SCOPE = 'https://www.googleapis.com/auth/drive.readonly'
/** CONTRACT 6: the OAuth state is single use and valid 10 minutes. */
const OAUTH_STATE_TTL_MS = 10 * 60 * 1000
const DRIVE_REQUEST_TIMEOUT_MS = 30_000
/** Refresh this long before the announced expiry, so a token never dies mid-request. */
const EXPIRY_MARGIN_MS = 60_000
const LIST_PAGE_SIZE = 1000
/** A page of 1,000 files' names and sizes is tens of kilobytes. */
const LIST_PAGE_MAX_BYTES = 16 * 1024 * 1024

/** The access token of the instance's refresh token, in memory only (one per csv source). */
export class DriveAccessToken {
  private current: { value: string; expiresAt: number } | null = null

  /** The token, while it has more than the margin left. */
  valid(now: number): string | null {
    const token = this.current
    return token && token.expiresAt - EXPIRY_MARGIN_MS > now ? token.value : null
  }

  set(value: string, expiresAt: number): void {
    this.current = { value, expiresAt }
  }

  clear(): void {
    this.current = null
  }
}

export async function driveTokenOf(sctx: SourceContext): Promise<string | null> {
  return sctx.secrets.get(REFRESH_TOKEN_SECRET)
}

export async function storeDriveToken(
  sctx: SourceContext,
  access: DriveAccessToken,
  refreshToken: string,
): Promise<void> {
  await sctx.secrets.set(REFRESH_TOKEN_SECRET, refreshToken)
  access.clear()
}

export async function forgetDriveToken(
  sctx: SourceContext,
  access: DriveAccessToken,
): Promise<void> {
  await sctx.secrets.delete(REFRESH_TOKEN_SECRET)
  access.clear()
}

function oauthClient(ctx: ServiceContext): { id: string; secret: string; redirect: string } {
  const { csv, server } = ctx.config
  if (csv.drive_client_id === null || csv.drive_client_secret === null) {
    throw new Conflict(
      'the drive OAuth client is not configured (csv.drive_client_id, csv.drive_client_secret)',
    )
  }
  return {
    id: csv.drive_client_id,
    secret: csv.drive_client_secret,
    redirect: csv.drive_redirect_url ?? `${server.base_url}/api/v1/sources/csv/oauth/callback`,
  }
}

function hashState(state: string): string {
  return createHash('sha256').update(state).digest('hex')
}

/** GET /sources/csv/oauth/start: the consent URL, with a fresh single-use state. */
export async function startDriveConsent(sctx: SourceContext): Promise<string> {
  const { ctx } = sctx
  const client = oauthClient(ctx)
  const state = randomBytes(24).toString('base64url')
  const now = ctx.clock.now().getTime()
  await ctx.db.kysely
    .deleteFrom('oauth_states')
    .where('expires_at', '<', isoNow(ctx.clock))
    .execute()
  await ctx.db.kysely
    .insertInto('oauth_states')
    .values({
      state_hash: hashState(state),
      source: 'csv',
      expires_at: isoNow({ now: () => new Date(now + OAUTH_STATE_TTL_MS) }),
    })
    .execute()
  const url = new URL(ctx.config.csv.drive_auth_url)
  url.searchParams.set('client_id', client.id)
  url.searchParams.set('redirect_uri', client.redirect)
  url.searchParams.set('response_type', 'code')
  url.searchParams.set('scope', DRIVE_SCOPE)
  url.searchParams.set('access_type', 'offline')
  // Ask again each time, so that the answer always carries a refresh token.
  url.searchParams.set('prompt', 'consent')
  url.searchParams.set('state', state)
  return url.toString()
}

export interface CallbackQuery {
  state?: string | undefined
  code?: string | undefined
  error?: string | undefined
}

/**
 * GET /sources/csv/oauth/callback: checks and spends the state, exchanges the
 * code and keeps the refresh token. Returns null on success, else a short reason
 * that is safe to put into the redirect.
 */
export async function finishDriveConsent(
  sctx: SourceContext,
  access: DriveAccessToken,
  query: CallbackQuery,
): Promise<string | null> {
  const { ctx } = sctx
  if (!query.state) return 'missing state'
  // Deleting the row spends the state: a second callback with it finds nothing.
  const spent = await ctx.db.kysely
    .deleteFrom('oauth_states')
    .where('state_hash', '=', hashState(query.state))
    .where('source', '=', 'csv')
    .returning('expires_at')
    .executeTakeFirst()
  if (!spent || spent.expires_at < isoNow(ctx.clock)) return 'invalid or expired state'
  if (query.error) return `consent refused (${query.error.slice(0, 64)})`
  if (!query.code) return 'missing code'
  let client
  try {
    client = oauthClient(ctx)
  } catch (error) {
    return (error as Error).message
  }
  const reply = await tokenRequest(ctx, {
    grant_type: 'authorization_code',
    code: query.code,
    redirect_uri: client.redirect,
    client_id: client.id,
    client_secret: client.secret,
  })
  if (typeof reply === 'string') return reply
  if (typeof reply.refresh_token !== 'string' || reply.refresh_token === '') {
    return 'the token endpoint returned no refresh token'
  }
  await storeDriveToken(sctx, access, reply.refresh_token)
  if (typeof reply.access_token === 'string') {
    access.set(reply.access_token, ctx.clock.now().getTime() + expiresInMs(reply.expires_in))
  }
  ctx.log.info({ source: 'csv' }, 'csv: drive connected')
  return null
}

interface TokenReply {
  access_token?: unknown
  refresh_token?: unknown
  expires_in?: unknown
  error?: unknown
}

function expiresInMs(value: unknown): number {
  return typeof value === 'number' && value > 0 ? value * 1000 : 3600_000
}

/** A POST to the token endpoint: the parsed reply, or a reason without any secret. */
async function tokenRequest(
  ctx: ServiceContext,
  form: Record<string, string>,
): Promise<TokenReply | string> {
  let response: Response
  try {
    response = await fetch(ctx.config.csv.drive_token_url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
      signal: AbortSignal.timeout(DRIVE_REQUEST_TIMEOUT_MS),
    })
  } catch (error) {
    return `token endpoint unreachable (${(error as Error).name})`
  }
  let body: TokenReply = {}
  try {
    body = (await response.json()) as TokenReply
  } catch {
    // reported below by status
  }
  if (!response.ok) {
    // The OAuth error code ("invalid_grant") is a fixed vocabulary, safe to show.
    const code = typeof body.error === 'string' ? ` ${body.error.slice(0, 64)}` : ''
    return `token endpoint answered HTTP ${response.status}${code}`
  }
  return body
}

interface DriveFile {
  id: string
  name: string
  mimeType?: string
  /** int64 as a decimal string; only for binary (non-Google-Docs) files. */
  size?: string
}

/** Files.list and download for one sync, with automatic access-token refresh. */
export class DriveClient {
  constructor(
    private readonly sctx: SourceContext,
    private readonly access: DriveAccessToken,
  ) {}

  private async accessToken(force: boolean): Promise<string> {
    const { ctx } = this.sctx
    const now = ctx.clock.now().getTime()
    const cached = force ? null : this.access.valid(now)
    if (cached !== null) return cached
    const refreshToken = await driveTokenOf(this.sctx)
    if (refreshToken === null) throw new Error('drive is not connected')
    const client = oauthClient(ctx)
    const reply = await tokenRequest(ctx, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: client.id,
      client_secret: client.secret,
    })
    if (typeof reply === 'string') throw new Error(`drive: access token refresh failed: ${reply}`)
    if (typeof reply.access_token !== 'string')
      throw new Error('drive: token endpoint returned no access token')
    this.access.set(reply.access_token, now + expiresInMs(reply.expires_in))
    return reply.access_token
  }

  /** A GET with the bearer token; on a 401 the token is refreshed once and the call retried. */
  private async get(url: URL, what: string): Promise<Response> {
    for (const force of [false, true]) {
      const token = await this.accessToken(force)
      let response: Response
      try {
        const { closing } = this.sctx.ctx.signals
        response = await fetch(url, {
          headers: { authorization: `Bearer ${token}` },
          // A shutdown does not wait for Drive (a download runs under this signal too).
          signal: AbortSignal.any([AbortSignal.timeout(DRIVE_REQUEST_TIMEOUT_MS), closing]),
        })
      } catch (error) {
        throwIfClosing(this.sctx.ctx.signals.closing)
        throw new Error(`drive: ${what}: unreachable (${(error as Error).name})`)
      }
      if (response.status === 401 && !force) {
        await response.body?.cancel()
        continue
      }
      if (!response.ok) {
        await response.body?.cancel()
        throw new Error(`drive: ${what}: HTTP ${response.status}`)
      }
      return response
    }
    throw new Error(`drive: ${what}: unauthorized`)
  }

  /** A files.list page as text, within its bound; a failure names it, never the address. */
  private async listText(response: Response): Promise<string> {
    try {
      return await readBoundedText(response, LIST_PAGE_MAX_BYTES)
    } catch (error) {
      throwIfClosing(this.sctx.ctx.signals.closing)
      if (error instanceof BodyTooLarge) throw new Error(`drive: files.list: ${error.message}`)
      throw new Error(`drive: files.list: the answer broke off (${(error as Error).name})`)
    }
  }

  /** The folder's CSV files (by name or MIME type), in name order. */
  async listCsvFiles(folderId: string): Promise<CsvFileRef[]> {
    const base = this.sctx.ctx.config.csv.drive_api_url.replace(/\/+$/, '')
    const files: DriveFile[] = []
    let pageToken: string | null = null
    do {
      const url = new URL(`${base}/files`)
      const quoted = folderId.replace(/\\/g, '\\\\').replace(/'/g, "\\'")
      url.searchParams.set('q', `'${quoted}' in parents and trashed = false`)
      url.searchParams.set('fields', 'nextPageToken, files(id, name, mimeType, size)')
      url.searchParams.set('pageSize', String(LIST_PAGE_SIZE))
      url.searchParams.set('orderBy', 'name')
      if (pageToken) url.searchParams.set('pageToken', pageToken)
      const response = await this.get(url, 'files.list')
      const page = JSON.parse(await this.listText(response)) as {
        files?: DriveFile[]
        nextPageToken?: string
      }
      files.push(...(page.files ?? []))
      pageToken = page.nextPageToken ?? null
    } while (pageToken)
    return files
      .filter((f) => f.mimeType === 'text/csv' || f.name.toLowerCase().endsWith('.csv'))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((f) => ({
        name: f.name,
        // Drive sends int64 sizes as strings; absent for files that are not blobs.
        size: f.size !== undefined && /^\d+$/.test(f.size) ? Number(f.size) : null,
        open: () => this.download(f.id),
      }))
  }

  private async download(fileId: string): Promise<Readable> {
    const base = this.sctx.ctx.config.csv.drive_api_url.replace(/\/+$/, '')
    const url = new URL(`${base}/files/${encodeURIComponent(fileId)}`)
    url.searchParams.set('alt', 'media')
    const response = await this.get(url, 'download')
    if (!response.body) return Readable.from([])
    return Readable.fromWeb(response.body as WebReadableStream<Uint8Array>)
  }
}

// A fake of Google's OAuth 2.0 endpoints and the Drive v3 REST calls the CSV drive
// backend makes (files.list of a folder, download by id), on 127.0.0.1. The
// consent page "approves" at once: it redirects to redirect_uri with a code.
// Access tokens can be revoked to make the next call answer 401.
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'

export const FAKE_CLIENT_ID = 'fake-client-id.apps'
export const FAKE_CLIENT_SECRET = 'fake-client-secret-DO-NOT-LEAK'

export interface FakeDriveFile {
  id: string
  name: string
  mimeType?: string
  parent: string
  content: string
}

export interface TokenGrant {
  grant_type: string
  refresh_token?: string
  code?: string
  redirect_uri?: string
}

export interface FakeDrive {
  /** Base of the endpoints: auth_url, token_url and api_url below. */
  authUrl: string
  tokenUrl: string
  apiUrl: string
  files: FakeDriveFile[]
  /** Every grant the token endpoint received, in order. */
  grants: TokenGrant[]
  /** Every Drive API request: "list <folder>", "download <id>", "401 <path>". */
  calls: string[]
  /** Refresh tokens the fake accepts (those it issued, plus any added). */
  refreshTokens: Set<string>
  /** Every secret the fake issued (codes, access and refresh tokens), to check for leaks. */
  issued: string[]
  /** Makes every access token issued so far invalid (the next API call gets a 401). */
  revokeAccessTokens(): void
  close(): Promise<void>
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

const secret = (prefix: string) => `${prefix}-${randomBytes(12).toString('hex')}`

export async function startFakeDrive(t: TestContext | null): Promise<FakeDrive> {
  const codes = new Map<string, string>() // code → redirect_uri
  const accessTokens = new Set<string>()
  const fake: Omit<FakeDrive, 'authUrl' | 'tokenUrl' | 'apiUrl' | 'close'> = {
    files: [],
    grants: [],
    calls: [],
    refreshTokens: new Set(),
    issued: [],
    revokeAccessTokens: () => accessTokens.clear(),
  }
  const issue = (prefix: string) => {
    const value = secret(prefix)
    fake.issued.push(value)
    return value
  }

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake')
      if (req.method === 'GET' && url.pathname === '/o/oauth2/auth') {
        const redirect = url.searchParams.get('redirect_uri')
        if (url.searchParams.get('client_id') !== FAKE_CLIENT_ID || !redirect) {
          return json(res, 400, { error: 'invalid_request' })
        }
        const code = issue('code')
        codes.set(code, redirect)
        const target = new URL(redirect)
        target.searchParams.set('code', code)
        target.searchParams.set('state', url.searchParams.get('state') ?? '')
        res.writeHead(302, { location: target.toString() })
        return res.end()
      }
      if (req.method === 'POST' && url.pathname === '/token') {
        const form = new URLSearchParams(await readBody(req))
        const grant: TokenGrant = { grant_type: form.get('grant_type') ?? '' }
        for (const key of ['refresh_token', 'code', 'redirect_uri'] as const) {
          const value = form.get(key)
          if (value !== null) grant[key] = value
        }
        fake.grants.push(grant)
        if (
          form.get('client_id') !== FAKE_CLIENT_ID ||
          form.get('client_secret') !== FAKE_CLIENT_SECRET
        ) {
          return json(res, 401, { error: 'invalid_client' })
        }
        if (grant.grant_type === 'authorization_code') {
          const redirect = codes.get(grant.code ?? '')
          if (redirect === undefined || redirect !== grant.redirect_uri) {
            return json(res, 400, { error: 'invalid_grant' })
          }
          codes.delete(grant.code!)
          const refresh = issue('refresh')
          fake.refreshTokens.add(refresh)
          const access = issue('access')
          accessTokens.add(access)
          return json(res, 200, {
            access_token: access,
            refresh_token: refresh,
            expires_in: 3599,
            token_type: 'Bearer',
          })
        }
        if (grant.grant_type === 'refresh_token') {
          if (!fake.refreshTokens.has(grant.refresh_token ?? '')) {
            return json(res, 400, { error: 'invalid_grant' })
          }
          const access = issue('access')
          accessTokens.add(access)
          return json(res, 200, { access_token: access, expires_in: 3599, token_type: 'Bearer' })
        }
        return json(res, 400, { error: 'unsupported_grant_type' })
      }
      if (req.method === 'GET' && url.pathname.startsWith('/drive/v3/files')) {
        const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
        if (!bearer || !accessTokens.has(bearer)) {
          fake.calls.push(`401 ${url.pathname}`)
          return json(res, 401, { error: { code: 401, message: 'Invalid Credentials' } })
        }
        if (url.pathname === '/drive/v3/files') {
          const q = url.searchParams.get('q') ?? ''
          const folder = /^'(.+)' in parents and trashed = false$/.exec(q)?.[1]
          if (folder === undefined) return json(res, 400, { error: { message: 'bad q' } })
          fake.calls.push(`list ${folder}`)
          // Two pages when the folder has more than one file, to exercise paging.
          const all = fake.files.filter((f) => f.parent === folder)
          const page = url.searchParams.get('pageToken') === 'p2' ? all.slice(1) : all.slice(0, 1)
          return json(res, 200, {
            files: page.map((f) => ({
              id: f.id,
              name: f.name,
              mimeType: f.mimeType ?? 'text/csv',
            })),
            ...(url.searchParams.get('pageToken') !== 'p2' && all.length > 1
              ? { nextPageToken: 'p2' }
              : {}),
          })
        }
        const id = decodeURIComponent(url.pathname.slice('/drive/v3/files/'.length))
        const file = fake.files.find((f) => f.id === id)
        if (!file || url.searchParams.get('alt') !== 'media') {
          return json(res, 404, { error: { message: 'not found' } })
        }
        fake.calls.push(`download ${id}`)
        res.writeHead(200, { 'content-type': 'text/csv' })
        return res.end(file.content)
      }
      json(res, 404, { error: 'no such fake route' })
    })().catch(() => {
      res.statusCode = 500
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const drive: FakeDrive = {
    ...fake,
    authUrl: `${base}/o/oauth2/auth`,
    tokenUrl: `${base}/token`,
    apiUrl: `${base}/drive/v3`,
    revokeAccessTokens: fake.revokeAccessTokens,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  // The arrays and sets above are shared by reference with `drive`.
  t?.after(() => drive.close())
  return drive
}

// A fake SimpleFIN bridge on 127.0.0.1, speaking protocol version 1 (`errors`, an
// `org` per account) or 2 (`errlist`, `connections`, `conn_id`). A setup token is
// the base64 of a claim URL that answers the access URL once and 403 after; the
// accounts endpoint wants `Authorization: Basic`, filters rows by
// start-date/end-date (end exclusive) and records every request it gets.
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'

export interface FakeRow {
  id: string
  /** Unix seconds; 0 while pending, as bridges send it. */
  posted: number
  amount: string
  description?: string
  payee?: string
  memo?: string
  transacted_at?: number
  pending?: boolean
}

export interface FakeOrg {
  id?: string
  domain?: string
  name?: string
  'sfin-url'?: string
  url?: string
}

export interface FakeAccount {
  id: string
  name: string
  currency: string
  balance: string
  /** Version 1: the account's institution. */
  org?: FakeOrg
  /** Version 2: the connection it belongs to. */
  conn_id?: string
  transactions: FakeRow[]
}

export interface FakeConnection {
  conn_id: string
  name: string
  org_id: string
  org_url?: string
  sfin_url?: string
}

export interface AccountsRequest {
  start: number | null
  end: number | null
  pending: string | null
  authorized: boolean
}

export interface FakeSimplefin {
  /** The shape the accounts endpoint answers in; may be changed between syncs. */
  version: 1 | 2
  accounts: FakeAccount[]
  connections: FakeConnection[]
  /** Version 1 `errors`. */
  errors: string[]
  /** Version 2 `errlist`. */
  errlist: Array<{ code: string; msg: string; conn_id?: string }>
  /** Answer 403 to every accounts request (access revoked). */
  refuse: boolean
  /** Answer this status to every accounts request instead (e.g. 500); null to answer normally. */
  failWith: number | null
  /** While set, accounts requests are counted in `requests` and answered only once it resolves. */
  hold: Promise<void> | null
  /** Every claim attempt, in order: the claim token and the status answered. */
  claims: Array<{ token: string; status: number }>
  /** Every accounts request, in order. */
  requests: AccountsRequest[]
  /** The access URL the claims hand out: http://user:password@127.0.0.1:<port>/simplefin. */
  accessUrl: string
  password: string
  /** Issues a fresh setup token (claimable once). */
  setupToken(): string
  /** Every secret the fake issued (access URL, password, setup and claim tokens), to check for leaks. */
  secrets(): string[]
  close(): Promise<void>
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

function inWindow(row: FakeRow, start: number | null, end: number | null): boolean {
  const at = row.posted > 0 ? row.posted : (row.transacted_at ?? 0)
  return (start === null || at >= start) && (end === null || at < end)
}

export async function startFakeSimplefin(
  t: TestContext | null,
  version: 1 | 2 = 1,
): Promise<FakeSimplefin> {
  const user = `user${randomBytes(4).toString('hex')}`
  const password = `pw-${randomBytes(12).toString('hex')}`
  const claimTokens = new Map<string, boolean>() // claim token → already claimed
  const issued: string[] = [password]
  let base = ''

  const fake: Omit<FakeSimplefin, 'accessUrl' | 'close'> = {
    version,
    accounts: [],
    connections: [],
    errors: [],
    errlist: [],
    refuse: false,
    failWith: null,
    hold: null,
    claims: [],
    requests: [],
    password,
    setupToken() {
      const claim = `claim-${randomBytes(10).toString('hex')}`
      claimTokens.set(claim, false)
      const token = Buffer.from(`${base}/simplefin/claim/${claim}`).toString('base64')
      issued.push(claim, token)
      return token
    },
    secrets: () => [...issued],
  }

  const server = createServer((req, res) => void answer(req, res))
  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake')
    const claim = /^\/simplefin\/claim\/([^/]+)$/.exec(url.pathname)
    if (req.method === 'POST' && claim) {
      const token = claim[1]!
      const fresh = claimTokens.get(token) === false
      fake.claims.push({ token, status: fresh ? 200 : 403 })
      if (!fresh) return json(res, 403, { error: 'token already claimed or unknown' })
      claimTokens.set(token, true)
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end(`${accessUrl}\n`)
      return
    }
    if (req.method === 'GET' && url.pathname === '/simplefin/accounts') {
      const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
      const authorized = req.headers.authorization === expected
      const number = (name: string) => {
        const value = url.searchParams.get(name)
        return value === null ? null : Number(value)
      }
      const start = number('start-date')
      const end = number('end-date')
      const pending = url.searchParams.get('pending')
      fake.requests.push({ start, end, pending, authorized })
      if (fake.hold) await fake.hold
      if (!authorized || fake.refuse) return json(res, 403, { error: 'forbidden' })
      if (fake.failWith !== null) return json(res, fake.failWith, { error: 'bridge trouble' })
      const accounts = fake.accounts.map((a) => {
        const rows = a.transactions.filter(
          (r) => inWindow(r, start, end) && (pending === '1' || !r.pending),
        )
        const common = {
          id: a.id,
          name: a.name,
          currency: a.currency,
          balance: a.balance,
          'available-balance': a.balance,
          'balance-date': 1714564800,
          transactions: rows,
        }
        return fake.version === 1 ? { org: a.org, ...common } : { conn_id: a.conn_id, ...common }
      })
      return json(
        res,
        200,
        fake.version === 1
          ? { errors: fake.errors, accounts }
          : { errlist: fake.errlist, connections: fake.connections, accounts },
      )
    }
    json(res, 404, { error: 'not found' })
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  base = `http://127.0.0.1:${port}`
  const accessUrl = `http://${user}:${password}@127.0.0.1:${port}/simplefin`
  issued.push(accessUrl)
  const handle: FakeSimplefin = Object.assign(fake, {
    accessUrl,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  })
  t?.after(() => handle.close())
  return handle
}

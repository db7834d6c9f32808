// The plugins' network door against real local servers (HTTP and HTTPS on 127.0.0.1).
// Names are mapped to addresses by a fake resolver, so "api.example.test" is a
// loopback host that only a grant makes reachable.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import type { Clock } from '../clock.js'
import {
  EGRESS_RESPONSE_MAX_BYTES,
  EgressDenied,
  PluginEgress,
  canonicalHost,
  refusedAddressClass,
  type EgressAttempt,
  type EgressPolicy,
} from './egress.js'

const dir = mkdtempSync(join(tmpdir(), 'coffer-egress-'))
let httpServer: http.Server
let httpsServer: https.Server
let httpPort = 0
let httpsPort = 0
let ca = ''
let hits = 0
const logLines: string[] = []

// One handler for both servers; the path says what to do.
function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
  hits++
  const url = new URL(req.url ?? '/', 'http://x')
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    const [, route, arg] = url.pathname.split('/')
    if (route === 'echo') {
      res.setHeader('X-Multi', ['a', 'b'])
      res.setHeader('Content-Type', 'application/json')
      res.end(
        JSON.stringify({
          method: req.method,
          path: req.url,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      )
    } else if (route === 'hops') {
      // /hops/N redirects to /hops/N-1 ... /hops/0 answers.
      const left = Number(arg)
      if (left === 0) res.end('arrived')
      else res.writeHead(302, { Location: `/hops/${left - 1}` }).end()
    } else if (route === 'to') {
      res.writeHead(Number(arg), { Location: url.searchParams.get('location') ?? '/' }).end()
    } else if (route === 'big') {
      res.writeHead(200, { 'Content-Type': 'text/plain' })
      res.end('x'.repeat(EGRESS_RESPONSE_MAX_BYTES + 100_000))
    } else if (route === 'hang') {
      // Never answers; the client's deadline has to end it.
    } else {
      res.writeHead(404).end()
    }
  })
}

before(async () => {
  const key = join(dir, 'key.pem')
  const cert = join(dir, 'cert.pem')
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1,DNS:*.example.test',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  )
  ca = readFileSync(cert, 'utf8')
  httpServer = http.createServer(handle)
  httpsServer = https.createServer({ key: readFileSync(key), cert: ca }, handle)
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve))
  await new Promise<void>((resolve) => httpsServer.listen(0, '127.0.0.1', resolve))
  httpPort = (httpServer.address() as AddressInfo).port
  httpsPort = (httpsServer.address() as AddressInfo).port
})

after(async () => {
  for (const server of [httpServer, httpsServer]) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
  rmSync(dir, { recursive: true, force: true })
})

// Every *.example.test name is this machine, except where a test says otherwise.
const NAMES: Record<string, string> = {
  'api.example.test': '127.0.0.1',
  'other.example.test': '127.0.0.1',
  'inner.example.test': '10.1.2.3',
  'mixed.example.test': '8.8.8.8',
  'nossl.invalid': '127.0.0.1',
}
async function fakeLookup(host: string): Promise<Array<{ address: string; family: 4 | 6 }>> {
  const address = NAMES[host]
  if (!address) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
  if (host === 'mixed.example.test') {
    return [
      { address, family: 4 },
      { address: '::ffff:127.0.0.1', family: 6 },
    ]
  }
  return [{ address, family: 4 }]
}

function fakeClock(
  start = Date.parse('2025-01-01T00:00:00Z'),
): Clock & { advance(ms: number): void } {
  let now = start
  return { now: () => new Date(now), advance: (ms) => (now += ms) }
}

function egress(options: { clock?: Clock; lookup?: typeof fakeLookup } = {}): PluginEgress {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'))
      done()
    },
  })
  return new PluginEgress({
    log: pino({ level: 'info' }, stream),
    clock: options.clock ?? fakeClock(),
    lookup: options.lookup ?? fakeLookup,
    ca,
  })
}

const granted: EgressPolicy = { allow: ['api.example.test'], grants: ['api.example.test'] }
const allowedOnly: EgressPolicy = { allow: ['api.example.test'], grants: [] }
const https_ = (path: string, host = 'api.example.test') => `https://${host}:${httpsPort}${path}`
const http_ = (path: string, host = 'api.example.test') => `http://${host}:${httpPort}${path}`

async function denied(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof EgressDenied, `expected EgressDenied, got ${String(error)}`)
    assert.match(error.message, pattern)
    return true
  })
}

test('a granted https GET sends the headers and answers status, headers and text', async () => {
  const door = egress()
  const response = await door.fetch('demo', granted, {
    url: https_('/echo?q=1'),
    headers: { 'X-Token': 'secret', Host: 'evil.example', 'Content-Length': '99' },
  })
  assert.equal(response.status, 200)
  assert.equal(response.truncated, false)
  assert.equal(response.headers['x-multi'], 'a, b')
  assert.equal(response.headers['content-type'], 'application/json')
  const echoed = JSON.parse(response.body)
  assert.equal(echoed.method, 'GET')
  assert.equal(echoed.path, '/echo?q=1')
  assert.equal(echoed.body, '')
  assert.equal(echoed.headers['x-token'], 'secret')
  // Host and framing are ours: the plugin's values are dropped.
  assert.equal(echoed.headers.host, `api.example.test:${httpsPort}`)
  assert.equal(echoed.headers['content-length'], undefined)
  assert.equal(echoed.headers['accept-encoding'], 'identity')
})

test('a POST sends its body with our Content-Length', async () => {
  const response = await egress().fetch('demo', granted, {
    url: https_('/echo'),
    method: 'post',
    headers: { 'Content-Type': 'application/json' },
    body: '{"amount":"12.50","note":"café"}',
  })
  const echoed = JSON.parse(response.body)
  assert.equal(echoed.method, 'POST')
  assert.equal(echoed.body, '{"amount":"12.50","note":"café"}')
  assert.equal(echoed.headers['content-length'], String(Buffer.byteLength(echoed.body)))
})

test('a host not in [net].allow is refused before any lookup or connection', async () => {
  let lookups = 0
  const before = hits
  const door = egress({ lookup: async (host) => (lookups++, fakeLookup(host)) })
  await denied(
    door.fetch('demo', granted, { url: https_('/echo', 'other.example.test') }),
    /^egress to other\.example\.test denied: host is not in \[net\]\.allow$/,
  )
  assert.equal(lookups, 0)
  assert.equal(hits, before)
})

test('a granted host must still be in [net].allow', async () => {
  await denied(
    egress().fetch('demo', { allow: [], grants: ['api.example.test'] }, { url: https_('/echo') }),
    /not in \[net\]\.allow/,
  )
})

test('allow matches the host exactly, ignoring case', async () => {
  const door = egress()
  const upper = await door.fetch(
    'demo',
    { allow: ['api.example.TEST'], grants: ['API.Example.TEST'] },
    {
      url: https_('/echo', 'Api.EXAMPLE.test'),
    },
  )
  assert.equal(upper.status, 200)
  await denied(
    door.fetch(
      'demo',
      { allow: ['example.test'], grants: ['example.test'] },
      { url: https_('/echo') },
    ),
    /not in \[net\]\.allow/,
  )
})

test('plain http, and any other scheme, is refused for a host that is only allowed', async () => {
  const door = egress()
  await denied(
    door.fetch('demo', allowedOnly, { url: http_('/echo') }),
    /^egress to api\.example\.test denied: plain http is allowed only for hosts the operator granted$/,
  )
  await denied(
    door.fetch('demo', granted, { url: 'ftp://api.example.test/file' }),
    /scheme ftp: is not allowed/,
  )
  await denied(
    door.fetch('demo', granted, { url: `https://user:pw@api.example.test:${httpsPort}/echo` }),
    /^egress to api\.example\.test denied: credentials in the URL$/,
  )
})

test('a name resolving to loopback is refused unless granted; granted it works over http and https', async () => {
  const door = egress()
  const before = hits
  await denied(
    door.fetch('demo', allowedOnly, { url: https_('/echo') }),
    /^egress to api\.example\.test denied: it resolves to a loopback address$/,
  )
  assert.equal(hits, before)
  assert.equal((await door.fetch('demo', granted, { url: http_('/echo') })).status, 200)
  assert.equal((await door.fetch('demo', granted, { url: https_('/echo') })).status, 200)
})

test('one refused address among several refuses the host (IPv4-mapped loopback included)', async () => {
  const policy = { allow: ['mixed.example.test', 'inner.example.test'], grants: [] }
  const door = egress()
  await denied(
    door.fetch('demo', policy, { url: 'https://mixed.example.test/' }),
    /resolves to a loopback address/,
  )
  await denied(
    door.fetch('demo', policy, { url: 'https://inner.example.test/' }),
    /resolves to a private address/,
  )
})

test('IP literals in allow are still checked: 127.0.0.1 and [::1] need a grant', async () => {
  const door = egress()
  await denied(
    door.fetch(
      'demo',
      { allow: ['127.0.0.1'], grants: [] },
      { url: `https://127.0.0.1:${httpsPort}/echo` },
    ),
    /^egress to 127\.0\.0\.1 denied: it resolves to a loopback address$/,
  )
  await denied(
    door.fetch('demo', { allow: ['::1'], grants: [] }, { url: 'https://[::1]/' }),
    /^egress to ::1 denied: it resolves to a loopback address$/,
  )
  // Another spelling of the same address is the same host.
  await denied(
    door.fetch('demo', { allow: ['127.0.0.1'], grants: [] }, { url: 'https://2130706433/' }),
    /^egress to 127\.0\.0\.1 denied: it resolves to a loopback address$/,
  )
  const literal = await door.fetch(
    'demo',
    { allow: ['127.0.0.1'], grants: ['127.0.0.1'] },
    {
      url: `https://127.0.0.1:${httpsPort}/echo`,
    },
  )
  assert.equal(literal.status, 200)
})

test('refused address classes', () => {
  const cases: Array<[string, string | null]> = [
    ['8.8.8.8', null],
    ['2606:4700:4700::1111', null],
    ['10.0.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', null],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.128.0.1', null],
    ['fd12::1', 'private'],
    ['127.0.0.53', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
  ]
  for (const [address, label] of cases) assert.equal(refusedAddressClass(address), label, address)
  assert.equal(canonicalHost('[::FFFF:127.0.0.1]'), '::ffff:7f00:1')
  assert.equal(canonicalHost('API.example.test'), 'api.example.test')
  assert.equal(canonicalHost('api.example.test:443'), null)
  assert.equal(canonicalHost('api.example.test/path'), null)
})

test('a redirect to a host not allowed, or to a private address, is refused', async () => {
  const door = egress()
  const policy = { allow: ['api.example.test', 'inner.example.test'], grants: ['api.example.test'] }
  const before = hits
  await denied(
    door.fetch('demo', policy, {
      url: https_(`/to/302?location=${encodeURIComponent(https_('/echo', 'other.example.test'))}`),
    }),
    /^egress to other\.example\.test denied: host is not in \[net\]\.allow$/,
  )
  await denied(
    door.fetch('demo', policy, {
      url: https_(`/to/307?location=${encodeURIComponent('https://inner.example.test/')}`),
    }),
    /^egress to inner\.example\.test denied: it resolves to a private address$/,
  )
  // Also a granted https host cannot bounce to plain http on an allowed-only host.
  await denied(
    door.fetch(
      'demo',
      { allow: ['api.example.test', '127.0.0.1'], grants: ['127.0.0.1'] },
      {
        url: `https://127.0.0.1:${httpsPort}/to/302?location=${encodeURIComponent(http_('/echo'))}`,
      },
    ),
    /plain http is allowed only/,
  )
  assert.equal(hits, before + 3) // the redirecting hops only
})

test('five redirects are followed, the sixth is refused', async () => {
  const door = egress()
  const five = await door.fetch('demo', granted, { url: https_('/hops/5') })
  assert.equal(five.status, 200)
  assert.equal(five.body, 'arrived')
  await denied(
    door.fetch('demo', granted, { url: https_('/hops/6') }),
    /^egress to api\.example\.test denied: more than 5 redirects$/,
  )
})

test('303 turns a POST into a GET without body; 307 keeps both; credentials stay on their origin', async () => {
  const door = egress()
  const request = {
    method: 'POST',
    headers: { 'Content-Type': 'text/plain', Authorization: 'Bearer t' },
    body: 'payload',
  }
  const seeOther = JSON.parse(
    (await door.fetch('demo', granted, { ...request, url: https_('/to/303?location=/echo') })).body,
  )
  assert.equal(seeOther.method, 'GET')
  assert.equal(seeOther.body, '')
  assert.equal(seeOther.headers['content-type'], undefined)
  assert.equal(seeOther.headers.authorization, 'Bearer t')
  const temporary = JSON.parse(
    (await door.fetch('demo', granted, { ...request, url: https_('/to/307?location=/echo') })).body,
  )
  assert.equal(temporary.method, 'POST')
  assert.equal(temporary.body, 'payload')
  // Same server, other origin (http): the Authorization header is not carried over.
  const crossOrigin = JSON.parse(
    (
      await door.fetch('demo', granted, {
        ...request,
        url: https_(`/to/308?location=${encodeURIComponent(http_('/echo'))}`),
      })
    ).body,
  )
  assert.equal(crossOrigin.method, 'POST')
  assert.equal(crossOrigin.headers.authorization, undefined)
})

test('a body over 5 MiB is cut at exactly 5 MiB and marked truncated', async () => {
  const response = await egress().fetch('demo', granted, { url: http_('/big') })
  assert.equal(response.status, 200)
  assert.equal(response.truncated, true)
  assert.equal(response.body.length, EGRESS_RESPONSE_MAX_BYTES)
})

test('a server that never answers times out', async () => {
  const started = Date.now()
  await assert.rejects(
    egress().fetch('demo', granted, { url: http_('/hang'), timeout_ms: 200 }),
    (error: unknown) => {
      assert.ok(!(error instanceof EgressDenied))
      assert.equal((error as Error).message, 'egress to api.example.test timed out after 200 ms')
      return true
    },
  )
  assert.ok(Date.now() - started < 2000)
})

test('the TLS certificate is checked against the name, not the pinned address', async () => {
  // nossl.invalid maps to 127.0.0.1, which the certificate names; the name is not in it.
  await assert.rejects(
    egress().fetch(
      'demo',
      { allow: ['nossl.invalid'], grants: ['nossl.invalid'] },
      { url: https_('/echo', 'nossl.invalid') },
    ),
    /egress to nossl\.invalid failed: ERR_TLS_CERT_ALTNAME_INVALID/,
  )
})

test('the 61st request in a rolling minute is refused', async () => {
  const clock = fakeClock()
  const door = egress({ clock })
  for (let i = 0; i < 60; i++) {
    assert.equal((await door.fetch('demo', granted, { url: http_('/echo') })).status, 200)
    clock.advance(500)
  }
  await denied(
    door.fetch('demo', granted, { url: http_('/echo') }),
    /^egress to api\.example\.test denied: rate limit of 60 requests a minute reached$/,
  )
  // Another plugin has its own budget.
  assert.equal((await door.fetch('other', granted, { url: http_('/echo') })).status, 200)
  // The first request leaves the window 60 s after it was made, the second 0.5 s later.
  clock.advance(30_000)
  assert.equal((await door.fetch('demo', granted, { url: http_('/echo') })).status, 200)
  await denied(door.fetch('demo', granted, { url: http_('/echo') }), /rate limit/)
})

test('rebinding: the checked address is the one connected to, from a single lookup', async () => {
  let lookups = 0
  const rebinding = async (_host: string) => {
    lookups++
    // Public on the check, this machine on any later question.
    return [{ address: lookups === 1 ? '203.0.113.10' : '127.0.0.1', family: 4 as const }]
  }
  const door = egress({ lookup: rebinding })
  const before = hits
  // "localhost" also resolves to this machine through the system resolver, and the
  // certificate names it: connecting by name instead of by the pinned address would
  // reach the test server.
  await assert.rejects(
    door.fetch(
      'demo',
      { allow: ['localhost'], grants: [] },
      {
        url: https_('/echo', 'localhost'),
        timeout_ms: 300,
      },
    ),
    (error: unknown) => !(error instanceof EgressDenied),
  )
  assert.equal(lookups, 1)
  assert.equal(hits, before)
})

test('request checks: method, header names and values, body size', async () => {
  const door = egress()
  const url = https_('/echo')
  await denied(door.fetch('demo', granted, { url, method: 'TRACE' }), /method must be one of/)
  await denied(
    door.fetch('demo', granted, { url, headers: { 'X-A': 'ok\r\nX-Injected: 1' } }),
    /^egress to api\.example\.test denied: invalid value for header X-A$/,
  )
  await denied(door.fetch('demo', granted, { url, headers: { 'X A': 'v' } }), /invalid header name/)
  await denied(
    door.fetch('demo', granted, { url, method: 'PUT', body: 'x'.repeat(1024 * 1024 + 1) }),
    /body over 1048576 bytes/,
  )
  await denied(door.fetch('demo', granted, { url, body: 'x' }), /a GET request has no body/)
  await denied(door.fetch('demo', granted, { url: 'not a url' }), /^egress denied: invalid URL$/)
})

test('attempts are kept newest first without query strings, logged, counted and forgotten', async () => {
  const seen: EgressAttempt[] = []
  const door = new PluginEgress({
    log: pino(
      { level: 'info' },
      new Writable({ write: (c: Buffer, _e, done) => (logLines.push(c.toString()), done()) }),
    ),
    clock: fakeClock(),
    lookup: fakeLookup,
    onAttempt: (_plugin, attempt) => seen.push(attempt),
    ca,
  })
  const logged = logLines.length
  await door.fetch('demo', granted, { url: https_('/echo?api_key=s3cret#frag') })
  await assert.rejects(door.fetch('demo', allowedOnly, { url: https_('/echo?api_key=s3cret') }))
  await assert.rejects(
    door.fetch('demo', granted, { url: http_('/hang?api_key=s3cret'), timeout_ms: 50 }),
  )
  const attempts = door.attempts('demo')
  assert.deepEqual(
    attempts.map(({ outcome, method, url, host, status }) => ({
      outcome,
      method,
      url,
      host,
      status,
    })),
    [
      {
        outcome: 'failed',
        method: 'GET',
        url: http_('/hang'),
        host: 'api.example.test',
        status: undefined,
      },
      {
        outcome: 'denied',
        method: 'GET',
        url: https_('/echo'),
        host: 'api.example.test',
        status: undefined,
      },
      { outcome: 'ok', method: 'GET', url: https_('/echo'), host: 'api.example.test', status: 200 },
    ],
  )
  assert.equal(attempts[2]!.at, '2025-01-01T00:00:00Z')
  assert.ok((attempts[2]!.bytes ?? 0) > 0)
  assert.equal(
    attempts[1]!.reason,
    'egress to api.example.test denied: it resolves to a loopback address',
  )
  assert.deepEqual(seen, [...attempts].reverse())
  const lines = logLines.slice(logged).map((line) => JSON.parse(line))
  assert.deepEqual(
    lines.map(({ level, plugin, outcome }) => ({ level, plugin, outcome })),
    [
      { level: 30, plugin: 'demo', outcome: 'ok' },
      { level: 40, plugin: 'demo', outcome: 'denied' },
      { level: 40, plugin: 'demo', outcome: 'failed' },
    ],
  )
  assert.ok(!logLines.slice(logged).join('').includes('s3cret'))
  assert.deepEqual(door.attempts('other'), [])
  door.forget('demo')
  assert.deepEqual(door.attempts('demo'), [])
})

test('the ring keeps the last 200 attempts', async () => {
  const door = egress()
  for (let i = 0; i < 205; i++) {
    await door.fetch('demo', allowedOnly, { url: `https://nope${i}.example.test/` }).catch(() => {})
  }
  const attempts = door.attempts('demo')
  assert.equal(attempts.length, 200)
  assert.equal(attempts[0]!.host, 'nope204.example.test')
  assert.equal(attempts[199]!.host, 'nope5.example.test')
})

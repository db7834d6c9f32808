import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { crossSiteRefusal, originPolicy, parseHost } from './origin-guard.js'

const server = {
  addr: '0.0.0.0:8080',
  base_url: 'https://coffer.example.com',
  allow_unauthenticated: true,
  allowed_hosts: ['NAS.local:9000'],
  allowed_origins: ['https://dash.example.com'],
  request_timeout: '30s',
}
const policy = originPolicy(server)

function status(method: string, headers: Record<string, string>): number | null {
  const request = { method, headers } as unknown as FastifyRequest
  return crossSiteRefusal(policy, request)?.status ?? null
}

test('parseHost takes host[:port] only, normalised as a URL host', () => {
  assert.deepEqual(parseHost('LocalHost:80'), { host: 'localhost', hostname: 'localhost' })
  assert.deepEqual(parseHost('[::1]:8080'), { host: '[::1]:8080', hostname: '[::1]' })
  for (const bad of ['', 'a b', 'user@127.0.0.1', '127.0.0.1/x', 'x?y', 'x#y', 'a\\b', '[::1']) {
    assert.equal(parseHost(bad), null, bad)
  }
})

test('Host: IP literals, localhost, the hosts of addr and base_url and allowed_hosts, any port', () => {
  for (const host of [
    '127.0.0.1:8080',
    '10.1.2.3',
    '[::1]:1',
    '[fe80::1]',
    'localhost:3000',
    'LOCALHOST',
    '0.0.0.0:8080',
    'coffer.example.com',
    'Coffer.Example.com:443',
    'nas.local',
    'nas.local:8080',
  ]) {
    assert.equal(status('GET', { host }), null, host)
  }
  for (const host of [
    'evil.example:8080',
    'localhost.evil.example',
    '127.0.0.1.nip.io',
    'coffer.example.com.evil.example',
    'sub.localhost',
    'user@localhost',
    '',
  ]) {
    assert.equal(status('GET', { host }), 421, host)
  }
  // A missing Host (HTTP/1.0) is no browser.
  assert.equal(status('GET', {}), null)
})

test('Origin on state-changing requests: own host and port, base_url, allowed_origins', () => {
  const host = '127.0.0.1:8080'
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    assert.equal(status(method, { host, origin: 'http://127.0.0.1:8080' }), null)
    assert.equal(status(method, { host, origin: 'http://127.0.0.1:8081' }), 403)
  }
  // A TLS-terminating proxy: the page is https, the service sees the same Host.
  assert.equal(status('POST', { host: 'nas.local', origin: 'https://nas.local' }), null)
  assert.equal(status('POST', { host: 'nas.local:80', origin: 'http://nas.local' }), null)
  assert.equal(status('POST', { host, origin: 'https://coffer.example.com' }), null)
  assert.equal(status('POST', { host, origin: 'https://dash.example.com' }), null)
  assert.equal(status('POST', { host, origin: 'http://dash.example.com' }), 403)
  // An allowed host name is not an allowed origin on another port.
  assert.equal(status('POST', { host, origin: 'http://nas.local:9000' }), 403)
  for (const origin of ['null', 'garbage', 'file:///etc/passwd', 'chrome-extension://abc']) {
    assert.equal(status('POST', { host, origin }), 403, origin)
  }
  // Reads are not origin-checked; no Origin passes unless the browser says cross-site.
  assert.equal(status('GET', { host, origin: 'http://evil.example' }), null)
  assert.equal(status('POST', { host }), null)
  assert.equal(status('POST', { host, 'sec-fetch-site': 'same-origin' }), null)
  assert.equal(status('POST', { host, 'sec-fetch-site': 'none' }), null)
  assert.equal(status('DELETE', { host, 'sec-fetch-site': 'cross-site' }), 403)
})

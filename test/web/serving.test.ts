// How `coffer serve` serves the built dashboard (src/http/dashboard.ts): every page
// path answers index.html with the dashboard's Content-Security-Policy and no
// caching (history routing; a new version shows at once), hashed assets answer
// precompressed with a year's cache, and paths of the API and the open routes
// stay 404 problem details. npm test builds the dashboard before these run.
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { DASHBOARD_CSP } from '../../src/http/security-headers.js'
import { closeBrowser, serve } from '../helpers/browser.js'

after(closeBrowser)

test('pages, assets and the API each answer as they should', async (t) => {
  const server = await serve(t)
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers })

  let html = ''
  for (const path of ['/', '/transactions', '/transactions/csv%3Aabc?tab=history', '/no/such']) {
    const res = await get(path)
    assert.equal(res.status, 200, path)
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/, path)
    assert.equal(res.headers.get('content-security-policy'), DASHBOARD_CSP, path)
    assert.equal(res.headers.get('cache-control'), 'no-cache', path)
    assert.equal(res.headers.get('x-frame-options'), 'DENY', path)
    html = await res.text()
  }
  // The page loads only its own files: no other origin, no inline script.
  const sources = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
  assert.ok(sources.length >= 3, html)
  for (const source of sources) assert.match(source, /^\/[^/]/, `${source} is not the service's`)
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'an inline script')

  const script = sources.find((s) => /^\/assets\/.+\.js$/.test(s))
  assert.ok(script, html)
  const brotli = await get(script, { 'accept-encoding': 'br' })
  assert.equal(brotli.status, 200)
  assert.equal(brotli.headers.get('content-encoding'), 'br')
  assert.match(brotli.headers.get('cache-control') ?? '', /max-age=31536000/)
  assert.match(brotli.headers.get('cache-control') ?? '', /immutable/)
  const gzip = await get(script, { 'accept-encoding': 'gzip' })
  assert.equal(gzip.headers.get('content-encoding'), 'gzip')
  const plain = await get(script, { 'accept-encoding': 'identity' })
  assert.equal(plain.headers.get('content-encoding'), null)
  assert.equal((await brotli.text()).length, (await plain.text()).length)
  assert.equal((await get('/assets/no-such-file.js')).status, 404)

  for (const path of ['/api/v1/nope', '/api', '/metrics/x', '/mcp/x', '/healthz/x']) {
    const res = await get(path)
    assert.equal(res.status, 404, path)
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, path)
    assert.equal(
      res.headers.get('content-security-policy'),
      "default-src 'none'; frame-ancestors 'none'",
    )
  }
})

// Runs the receiver's verification snippet of docs/webhooks.md against a real
// signed delivery, so the documented code cannot drift from what Coffer sends.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { attemptDelivery } from './delivery.js'

type Verify = (
  secret: string,
  headers: IncomingHttpHeaders,
  rawBody: string | Buffer,
  nowSeconds?: number,
) => boolean

const DOC = new URL('../../docs/webhooks.md', import.meta.url)

async function loadSnippet(): Promise<Verify> {
  const text = readFileSync(DOC, 'utf8')
  const match = /<!-- verify-snippet[^>]*-->\s*```js\n([\s\S]*?)```/.exec(text)
  assert.ok(match, 'docs/webhooks.md has the verify-snippet block')
  const dir = mkdtempSync(join(tmpdir(), 'coffer-verify-'))
  const file = join(dir, 'verify.mjs')
  writeFileSync(file, match[1]!)
  try {
    const module = (await import(pathToFileURL(file).href)) as { verifyWebhook: Verify }
    return module.verifyWebhook
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

test('the documented verification accepts a real signed delivery and rejects tampering', async (t) => {
  const verifyWebhook = await loadSnippet()
  let received: { headers: IncomingHttpHeaders; body: Buffer } | null = null
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      received = { headers: req.headers, body: Buffer.concat(chunks) }
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as AddressInfo

  const secret = 'whsec_unit-test-secret'
  const event = {
    sequence: 7,
    event_id: '0b7f7c1e-5a43-4f3e-9d59-2f9d1c1f0a11',
    type: 'transaction.created',
    entity_type: 'transaction',
    entity_id: 'man_1',
    occurred_at: '2024-05-01T12:00:00Z',
    data: { amount: '-12.30', payee: 'Café ☕' },
  }
  const result = await attemptDelivery(
    { url: `http://127.0.0.1:${port}/hook`, secret },
    event,
    JSON.stringify(event),
    { clock: { now: () => new Date() }, timeoutMs: 5_000 },
  )
  assert.equal(result.ok, true)
  assert.ok(received)
  const { headers, body } = received as { headers: IncomingHttpHeaders; body: Buffer }
  const now = Number(headers['x-service-timestamp'])

  assert.equal(verifyWebhook(secret, headers, body, now), true)
  assert.equal(verifyWebhook(secret, headers, body.toString('utf8'), now), true)
  assert.deepEqual(JSON.parse(body.toString('utf8')), event)
  // Wrong secret, altered body, altered timestamp, stale or future timestamp.
  assert.equal(verifyWebhook(secret + 'x', headers, body, now), false)
  assert.equal(
    verifyWebhook(secret, headers, body.toString('utf8').replace('12.30', '99.30'), now),
    false,
  )
  assert.equal(
    verifyWebhook(secret, { ...headers, 'x-service-timestamp': String(now + 1) }, body, now),
    false,
  )
  assert.equal(verifyWebhook(secret, headers, body, now + 301), false)
  assert.equal(verifyWebhook(secret, headers, body, now - 301), false)
  assert.equal(
    verifyWebhook(secret, { ...headers, 'x-service-signature': undefined }, body, now),
    false,
  )
})

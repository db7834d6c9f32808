// A webhook receiver on 127.0.0.1 that records every request and answers as the
// test tells it (a status, or hanging until it closes). Its signature check is
// written independently of src/webhooks/signing.ts, the way a receiver would.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'

export interface Delivery {
  headers: Record<string, string>
  /** The raw body exactly as received. */
  body: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  event: any
  /** performance.now() when the request arrived. */
  at: number
}

/** A status to answer with, or 'hang' to never answer. */
export type Answer = number | 'hang'

export interface Receiver {
  url: string
  deliveries: Delivery[]
  /** Chooses the answer to the n-th request (0-based); default 200. */
  answer: (delivery: Delivery, index: number) => Answer | Promise<Answer>
  /** Polls until `check` holds; fails with `what` after the deadline. */
  waitFor(
    what: string,
    check: (deliveries: Delivery[]) => boolean,
    deadlineMs?: number,
  ): Promise<void>
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

export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  deadlineMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + deadlineMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

export async function startReceiver(
  t: TestContext | null,
  answer: Receiver['answer'] = () => 200,
): Promise<Receiver> {
  const deliveries: Delivery[] = []
  const receiver = { answer } as Receiver
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const at = performance.now()
      const body = await readBody(req)
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers[name] = value
      }
      let event: unknown = null
      try {
        event = JSON.parse(body)
      } catch {
        // Recorded as null; the test will fail on it.
      }
      const delivery: Delivery = { headers, body, event, at }
      const index = deliveries.length
      deliveries.push(delivery)
      const reply = await receiver.answer(delivery, index)
      if (reply === 'hang') return
      res.writeHead(reply, { 'content-type': 'text/plain' }).end('ok')
    })()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  let closed = false
  Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    waitFor: (what: string, check: (d: Delivery[]) => boolean, deadlineMs?: number) =>
      waitUntil(what, () => check(deliveries), deadlineMs),
    async close() {
      if (closed) return
      closed = true
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  })
  t?.after(() => receiver.close())
  return receiver
}

/**
 * What a receiver does (docs/webhooks.md): recompute the HMAC over
 * "<timestamp>.<raw body>", compare in constant time, reject stale timestamps.
 */
export function signatureValid(
  secret: string,
  delivery: Delivery,
  toleranceSeconds = 300,
): boolean {
  const timestamp = delivery.headers['x-service-timestamp'] ?? ''
  const signature = delivery.headers['x-service-signature'] ?? ''
  if (!/^\d+$/.test(timestamp)) return false
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return false
  const expected = Buffer.from(
    'sha256=' + createHmac('sha256', secret).update(`${timestamp}.${delivery.body}`).digest('hex'),
  )
  const given = Buffer.from(signature)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

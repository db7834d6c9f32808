// SPEC 4.8: the signature is HMAC-SHA256 with the webhook's secret over
// "<timestamp>.<raw body>", sent as `X-Service-Signature: sha256=<hex>`. The body is
// serialized once and those exact bytes are both signed and sent.
import { createHmac } from 'node:crypto'

export const SIGNATURE_PREFIX = 'sha256='

export function signBody(secret: string, timestamp: number, body: string): string {
  const hmac = createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(body, 'utf8')
  return SIGNATURE_PREFIX + hmac.digest('hex')
}

/** The headers of one delivery request (SPEC 4.8). */
export function deliveryHeaders(
  event: { type: string; event_id: string },
  secret: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Coffer-Webhooks/1',
    'x-service-event': event.type,
    'x-service-event-id': event.event_id,
    'x-service-timestamp': String(timestamp),
    'x-service-signature': signBody(secret, timestamp, body),
  }
}

// POST /webhooks/{id}/test (CONTRACT 6): one signed delivery of a `webhook.test`
// envelope, sent now and answered with its outcome, whether or not the receiver
// accepted it. It is a real attempt, so it updates the webhook's health.
import { randomUUID } from 'node:crypto'
import { parseDuration } from '../config/index.js'
import type { ServiceContext } from '../context.js'
import type { TestDelivery as TestDeliveryJson } from '../schemas/webhooks.js'
import { isoNow } from '../clock.js'
import { throwIfClosing } from '../signals.js'
import { attemptDelivery } from './delivery.js'
import { recordAttempt } from './health.js'
import { findWebhookRow } from './registry.js'

export const TEST_EVENT_TYPE = 'webhook.test'

export async function sendTestDelivery(ctx: ServiceContext, id: string): Promise<TestDeliveryJson> {
  const row = await findWebhookRow(ctx.db.kysely, id)
  // Shaped like a log event so receivers parse it with the same code; sequence 0
  // because it is not in the log.
  const event = {
    sequence: 0,
    event_id: randomUUID(),
    type: TEST_EVENT_TYPE,
    entity_type: 'webhook',
    entity_id: row.id,
    occurred_at: isoNow(ctx.clock),
    data: { webhook_id: row.id, message: 'A test delivery from Coffer.' },
  }
  const result = await attemptDelivery(row, event, JSON.stringify(event), {
    clock: ctx.clock,
    timeoutMs: parseDuration(ctx.config.webhooks.timeout),
    // A shutdown does not wait for a receiver that never answers (up to webhooks.timeout).
    signal: ctx.signals.closing,
  })
  // Cut short by the shutdown: a 503, and the webhook's health keeps no attempt it did not make.
  if (!result.ok) throwIfClosing(ctx.signals.closing)
  ctx.metrics.webhookAttempts.inc()
  ctx.metrics.webhookDeliveries.inc({ outcome: result.ok ? 'delivered' : 'failed' })
  await recordAttempt(ctx.db.kysely, row.id, result, isoNow(ctx.clock))
  return {
    delivered: result.ok,
    status: result.status,
    duration_ms: result.duration_ms,
    ...(result.error !== null ? { error: result.error } : {}),
  }
}

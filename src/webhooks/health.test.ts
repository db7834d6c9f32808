// Delivery health (CONTRACT 6) written in order of the attempts: a dispatcher
// window flushed after a test delivery that came later never puts the older
// outcome back.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { pino } from 'pino'
import { bareContext } from '../../test/helpers/context.js'
import { HealthRecorder, recordAttempt } from './health.js'
import { createWebhook, getWebhook } from './registry.js'

const failed = { ok: false, status: 500, error: 'HTTP 500', duration_ms: 3 }
const delivered = { ok: true, status: 200, error: null, duration_ms: 2 }

test('a later test delivery is not overwritten by an earlier window flushed after it', async (t) => {
  const ctx = await bareContext(t)
  const hook = await createWebhook(ctx, { url: 'http://127.0.0.1:9/hook', event_types: ['*'] })
  const recorder = new HealthRecorder(ctx.db.kysely, pino({ level: 'silent' }))

  recorder.record(hook.id, failed, '2024-05-01T10:00:00.000Z')
  await recordAttempt(ctx.db.kysely, hook.id, delivered, '2024-05-01T10:00:00.150Z')
  await recorder.flush()

  const after = await getWebhook(ctx, hook.id)
  assert.equal(after.last_status, 200)
  assert.equal(after.last_error, null)
  assert.equal(after.last_attempt_at, '2024-05-01T10:00:00.150Z')
  assert.equal(after.consecutive_failures, 0)

  // A newer window still lands.
  recorder.record(hook.id, failed, '2024-05-01T10:00:01.000Z')
  await recorder.flush()
  const failing = await getWebhook(ctx, hook.id)
  assert.equal(failing.last_status, 500)
  assert.equal(failing.consecutive_failures, 1)
})

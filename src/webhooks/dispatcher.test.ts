// The dispatcher against a real SQLite built by the migrations and a local
// receiver: backoff growth and cap (with a short base, as SPEC 8's 500 ms would
// make this slow), and a shutdown that cuts a hanging attempt after its grace
// period and leaves the cursor below it, so the next start delivers it.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { ManualClock, stepThroughBackoff } from '../../test/helpers/clock.js'
import { bareContext } from '../../test/helpers/context.js'
import { startReceiver, type Answer } from '../../test/fakes/receiver.js'
import type { ServiceContext } from '../context.js'
import { createAccount } from '../ledger/accounts.js'
import { logHead } from '../events/store.js'
import { loadCursor } from './cursor.js'
import { backoffDelayMs, WebhookDispatcher } from './dispatcher.js'
import { createWebhook } from './registry.js'

function context(t: TestContext, env: Record<string, string> = {}): Promise<ServiceContext> {
  return bareContext(t, { env })
}

test('backoff starts at 500 ms, doubles, and is capped at 30 s', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 8, 20].map((n) => backoffDelayMs(n)),
    [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000],
  )
  assert.deepEqual(
    [1, 2, 3, 4].map((n) => backoffDelayMs(n, 20, 50)),
    [20, 40, 50, 50],
  )
})

test('retries wait the backoff on the context clock, longer each time, until the first 2xx', async (t) => {
  const clock = new ManualClock()
  const ctx = await bareContext(t, { env: { SERVICE_WEBHOOKS_MAX_ATTEMPTS: '8' }, clock })
  const receiver = await startReceiver(t, (_d, index) => (index < 4 ? 500 : 200))
  await createWebhook(ctx, { url: receiver.url, event_types: ['*'] })
  const dispatcher = new WebhookDispatcher(ctx, { backoffBaseMs: 100, backoffCapMs: 10_000 })
  assert.equal(await dispatcher.start(), true)

  await createAccount(ctx, { name: 'Cash', currency: 'USD' })
  const waits = await stepThroughBackoff(clock, receiver, 4)
  await dispatcher.whenSettled(await logHead(ctx.db.kysely))
  assert.deepEqual(waits, [100, 200, 400, 800], 'the backoff doubles from its base')
  assert.equal(receiver.deliveries.length, 5, 'four failures, then the 2xx ends it')
  assert.deepEqual(clock.pending(), [], 'no retry is left waiting')
  const attempts = await ctx.metrics.webhookAttempts.get()
  assert.equal(attempts.values[0]?.value, 5)
  await dispatcher.stop()
})

test('stop cuts a hanging attempt after the grace period; the next start delivers it', async (t) => {
  const ctx = await context(t, { SERVICE_WEBHOOKS_TIMEOUT: '60s' })
  let answer: Answer = 'hang'
  const receiver = await startReceiver(t, () => answer)
  await createWebhook(ctx, { url: receiver.url, event_types: ['account.created'] })
  const first = new WebhookDispatcher(ctx, { shutdownGraceMs: 100 })
  await first.start()
  const before = await logHead(ctx.db.kysely)

  await createAccount(ctx, { name: 'Cash', currency: 'USD' })
  await receiver.waitFor('the hanging attempt', (d) => d.length === 1)
  await first.stop()
  assert.equal(await loadCursor(ctx.db.kysely), before, 'the cursor stays below the cut event')

  answer = 200
  const second = new WebhookDispatcher(ctx)
  await second.start()
  await second.whenSettled(await logHead(ctx.db.kysely))
  assert.equal(receiver.deliveries.length, 2)
  assert.equal(
    receiver.deliveries[1]!.headers['x-service-event-id'],
    receiver.deliveries[0]!.headers['x-service-event-id'],
  )
  await second.stop()
  assert.equal(await loadCursor(ctx.db.kysely), await logHead(ctx.db.kysely))
})

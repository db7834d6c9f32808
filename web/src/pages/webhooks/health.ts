// A webhook's delivery health in words, from the fields the service persists
// (CONTRACT 6): consecutive_failures counts failed attempts since the last 2xx.
import type { Result } from '../../api/client.js'
import { ago, formatTime, plural } from '../../components/format.js'

export type Webhook = Result<'GET /webhooks/:id'>

export interface Health {
  /** One word for the badge. */
  word: 'healthy' | 'failing' | 'disabled' | 'unused'
  tone: 'ok' | 'bad' | 'neutral'
  /** A sentence that says what the word rests on. */
  sentence: string
}

export function healthOf(webhook: Webhook, now = Date.now()): Health {
  const failing = webhook.consecutive_failures > 0
  if (!webhook.enabled) {
    return {
      word: 'disabled',
      tone: 'neutral',
      sentence: failing
        ? `Disabled: receives nothing. It was failing when last tried (${plural(webhook.consecutive_failures, 'failed attempt')} in a row).`
        : 'Disabled: receives nothing until it is enabled again.',
    }
  }
  if (failing) {
    const since = webhook.last_success_at
      ? `failing since its last successful delivery, ${formatTime(webhook.last_success_at)}`
      : 'failing since it was created: no delivery has succeeded yet'
    return {
      word: 'failing',
      tone: 'bad',
      sentence: `${since[0]!.toUpperCase()}${since.slice(1)} (${plural(webhook.consecutive_failures, 'failed attempt')} in a row, the last ${ago(webhook.last_attempt_at, now)}).`,
    }
  }
  if (webhook.last_attempt_at === null) {
    return { word: 'unused', tone: 'neutral', sentence: 'No delivery attempted yet.' }
  }
  return {
    word: 'healthy',
    tone: 'ok',
    sentence: `Healthy: the last delivery succeeded ${ago(webhook.last_success_at, now)}.`,
  }
}

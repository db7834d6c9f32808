// Webhook registrations with their delivery health (SPEC 2.8, CONTRACT 6), and the
// dispatcher's place in the event log.
import type { Selectable } from 'kysely'

export interface WebhooksTable {
  id: string
  url: string
  /** JSON array of event types; empty or ['*'] means every type. */
  event_types: string
  /** 1 or 0: booleans are integers on both engines. */
  enabled: number
  /** The signing secret itself: it is needed to sign, so it cannot be a hash. */
  secret: string
  created_at: string
  updated_at: string
  /** HTTP status of the last attempt; null before any, or after a network error or timeout. */
  last_status: number | null
  last_error: string | null
  last_attempt_at: string | null
  last_success_at: string | null
  consecutive_failures: number
  /** The log head when it was created: it receives the events after this sequence. */
  starts_after: number
}

/** One row ('dispatcher'): every event at or below `sequence` has been dealt with. */
export interface WebhookCursorTable {
  id: string
  sequence: number
  updated_at: string
}

export interface WebhookTables {
  webhooks: WebhooksTable
  webhook_cursor: WebhookCursorTable
}

export type WebhookRow = Selectable<WebhooksTable>

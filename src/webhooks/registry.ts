// The webhook registry (SPEC 2.8, 4.4; CONTRACT 6): create, list, partial update,
// delete and secret rotation. Admin tier; management actions emit no events
// (SPEC 6.1.5). The secret is returned by create and rotate only, and never logged.
import { randomBytes, randomUUID } from 'node:crypto'
import type { ServiceContext } from '../context.js'
import { announceChange } from '../db/coordination.js'
import type { DbExecutor } from '../db/schema.js'
import { Invalid, NotFound } from '../errors.js'
import { lockEventAppends, logHead } from '../events/store.js'
import { EVENT_TYPES } from '../events/types.js'
import { isoNow } from '../clock.js'
import { WEBHOOK_EVENT_TYPES_MAX, WEBHOOK_URL_MAX_CHARS } from '../schemas/limits.js'
import type {
  CreateWebhookInput,
  UpdateWebhookInput,
  WebhookJson,
  WebhookWithSecret,
} from '../schemas/webhooks.js'
import type { WebhookRow } from './tables.js'

export const ALL_EVENT_TYPES = '*'
/** Registry changes are announced here, so that the dispatching process reloads at once. */
export const WEBHOOKS_CHANNEL = 'coffer_webhooks'

/** The one serializer of a webhook row; it never carries the secret. */
export function toWebhookJson(row: WebhookRow): WebhookJson {
  return {
    id: row.id,
    url: row.url,
    event_types: parseEventTypes(row.event_types),
    enabled: row.enabled === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_status: row.last_status === null ? null : Number(row.last_status),
    last_error: row.last_error,
    last_attempt_at: row.last_attempt_at,
    last_success_at: row.last_success_at,
    consecutive_failures: Number(row.consecutive_failures),
  }
}

function withSecret(row: WebhookRow): WebhookWithSecret {
  return {
    id: row.id,
    url: row.url,
    event_types: parseEventTypes(row.event_types),
    enabled: row.enabled === 1,
    secret: row.secret,
  }
}

export function parseEventTypes(text: string): string[] {
  return JSON.parse(text) as string[]
}

/** SPEC 2.8: empty or containing '*' means every type. */
export function subscribesTo(eventTypes: readonly string[], type: string): boolean {
  return (
    eventTypes.length === 0 || eventTypes.includes(ALL_EVENT_TYPES) || eventTypes.includes(type)
  )
}

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`
}

/** An absolute http(s) URL without credentials (Node's fetch refuses those). */
export function requireWebhookUrl(field: string, value: string): string {
  const url = value.trim()
  if (url.length === 0 || url.length > WEBHOOK_URL_MAX_CHARS)
    throw Invalid.field(field, `must be 1 to ${WEBHOOK_URL_MAX_CHARS} characters`)
  // The URL parser would quietly drop tabs and newlines, encode spaces and
  // invent a host for `http:///x`; what is stored and called must be what was sent.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f-\u009f]/.test(url))
    throw Invalid.field(field, 'must not contain spaces, line breaks or control characters')
  if (!/^https?:\/\/[^/?#\\@]/i.test(url))
    throw Invalid.field(
      field,
      'must be an absolute http or https URL with a host (http://host/...)',
    )
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw Invalid.field(field, 'must be an absolute http or https URL')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw Invalid.field(field, 'must be an absolute http or https URL')
  if (parsed.username !== '' || parsed.password !== '')
    throw Invalid.field(field, 'must not contain a user name or password')
  return url
}

/** Known types of events/types.ts or '*'; duplicates are dropped, order kept. */
export function requireEventTypes(field: string, value: readonly string[]): string[] {
  if (value.length > WEBHOOK_EVENT_TYPES_MAX)
    throw Invalid.field(field, `must have at most ${WEBHOOK_EVENT_TYPES_MAX} entries`)
  const known = new Set<string>([...EVENT_TYPES, ALL_EVENT_TYPES])
  const errors = value
    .map((type, i) => ({ type, i }))
    .filter(({ type }) => !known.has(type))
    .map(({ type, i }) => ({
      field: `${field}.${i}`,
      message: `unknown event type ${JSON.stringify(type)}; use '*' or one of ${EVENT_TYPES.join(', ')}`,
    }))
  if (errors.length > 0) {
    throw new Invalid(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors)
  }
  return [...new Set(value)]
}

/** Tells the dispatcher of this process at once, and (PostgreSQL) that of any other. */
function announceRegistryChange(ctx: ServiceContext): void {
  ctx.signals.emit('webhooks.changed')
  announceChange(ctx.db.kysely, WEBHOOKS_CHANNEL).catch((error: unknown) =>
    ctx.log.warn({ err: error }, 'webhooks: could not announce a registry change'),
  )
}

async function requireWebhook(db: DbExecutor, id: string): Promise<WebhookRow> {
  const row = await db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) throw new NotFound(`webhook ${id} not found`)
  return row
}

export async function createWebhook(
  ctx: ServiceContext,
  input: CreateWebhookInput,
): Promise<WebhookWithSecret> {
  const now = isoNow(ctx.clock)
  const row: WebhookRow = {
    id: `wh_${randomUUID()}`,
    url: requireWebhookUrl('url', input.url),
    event_types: JSON.stringify(requireEventTypes('event_types', input.event_types)),
    enabled: 1,
    secret: newSecret(),
    created_at: now,
    updated_at: now,
    last_status: null,
    last_error: null,
    last_attempt_at: null,
    last_success_at: null,
    consecutive_failures: 0,
    starts_after: 0,
  }
  await ctx.db.kysely.transaction().execute(async (trx) => {
    // The webhook receives every event after its 201, whichever process
    // dispatches: its start is the log head, read while no event can be
    // appended, so every later event has a higher sequence.
    await lockEventAppends(trx)
    row.starts_after = await logHead(trx)
    await trx.insertInto('webhooks').values(row).execute()
    await announceChange(trx, WEBHOOKS_CHANNEL)
  })
  announceRegistryChange(ctx)
  return withSecret(row)
}

export async function listWebhooks(ctx: ServiceContext): Promise<{ webhooks: WebhookJson[] }> {
  // Index: webhooks_created (created_at, id). Registrations are few: no paging.
  const rows = await ctx.db.kysely
    .selectFrom('webhooks')
    .selectAll()
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  return { webhooks: rows.map(toWebhookJson) }
}

export async function getWebhook(ctx: ServiceContext, id: string): Promise<WebhookJson> {
  return toWebhookJson(await requireWebhook(ctx.db.kysely, id))
}

/** A partial update (CONTRACT 6): an omitted field keeps its value. */
export async function updateWebhook(
  ctx: ServiceContext,
  id: string,
  input: UpdateWebhookInput,
): Promise<WebhookJson> {
  const patch: Partial<WebhookRow> = {}
  if (input.url !== undefined) patch.url = requireWebhookUrl('url', input.url)
  if (input.event_types !== undefined)
    patch.event_types = JSON.stringify(requireEventTypes('event_types', input.event_types))
  if (input.enabled !== undefined) patch.enabled = input.enabled ? 1 : 0
  const before = await requireWebhook(ctx.db.kysely, id)
  const after: WebhookRow = { ...before, ...patch }
  const changed = (['url', 'event_types', 'enabled'] as const).some((f) => before[f] !== after[f])
  if (!changed) return toWebhookJson(before)
  after.updated_at = isoNow(ctx.clock)
  await ctx.db.kysely
    .updateTable('webhooks')
    .set({ ...patch, updated_at: after.updated_at })
    .where('id', '=', id)
    .execute()
  announceRegistryChange(ctx)
  return toWebhookJson(after)
}

export async function deleteWebhook(ctx: ServiceContext, id: string): Promise<void> {
  const result = await ctx.db.kysely.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst()
  if (Number(result.numDeletedRows) === 0) throw new NotFound(`webhook ${id} not found`)
  announceRegistryChange(ctx)
}

/** A new secret signs every delivery from now on; the old one stops verifying at once. */
export async function rotateWebhookSecret(
  ctx: ServiceContext,
  id: string,
): Promise<WebhookWithSecret> {
  const before = await requireWebhook(ctx.db.kysely, id)
  const after: WebhookRow = { ...before, secret: newSecret(), updated_at: isoNow(ctx.clock) }
  await ctx.db.kysely
    .updateTable('webhooks')
    .set({ secret: after.secret, updated_at: after.updated_at })
    .where('id', '=', id)
    .execute()
  announceRegistryChange(ctx)
  return withSecret(after)
}

/** Every webhook, enabled or not, with what the dispatcher needs to sign and send. */
export async function loadWebhooks(db: DbExecutor): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().execute()
}

export async function findWebhookRow(db: DbExecutor, id: string): Promise<WebhookRow> {
  return requireWebhook(db, id)
}

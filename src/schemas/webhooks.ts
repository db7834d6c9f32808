// Webhooks (SPEC 2.8, 4.4, 4.8; CONTRACT 6): the registry entry, the answers that
// carry the secret, the request bodies and each route's schema.
import Type, { type Static } from 'typebox'
import { ErrorResponses, IdParams, NoContent, NullableString, Timestamp } from './common.js'
import { WEBHOOK_EVENT_TYPES_MAX, WEBHOOK_URL_MAX_CHARS } from './limits.js'

const Url = Type.String({
  maxLength: WEBHOOK_URL_MAX_CHARS,
  description: 'Absolute http or https URL that receives the signed POSTs.',
})

const EventTypes = Type.Array(Type.String(), {
  maxItems: WEBHOOK_EVENT_TYPES_MAX,
  description: "Event types to deliver; empty or ['*'] means every type.",
})

export const Webhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  event_types: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_status: Type.Union([Type.Integer(), Type.Null()], {
    description: 'HTTP status of the last attempt; null before any or after a network error.',
  }),
  last_error: NullableString,
  last_attempt_at: Type.Union([Timestamp, Type.Null()]),
  last_success_at: Type.Union([Timestamp, Type.Null()]),
  consecutive_failures: Type.Integer({ description: 'Failed attempts since the last 2xx.' }),
})
export type WebhookJson = Static<typeof Webhook>

/** The create and rotate-secret answer: the only two places the secret is shown. */
export const WebhookWithSecret = Type.Object({
  id: Type.String(),
  url: Type.String(),
  event_types: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  secret: Type.String({ description: 'The signing secret; shown here only.' }),
})
export type WebhookWithSecret = Static<typeof WebhookWithSecret>

export const CreateWebhookBody = Type.Object(
  { url: Url, event_types: EventTypes },
  { additionalProperties: false },
)
export type CreateWebhookInput = Static<typeof CreateWebhookBody>

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    event_types: Type.Optional(EventTypes),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type UpdateWebhookInput = Static<typeof UpdateWebhookBody>

export const TestDelivery = Type.Object({
  delivered: Type.Boolean(),
  status: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Integer(),
  error: Type.Optional(Type.String()),
})
export type TestDelivery = Static<typeof TestDelivery>

const tags = ['webhooks']

export const WebhookRoutes = {
  list: {
    tags,
    summary: 'List webhooks with their delivery health (never the secrets)',
    response: { 200: Type.Object({ webhooks: Type.Array(Webhook) }), ...ErrorResponses },
  },
  create: {
    tags,
    summary: 'Register a webhook; the signing secret is returned this once',
    body: CreateWebhookBody,
    response: { 201: WebhookWithSecret, ...ErrorResponses },
  },
  get: {
    tags,
    summary: 'Get a webhook',
    params: IdParams,
    response: { 200: Webhook, ...ErrorResponses },
  },
  update: {
    tags,
    summary: 'Change url, event_types or enabled; omitted fields keep their value',
    params: IdParams,
    body: UpdateWebhookBody,
    response: { 200: Webhook, ...ErrorResponses },
  },
  delete: {
    tags,
    summary: 'Delete a webhook',
    params: IdParams,
    response: { 204: NoContent, ...ErrorResponses },
  },
  test: {
    tags,
    summary: 'Send a signed webhook.test delivery now and report the outcome',
    description: 'Answers 200 whether or not the receiver accepted the delivery.',
    params: IdParams,
    response: { 200: TestDelivery, ...ErrorResponses },
  },
  rotateSecret: {
    tags,
    summary: 'Replace the signing secret; the new one is returned this once',
    params: IdParams,
    response: { 200: WebhookWithSecret, ...ErrorResponses },
  },
}

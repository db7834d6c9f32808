// /api/v1/webhooks: the registry, test deliveries and secret rotation (SPEC 2.8,
// 4.4, 4.8; CONTRACT 6). Admin tier; management actions emit no events (SPEC 6.1.5).
import Type from 'typebox'
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
  WEBHOOK_EVENT_TYPES_MAX,
  WEBHOOK_URL_MAX_CHARS,
} from '../../webhooks/registry.js'
import { sendTestDelivery } from '../../webhooks/send-test.js'
import {
  ErrorResponses,
  IdParams,
  NoContent,
  NullableString,
  Timestamp,
} from '../schemas/common.js'
import type { App } from '../types.js'
import type { RouteDeps } from './deps.js'

const Url = Type.String({
  maxLength: WEBHOOK_URL_MAX_CHARS,
  description: 'Absolute http or https URL that receives the signed POSTs.',
})

const EventTypes = Type.Array(Type.String(), {
  maxItems: WEBHOOK_EVENT_TYPES_MAX,
  description: "Event types to deliver; empty or ['*'] means every type.",
})

const Webhook = Type.Object({
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

const WebhookWithSecret = Type.Object({
  id: Type.String(),
  url: Type.String(),
  event_types: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  secret: Type.String({ description: 'The signing secret; shown here only.' }),
})

export const CreateWebhookBody = Type.Object(
  { url: Url, event_types: EventTypes },
  { additionalProperties: false },
)

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    event_types: Type.Optional(EventTypes),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

export const TestDelivery = Type.Object({
  delivered: Type.Boolean(),
  status: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Integer(),
  error: Type.Optional(Type.String()),
})

export function register(app: App, { ctx }: RouteDeps): void {
  app.get(
    '/api/v1/webhooks',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['webhooks'],
        summary: 'List webhooks with their delivery health (never the secrets)',
        response: { 200: Type.Object({ webhooks: Type.Array(Webhook) }), ...ErrorResponses },
      },
    },
    () => listWebhooks(ctx),
  )

  app.post(
    '/api/v1/webhooks',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['webhooks'],
        summary: 'Register a webhook; the signing secret is returned this once',
        body: CreateWebhookBody,
        response: { 201: WebhookWithSecret, ...ErrorResponses },
      },
    },
    async (req, reply) => reply.code(201).send(await createWebhook(ctx, req.body)),
  )

  app.get(
    '/api/v1/webhooks/:id',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['webhooks'],
        summary: 'Get a webhook',
        params: IdParams,
        response: { 200: Webhook, ...ErrorResponses },
      },
    },
    (req) => getWebhook(ctx, req.params.id),
  )

  app.put(
    '/api/v1/webhooks/:id',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['webhooks'],
        summary: 'Change url, event_types or enabled; omitted fields keep their value',
        params: IdParams,
        body: UpdateWebhookBody,
        response: { 200: Webhook, ...ErrorResponses },
      },
    },
    (req) => updateWebhook(ctx, req.params.id, req.body),
  )

  app.delete(
    '/api/v1/webhooks/:id',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook',
        params: IdParams,
        response: { 204: NoContent, ...ErrorResponses },
      },
    },
    async (req, reply) => {
      await deleteWebhook(ctx, req.params.id)
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/api/v1/webhooks/:id/test',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['webhooks'],
        summary: 'Send a signed webhook.test delivery now and report the outcome',
        description: 'Answers 200 whether or not the receiver accepted the delivery.',
        params: IdParams,
        response: { 200: TestDelivery, ...ErrorResponses },
      },
    },
    (req) => sendTestDelivery(ctx, req.params.id),
  )

  app.post(
    '/api/v1/webhooks/:id/rotate-secret',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['webhooks'],
        summary: 'Replace the signing secret; the new one is returned this once',
        params: IdParams,
        response: { 200: WebhookWithSecret, ...ErrorResponses },
      },
    },
    (req) => rotateWebhookSecret(ctx, req.params.id),
  )
}

// Handlers of /api/v1/webhooks: the registry, test deliveries and secret rotation
// (SPEC 2.8, 4.4, 4.8; CONTRACT 6). Management actions emit no events (SPEC 6.1.5).
import { WebhookRoutes as S } from '../../schemas/webhooks.js'
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
} from '../../webhooks/registry.js'
import { sendTestDelivery } from '../../webhooks/send-test.js'
import type { Handler } from '../route.js'

export const list: Handler<typeof S.list> = ({ ctx }) => listWebhooks(ctx)

export const create: Handler<typeof S.create> = async ({ ctx }, req, reply) =>
  reply.code(201).send(await createWebhook(ctx, req.body))

export const get: Handler<typeof S.get> = ({ ctx }, req) => getWebhook(ctx, req.params.id)

export const update: Handler<typeof S.update> = ({ ctx }, req) =>
  updateWebhook(ctx, req.params.id, req.body)

export const remove: Handler<typeof S.delete> = async ({ ctx }, req, reply) => {
  await deleteWebhook(ctx, req.params.id)
  return reply.code(204).send(null)
}

export const test: Handler<typeof S.test> = ({ ctx }, req) => sendTestDelivery(ctx, req.params.id)

export const rotateSecret: Handler<typeof S.rotateSecret> = ({ ctx }, req) =>
  rotateWebhookSecret(ctx, req.params.id)

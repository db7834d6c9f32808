// Handlers of /api/v1/rules (SPEC 4.2, 4.3; CONTRACT 8).
import { previewRule, runAllRules, runRule, unapplyRule } from '../../rules/run.js'
import { createRule, deleteRule, getRule, listRules, replaceRule } from '../../rules/store.js'
import { RuleRoutes as S } from '../../schemas/rules.js'
import type { Handler } from '../route.js'

export const list: Handler<typeof S.list> = ({ ctx }, req) => listRules(ctx, req.query)

export const create: Handler<typeof S.create> = async ({ ctx }, req, reply) =>
  reply.code(201).send(await createRule(ctx, req.body))

export const runAll: Handler<typeof S.runAll> = ({ ctx }) => runAllRules(ctx)

export const preview: Handler<typeof S.preview> = ({ ctx }, req) => previewRule(ctx, req.body)

export const get: Handler<typeof S.get> = ({ ctx }, req) => getRule(ctx, req.params.id)

export const replace: Handler<typeof S.replace> = ({ ctx }, req) =>
  replaceRule(ctx, req.params.id, req.body)

export const remove: Handler<typeof S.delete> = async ({ ctx }, req, reply) => {
  await deleteRule(ctx, req.params.id)
  return reply.code(204).send(null)
}

export const run: Handler<typeof S.run> = ({ ctx }, req) => runRule(ctx, req.params.id)

export const unapply: Handler<typeof S.unapply> = ({ ctx }, req) => unapplyRule(ctx, req.params.id)

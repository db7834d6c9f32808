// /api/v1/rules (SPEC 4.2, 4.3; CONTRACT 8). Reads are read tier; create,
// replace, delete, run, unapply and preview are write tier.
import { previewRule, runAllRules, runRule, unapplyRule } from '../../rules/run.js'
import { createRule, deleteRule, getRule, listRules, replaceRule } from '../../rules/store.js'
import { ErrorResponses, IdParams, ListOf, NoContent } from '../schemas/common.js'
import {
  PreviewBody,
  PreviewResult,
  Rule,
  RuleBody,
  RuleListQuery,
  RunResult,
  UnapplyResult,
} from '../schemas/rules.js'
import type { App } from '../types.js'
import type { RouteDeps } from './deps.js'

export function register(app: App, { ctx }: RouteDeps): void {
  app.get(
    '/api/v1/rules',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['rules'],
        summary: 'List rules, oldest first (the order they apply in)',
        querystring: RuleListQuery,
        response: { 200: ListOf('rules', Rule), ...ErrorResponses },
      },
    },
    (req) => listRules(ctx, req.query),
  )

  app.post(
    '/api/v1/rules',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['rules'],
        summary: 'Create a rule; it changes no transaction until it runs or one is created',
        body: RuleBody,
        response: { 201: Rule, ...ErrorResponses },
      },
    },
    async (req, reply) => reply.code(201).send(await createRule(ctx, req.body)),
  )

  // Static paths win over /rules/:id in the router, so "run" and "preview" are never ids.
  app.post(
    '/api/v1/rules/run',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['rules'],
        summary: 'Apply every enabled rule, oldest first, to the transactions they match',
        response: { 200: RunResult, ...ErrorResponses },
      },
    },
    () => runAllRules(ctx),
  )

  app.post(
    '/api/v1/rules/preview',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['rules'],
        summary: 'What a rule would do, without writing anything',
        body: PreviewBody,
        response: { 200: PreviewResult, ...ErrorResponses },
      },
    },
    (req) => previewRule(ctx, req.body),
  )

  app.get(
    '/api/v1/rules/:id',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['rules'],
        summary: 'Get a rule',
        params: IdParams,
        response: { 200: Rule, ...ErrorResponses },
      },
    },
    (req) => getRule(ctx, req.params.id),
  )

  app.put(
    '/api/v1/rules/:id',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['rules'],
        summary: 'Replace a rule (omitted labels, extensions and enabled take their defaults)',
        params: IdParams,
        body: RuleBody,
        response: { 200: Rule, ...ErrorResponses },
      },
    },
    (req) => replaceRule(ctx, req.params.id, req.body),
  )

  app.delete(
    '/api/v1/rules/:id',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['rules'],
        summary: 'Delete a rule (the labels and extensions it set stay)',
        params: IdParams,
        response: { 204: NoContent, ...ErrorResponses },
      },
    },
    async (req, reply) => {
      await deleteRule(ctx, req.params.id)
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/api/v1/rules/:id/run',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['rules'],
        summary: 'Apply one rule (even a disabled one) to the transactions it matches',
        params: IdParams,
        response: { 200: RunResult, ...ErrorResponses },
      },
    },
    (req) => runRule(ctx, req.params.id),
  )

  app.post(
    '/api/v1/rules/:id/unapply',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['rules'],
        summary: "Remove the rule's keys where they still hold its values",
        params: IdParams,
        response: { 200: UnapplyResult, ...ErrorResponses },
      },
    },
    (req) => unapplyRule(ctx, req.params.id),
  )
}

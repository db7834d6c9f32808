// /api/v1/organizations and /api/v1/accounts (SPEC 4.2, 4.3).
import Type from 'typebox'
import {
  createAccount,
  deleteAccount,
  getAccount,
  listAccounts,
  updateAccount,
} from '../../ledger/accounts.js'
import { listOrganizations } from '../../ledger/organizations.js'
import { listAccountTransactions } from '../../ledger/transactions.js'
import { ErrorResponses, IdParams, ListOf, NoContent, PageQuery } from '../schemas/common.js'
import {
  Account,
  AccountListQuery,
  CreateAccountBody,
  Organization,
  Transaction,
  TransactionListQuery,
  UpdateAccountBody,
} from '../schemas/ledger.js'
import type { App } from '../types.js'
import type { RouteDeps } from './deps.js'

export function register(app: App, { ctx }: RouteDeps): void {
  app.get(
    '/api/v1/organizations',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['accounts'],
        summary: 'List organizations',
        querystring: Type.Object(PageQuery),
        response: { 200: ListOf('organizations', Organization), ...ErrorResponses },
      },
    },
    (req) => listOrganizations(ctx, req.query),
  )

  app.get(
    '/api/v1/accounts',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['accounts'],
        summary: 'List accounts',
        querystring: AccountListQuery,
        response: { 200: ListOf('accounts', Account), ...ErrorResponses },
      },
    },
    (req) => listAccounts(ctx, req.query),
  )

  app.get(
    '/api/v1/accounts/:id',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['accounts'],
        summary: 'Get an account',
        params: IdParams,
        response: { 200: Account, ...ErrorResponses },
      },
    },
    (req) => getAccount(ctx, req.params.id),
  )

  app.get(
    '/api/v1/accounts/:id/transactions',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['accounts'],
        summary: "List an account's transactions",
        params: IdParams,
        querystring: TransactionListQuery,
        response: { 200: ListOf('transactions', Transaction), ...ErrorResponses },
      },
    },
    (req) => listAccountTransactions(ctx, req.params.id, req.query),
  )

  app.post(
    '/api/v1/accounts',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['accounts'],
        summary: 'Create a manual account',
        body: CreateAccountBody,
        response: { 201: Account, ...ErrorResponses },
      },
    },
    async (req, reply) => reply.code(201).send(await createAccount(ctx, req.body)),
  )

  app.put(
    '/api/v1/accounts/:id',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['accounts'],
        summary: 'Edit a manual account (partial)',
        params: IdParams,
        body: UpdateAccountBody,
        response: { 200: Account, ...ErrorResponses },
      },
    },
    (req) => updateAccount(ctx, req.params.id, req.body),
  )

  app.delete(
    '/api/v1/accounts/:id',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['accounts'],
        summary: 'Delete a manual account and its transactions',
        params: IdParams,
        response: { 204: NoContent, ...ErrorResponses },
      },
    },
    async (req, reply) => {
      await deleteAccount(ctx, req.params.id)
      return reply.code(204).send(null)
    },
  )
}

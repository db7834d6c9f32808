// Handlers of /api/v1/organizations and /api/v1/accounts (SPEC 4.2, 4.3).
import {
  createAccount,
  deleteAccount,
  getAccount,
  listAccounts,
  updateAccount,
} from '../../ledger/accounts.js'
import { listOrganizations } from '../../ledger/organizations.js'
import { listAccountTransactions } from '../../ledger/transactions.js'
import { AccountRoutes as S } from '../../schemas/accounts.js'
import type { Handler } from '../route.js'

export const listOrgs: Handler<typeof S.listOrganizations> = ({ ctx }, req) =>
  listOrganizations(ctx, req.query)

export const list: Handler<typeof S.list> = ({ ctx }, req) => listAccounts(ctx, req.query)

export const get: Handler<typeof S.get> = ({ ctx }, req) => getAccount(ctx, req.params.id)

export const listTransactions: Handler<typeof S.listTransactions> = ({ ctx }, req) =>
  listAccountTransactions(ctx, req.params.id, req.query)

export const create: Handler<typeof S.create> = async ({ ctx }, req, reply) =>
  reply.code(201).send(await createAccount(ctx, req.body))

export const update: Handler<typeof S.update> = ({ ctx }, req) =>
  updateAccount(ctx, req.params.id, req.body)

export const remove: Handler<typeof S.delete> = async ({ ctx }, req, reply) => {
  await deleteAccount(ctx, req.params.id)
  return reply.code(204).send(null)
}

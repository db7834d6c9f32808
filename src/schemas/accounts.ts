// Organizations and accounts (SPEC 2, 4.2, 4.3): the JSON shapes, the request
// schemas and each route's schema, for REST, MCP tools and the OpenAPI document.
import Type, { type Static } from 'typebox'
import {
  Decimal,
  DecimalText,
  ErrorResponses,
  IdParams,
  ListOf,
  NoContent,
  NullableString,
  PageQuery,
} from './common.js'
import { TransactionList, TransactionListQuery } from './transactions.js'

export const Organization = Type.Object({
  id: Type.String(),
  name: Type.String(),
  domain: NullableString,
  source: Type.String(),
})
export type OrganizationJson = Static<typeof Organization>

export const Account = Type.Object({
  id: Type.String(),
  name: Type.String(),
  currency: Type.String(),
  balance: DecimalText,
  source: Type.String(),
  org_id: Type.String(),
})
export type AccountJson = Static<typeof Account>

export const OrganizationListQuery = Type.Object(PageQuery)

export const AccountListQuery = Type.Object({
  org_id: Type.Optional(Type.String()),
  ...PageQuery,
})

export const CreateAccountBody = Type.Object(
  {
    name: Type.String({ description: 'Display name, 1–200 characters.' }),
    currency: Type.String({ description: 'Currency code, e.g. USD.' }),
    balance: Type.Optional(Decimal),
  },
  { additionalProperties: false },
)

export const UpdateAccountBody = Type.Object(
  {
    name: Type.Optional(Type.String()),
    currency: Type.Optional(Type.String()),
    balance: Type.Optional(Decimal),
  },
  { additionalProperties: false },
)

const tags = ['accounts']

export const AccountRoutes = {
  listOrganizations: {
    tags,
    summary: 'List organizations',
    querystring: OrganizationListQuery,
    response: { 200: ListOf('organizations', Organization), ...ErrorResponses },
  },
  list: {
    tags,
    summary: 'List accounts',
    querystring: AccountListQuery,
    response: { 200: ListOf('accounts', Account), ...ErrorResponses },
  },
  get: {
    tags,
    summary: 'Get an account',
    params: IdParams,
    response: { 200: Account, ...ErrorResponses },
  },
  listTransactions: {
    tags,
    summary: "List an account's transactions",
    params: IdParams,
    querystring: TransactionListQuery,
    response: { 200: TransactionList, ...ErrorResponses },
  },
  create: {
    tags,
    summary: 'Create a manual account',
    body: CreateAccountBody,
    response: { 201: Account, ...ErrorResponses },
  },
  update: {
    tags,
    summary: 'Edit a manual account (partial)',
    params: IdParams,
    body: UpdateAccountBody,
    response: { 200: Account, ...ErrorResponses },
  },
  delete: {
    tags,
    summary: 'Delete a manual account and its transactions',
    params: IdParams,
    response: { 204: NoContent, ...ErrorResponses },
  },
}

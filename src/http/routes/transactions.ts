// /api/v1/transactions and its sub-resources (SPEC 4.2, 4.3; CONTRACT 6).
import Type from 'typebox'
import { setTransactionExtensions, listExtensionKeys } from '../../ledger/extensions.js'
import { getHistory } from '../../ledger/history.js'
import { deleteLabel, listLabels, setTransactionLabels } from '../../ledger/labels.js'
import { getProvenance } from '../../ledger/provenance.js'
import {
  addRelationship,
  getRelationships,
  listRelationshipKinds,
  removeRelationship,
} from '../../ledger/relationships.js'
import {
  createTransaction,
  deleteTransaction,
  getTransaction,
  listTransactions,
  updateTransaction,
} from '../../ledger/transactions.js'
import { searchTransactions } from '../../search/index.js'
import { ErrorResponses, IdParams, ListOf, NoContent } from '../schemas/common.js'
import {
  CreateTransactionBody,
  DeleteLabelQuery,
  DeleteLabelResult,
  ExtensionsBody,
  ExtensionsResult,
  ExtensionVocabulary,
  History,
  LabelList,
  LabelsBody,
  LabelsResult,
  Provenance,
  RelationshipBody,
  RelationshipKinds,
  RelationshipQuery,
  Relationships,
  SearchResult,
  Transaction,
  TransactionListQuery,
  TransactionSearchQuery,
  UpdateTransactionBody,
} from '../schemas/ledger.js'
import type { App } from '../types.js'
import type { RouteDeps } from './deps.js'

export function register(app: App, { ctx }: RouteDeps): void {
  app.get(
    '/api/v1/transactions',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['transactions'],
        summary: 'List transactions, newest first',
        querystring: TransactionListQuery,
        response: { 200: ListOf('transactions', Transaction), ...ErrorResponses },
      },
    },
    (req) => listTransactions(ctx, req.query),
  )

  app.get(
    '/api/v1/transactions/search',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['transactions'],
        summary: 'Search transactions with the query language (docs/search.md), newest first',
        querystring: TransactionSearchQuery,
        response: { 200: SearchResult, ...ErrorResponses },
      },
    },
    (req) => searchTransactions(ctx, req.query),
  )

  app.get(
    '/api/v1/transactions/:id',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['transactions'],
        summary: 'Get a transaction',
        params: IdParams,
        response: { 200: Transaction, ...ErrorResponses },
      },
    },
    (req) => getTransaction(ctx, req.params.id),
  )

  app.post(
    '/api/v1/transactions',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['transactions'],
        summary: 'Create a manual transaction',
        body: CreateTransactionBody,
        response: { 201: Transaction, ...ErrorResponses },
      },
    },
    async (req, reply) => reply.code(201).send(await createTransaction(ctx, req.body)),
  )

  app.put(
    '/api/v1/transactions/:id',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['transactions'],
        summary: 'Edit a manual transaction (partial)',
        params: IdParams,
        body: UpdateTransactionBody,
        response: { 200: Transaction, ...ErrorResponses },
      },
    },
    (req) => updateTransaction(ctx, req.params.id, req.body),
  )

  app.delete(
    '/api/v1/transactions/:id',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['transactions'],
        summary: 'Delete a manual transaction',
        params: IdParams,
        response: { 204: NoContent, ...ErrorResponses },
      },
    },
    async (req, reply) => {
      await deleteTransaction(ctx, req.params.id)
      return reply.code(204).send(null)
    },
  )

  app.get(
    '/api/v1/transactions/:id/history',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['transactions'],
        summary: 'Version history of a transaction',
        params: IdParams,
        response: { 200: History, ...ErrorResponses },
      },
    },
    (req) => getHistory(ctx.db.kysely, req.params.id),
  )

  app.get(
    '/api/v1/transactions/:id/provenance',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['transactions'],
        summary: 'Origin and lineage of a transaction',
        params: IdParams,
        response: { 200: Provenance, ...ErrorResponses },
      },
    },
    (req) => getProvenance(ctx, req.params.id),
  )

  app.put(
    '/api/v1/transactions/:id/labels',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['labels'],
        summary: "Replace a transaction's labels",
        params: IdParams,
        body: LabelsBody,
        response: { 200: LabelsResult, ...ErrorResponses },
      },
    },
    (req) => setTransactionLabels(ctx, req.params.id, req.body.labels),
  )

  app.get(
    '/api/v1/labels',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['labels'],
        summary: 'Label vocabulary with per-pair counts',
        response: { 200: LabelList, ...ErrorResponses },
      },
    },
    () => listLabels(ctx),
  )

  app.delete(
    '/api/v1/labels/:key',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['labels'],
        summary: 'Remove a label key (or one key:value pair) from every transaction',
        params: Type.Object({ key: Type.String({ minLength: 1 }) }),
        querystring: DeleteLabelQuery,
        response: { 200: DeleteLabelResult, ...ErrorResponses },
      },
    },
    (req) => deleteLabel(ctx, req.params.key, req.query.value),
  )

  app.put(
    '/api/v1/transactions/:id/extensions',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['extensions'],
        summary: "Replace a transaction's extensions",
        params: IdParams,
        body: ExtensionsBody,
        response: { 200: ExtensionsResult, ...ErrorResponses },
      },
    },
    (req) =>
      setTransactionExtensions(ctx, req.params.id, req.body.extensions as Record<string, unknown>),
  )

  app.get(
    '/api/v1/extensions',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['extensions'],
        summary: 'Extension key vocabulary with transaction counts',
        response: { 200: ExtensionVocabulary, ...ErrorResponses },
      },
    },
    () => listExtensionKeys(ctx),
  )

  app.get(
    '/api/v1/transactions/:id/relationships',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['relationships'],
        summary: 'Outbound and derived inbound edges of a transaction',
        params: IdParams,
        response: { 200: Relationships, ...ErrorResponses },
      },
    },
    (req) => getRelationships(ctx, req.params.id),
  )

  app.post(
    '/api/v1/transactions/:id/relationships',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['relationships'],
        summary: 'Add an outbound edge',
        params: IdParams,
        body: RelationshipBody,
        response: { 201: Relationships, ...ErrorResponses },
      },
    },
    async (req, reply) => reply.code(201).send(await addRelationship(ctx, req.params.id, req.body)),
  )

  app.delete(
    '/api/v1/transactions/:id/relationships',
    {
      config: { tier: 'write' },
      schema: {
        tags: ['relationships'],
        summary: 'Remove an outbound edge',
        params: IdParams,
        querystring: RelationshipQuery,
        response: { 200: Relationships, ...ErrorResponses },
      },
    },
    (req) => removeRelationship(ctx, req.params.id, req.query),
  )

  app.get(
    '/api/v1/relationships',
    {
      config: { tier: 'read' },
      schema: {
        tags: ['relationships'],
        summary: 'Relationship kinds with edge counts',
        response: { 200: RelationshipKinds, ...ErrorResponses },
      },
    },
    () => listRelationshipKinds(ctx),
  )
}

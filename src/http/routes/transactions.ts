// Handlers of /api/v1/transactions and its sub-resources, /labels, /extensions
// and /relationships (SPEC 4.2, 4.3; CONTRACT 6, 7).
import { listExtensionKeys, setTransactionExtensions } from '../../ledger/extensions.js'
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
import { SummaryRoutes } from '../../schemas/summary.js'
import { TransactionRoutes as S } from '../../schemas/transactions.js'
import type { Handler } from '../route.js'

export const list: Handler<typeof S.list> = ({ ctx }, req) => listTransactions(ctx, req.query)

// In a worker thread on SQLite (search/pool/): a broad search leaves this one free.
export const search: Handler<typeof S.search> = ({ searches }, req) => searches.run(req.query)

// Also in the read pool: a summary over a large ledger is one long statement.
export const summary: Handler<typeof SummaryRoutes.summary> = ({ searches }, req) =>
  searches.summarize(req.query)

export const get: Handler<typeof S.get> = ({ ctx }, req) => getTransaction(ctx, req.params.id)

export const create: Handler<typeof S.create> = async ({ ctx }, req, reply) =>
  reply.code(201).send(await createTransaction(ctx, req.body))

export const update: Handler<typeof S.update> = ({ ctx }, req) =>
  updateTransaction(ctx, req.params.id, req.body)

export const remove: Handler<typeof S.delete> = async ({ ctx }, req, reply) => {
  await deleteTransaction(ctx, req.params.id)
  return reply.code(204).send(null)
}

export const history: Handler<typeof S.history> = ({ ctx }, req) =>
  getHistory(ctx.db.kysely, req.params.id)

export const provenance: Handler<typeof S.provenance> = ({ ctx }, req) =>
  getProvenance(ctx, req.params.id)

export const setLabels: Handler<typeof S.setLabels> = ({ ctx }, req) =>
  setTransactionLabels(ctx, req.params.id, req.body.labels)

export const labels: Handler<typeof S.listLabels> = ({ ctx }) => listLabels(ctx)

export const removeLabel: Handler<typeof S.deleteLabel> = ({ ctx }, req) =>
  deleteLabel(ctx, req.params.key, req.query.value)

export const setExtensions: Handler<typeof S.setExtensions> = ({ ctx }, req) =>
  setTransactionExtensions(ctx, req.params.id, req.body.extensions)

export const extensions: Handler<typeof S.listExtensions> = ({ ctx }) => listExtensionKeys(ctx)

export const relationships: Handler<typeof S.getRelationships> = ({ ctx }, req) =>
  getRelationships(ctx, req.params.id)

export const relate: Handler<typeof S.addRelationship> = async ({ ctx }, req, reply) =>
  reply.code(201).send(await addRelationship(ctx, req.params.id, req.body))

export const unrelate: Handler<typeof S.removeRelationship> = ({ ctx }, req) =>
  removeRelationship(ctx, req.params.id, req.query)

export const relationshipKinds: Handler<typeof S.listRelationshipKinds> = ({ ctx }) =>
  listRelationshipKinds(ctx)

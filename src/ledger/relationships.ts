// Relationships (SPEC 2.4, CONTRACT 6): outbound edges {kind, target} stored on
// the source transaction; inbound edges are derived by reading the target side.
import type { ServiceContext } from '../context.js'
import type { DbExecutor } from '../db/schema.js'
import { Invalid, NotFound } from '../errors.js'
import type { UnitOfWork } from './unit-of-work.js'
import { findTransaction } from './snapshots.js'

const KIND_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/

export interface RelationshipJson {
  kind: string
  direction: 'outbound' | 'inbound'
  transaction_id: string
}

export interface TransactionRelationships {
  id: string
  relationships: RelationshipJson[]
}

async function readRelationships(db: DbExecutor, id: string): Promise<TransactionRelationships> {
  const outbound = await db
    .selectFrom('relationships')
    .select(['kind', 'target_id'])
    .where('transaction_id', '=', id)
    .orderBy('kind')
    .orderBy('target_id')
    .execute()
  // Index: relationships_target (target_id, kind).
  const inbound = await db
    .selectFrom('relationships')
    .select(['kind', 'transaction_id'])
    .where('target_id', '=', id)
    .orderBy('kind')
    .orderBy('transaction_id')
    .execute()
  return {
    id,
    relationships: [
      ...outbound.map((e) => ({
        kind: e.kind,
        direction: 'outbound' as const,
        transaction_id: e.target_id,
      })),
      ...inbound.map((e) => ({
        kind: e.kind,
        direction: 'inbound' as const,
        transaction_id: e.transaction_id,
      })),
    ],
  }
}

async function requireTransactionExists(db: DbExecutor, id: string): Promise<void> {
  const row = await db
    .selectFrom('transactions')
    .select('id')
    .where('id', '=', id)
    .executeTakeFirst()
  if (!row) throw new NotFound(`transaction ${id} not found`)
}

export async function getRelationships(
  ctx: ServiceContext,
  id: string,
): Promise<TransactionRelationships> {
  await requireTransactionExists(ctx.db.kysely, id)
  return readRelationships(ctx.db.kysely, id)
}

function requireKind(kind: string): string {
  if (!KIND_PATTERN.test(kind)) {
    throw Invalid.field('kind', 'must match [a-z][a-z0-9_.-]{0,63}, such as "refund_of"')
  }
  return kind
}

async function emitEdgeEvent(
  uow: UnitOfWork,
  type: 'relationship.created' | 'relationship.removed',
  id: string,
  kind: string,
  target: string,
): Promise<void> {
  const snapshot = await findTransaction(uow.trx, id)
  uow.emit({
    type,
    entity_type: 'transaction',
    entity_id: id,
    data: { ...snapshot, change: { kind, target } },
  })
}

export async function addRelationship(
  ctx: ServiceContext,
  id: string,
  input: { kind: string; target: string },
): Promise<TransactionRelationships> {
  const kind = requireKind(input.kind)
  if (input.target === id) throw Invalid.field('target', 'a transaction cannot relate to itself')
  return ctx.ledger.mutate(async (uow) => {
    await requireTransactionExists(uow.trx, id)
    const target = await uow.trx
      .selectFrom('transactions')
      .select('id')
      .where('id', '=', input.target)
      .executeTakeFirst()
    if (!target) throw Invalid.field('target', `transaction ${input.target} does not exist`)
    const inserted = await uow.trx
      .insertInto('relationships')
      .values({ transaction_id: id, kind, target_id: input.target, created_at: uow.now })
      .onConflict((oc) => oc.columns(['transaction_id', 'kind', 'target_id']).doNothing())
      .executeTakeFirst()
    // Adding an edge that exists is a no-op: no second event.
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) {
      await emitEdgeEvent(uow, 'relationship.created', id, kind, input.target)
    }
    return readRelationships(uow.trx, id)
  })
}

export async function removeRelationship(
  ctx: ServiceContext,
  id: string,
  input: { kind: string; target: string },
): Promise<TransactionRelationships> {
  return ctx.ledger.mutate(async (uow) => {
    await requireTransactionExists(uow.trx, id)
    const deleted = await uow.trx
      .deleteFrom('relationships')
      .where('transaction_id', '=', id)
      .where('kind', '=', input.kind)
      .where('target_id', '=', input.target)
      .executeTakeFirst()
    if (Number(deleted.numDeletedRows) === 0) {
      throw new NotFound(`transaction ${id} has no "${input.kind}" relationship to ${input.target}`)
    }
    await emitEdgeEvent(uow, 'relationship.removed', id, input.kind, input.target)
    return readRelationships(uow.trx, id)
  })
}

export async function listRelationshipKinds(
  ctx: ServiceContext,
): Promise<{ relationships: Array<{ kind: string; count: number }> }> {
  // Index: relationships_kind.
  const rows = await ctx.db.kysely
    .selectFrom('relationships')
    .select(['kind', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy('kind')
    .orderBy('kind')
    .execute()
  return { relationships: rows.map((r) => ({ kind: r.kind, count: Number(r.count) })) }
}

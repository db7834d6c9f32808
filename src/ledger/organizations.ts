// Organizations (institutions) that accounts sit under. Manual accounts share
// the organization {id: "manual", name: "Manual"} (CONTRACT 6).
import type { DbExecutor } from '../db/schema.js'
import type { ServiceContext } from '../context.js'
import { resolvePage, type PageInput } from '../page.js'
import { toOrganizationJson, type OrganizationJson } from './json.js'
import type { UnitOfWork } from './unit-of-work.js'

export const MANUAL_ORG = { id: 'manual', name: 'Manual', domain: null, source: 'manual' } as const

export async function listOrganizations(
  ctx: ServiceContext,
  input: PageInput,
): Promise<{ organizations: OrganizationJson[]; total: number; limit: number; offset: number }> {
  const { limit, offset } = resolvePage(input)
  const db = ctx.db.kysely
  // Index: organizations_name (name, id).
  const rows = await db
    .selectFrom('organizations')
    .selectAll()
    .orderBy('name')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute()
  const total = await countRows(db, 'organizations')
  return { organizations: rows.map(toOrganizationJson), total, limit, offset }
}

async function countRows(db: DbExecutor, table: 'organizations'): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Inserts or refreshes organizations; organizations emit no events (SPEC 6.2 has none). */
export async function upsertOrganizations(
  uow: UnitOfWork,
  orgs: ReadonlyArray<{ id: string; name: string; domain: string | null; source: string }>,
): Promise<void> {
  for (const org of orgs) {
    await uow.trx
      .insertInto('organizations')
      .values({ ...org, created_at: uow.now, updated_at: uow.now })
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({ name: org.name, domain: org.domain, updated_at: uow.now }),
      )
      .execute()
  }
}

export async function ensureManualOrganization(uow: UnitOfWork): Promise<void> {
  await uow.trx
    .insertInto('organizations')
    .values({ ...MANUAL_ORG, created_at: uow.now, updated_at: uow.now })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute()
}

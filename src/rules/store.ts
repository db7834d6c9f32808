// Rules (CONTRACT 8): storage, validation and CRUD. A rule is a search query
// (CONTRACT 7) plus the labels and extensions it sets on the transactions the
// query matches. Creating or replacing a rule changes no transaction by itself
// (rules act when run, run.ts, and on new transactions, new-transactions.ts).
// Writes go through the mutation path so that `rule.*` events commit with them.
import { randomUUID } from 'node:crypto'
import type { ServiceContext } from '../context.js'
import type { DbExecutor } from '../db/schema.js'
import { Conflict, Invalid, NotFound } from '../errors.js'
import { validateExtensions } from '../ledger/extensions.js'
import { requireName, TEXT_FIELD_MAX } from '../ledger/fields.js'
import type { JsonValue } from '../ledger/json.js'
import { validateLabels } from '../ledger/labels.js'
import type { UnitOfWork } from '../ledger/unit-of-work.js'
import { resolvePage, type PageInput } from '../page.js'
import { parseQuery, parseStoredQuery, QueryError, type Query } from '../search/index.js'
import { toRuleJson, type RuleJson } from './rule-json.js'
import type { RuleRow } from './tables.js'

/** A query is stored and run against every new transaction: keep it a readable size. */
export const RULE_QUERY_MAX = TEXT_FIELD_MAX

export interface RuleInput {
  name: string
  query: string
  labels?: Record<string, string> | undefined
  /** A JSON object (the schema checks that much). */
  extensions?: object | undefined
  enabled?: boolean | undefined
}

/** What a rule does to a transaction, validated and ready to apply. */
export interface RuleEffect {
  labels: Record<string, string>
  extensions: Record<string, JsonValue>
}

/** A stored rule with its query parsed once. */
export interface LoadedRule extends RuleJson {
  parsed: Query
}

/** The query, parsed; a parse failure is a 400 naming the field and carrying the parser's message. */
export function requireQuery(field: string, text: string): Query {
  if (text.length > RULE_QUERY_MAX) {
    throw Invalid.field(field, `must be at most ${RULE_QUERY_MAX} characters`)
  }
  try {
    return parseQuery(text)
  } catch (error) {
    // The parser names the problem and its offset; the field is ours.
    if (error instanceof QueryError) {
      throw Invalid.field(field, error.errors?.[0]?.message ?? error.message)
    }
    throw error
  }
}

/** Labels and extensions under the limits of CONTRACT 6. */
export function requireEffect(input: {
  labels?: Record<string, string> | undefined
  extensions?: object | undefined
}): RuleEffect {
  return {
    labels: validateLabels(input.labels ?? {}),
    extensions: validateExtensions((input.extensions ?? {}) as Record<string, unknown>),
  }
}

function validateRule(input: RuleInput): { name: string; effect: RuleEffect } {
  const name = requireName('name', input.name) // 1–200 characters, one line
  requireQuery('query', input.query)
  const effect = requireEffect(input)
  if (Object.keys(effect.labels).length === 0 && Object.keys(effect.extensions).length === 0) {
    throw Invalid.field('labels', 'a rule sets at least one label or extension')
  }
  return { name, effect }
}

async function findRuleRow(db: DbExecutor, id: string): Promise<RuleRow | undefined> {
  return db.selectFrom('rules').selectAll().where('id', '=', id).executeTakeFirst()
}

async function requireRuleRow(db: DbExecutor, id: string): Promise<RuleRow> {
  const row = await findRuleRow(db, id)
  if (!row) throw new NotFound(`rule ${id} not found`)
  return row
}

function emitRule(
  uow: UnitOfWork,
  type: 'rule.created' | 'rule.updated' | 'rule.deleted',
  rule: RuleJson,
): void {
  uow.emit({ type, entity_type: 'rule', entity_id: rule.id, data: rule })
}

export async function listRules(
  ctx: ServiceContext,
  input: PageInput,
): Promise<{ rules: RuleJson[]; total: number; limit: number; offset: number }> {
  const { limit, offset } = resolvePage(input)
  const db = ctx.db.kysely
  // Index: rules_position (position, id): oldest first.
  const rows = await db
    .selectFrom('rules')
    .selectAll()
    .orderBy('position')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute()
  const count = await db
    .selectFrom('rules')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return { rules: rows.map(toRuleJson), total: Number(count.n), limit, offset }
}

export async function getRule(ctx: ServiceContext, id: string): Promise<RuleJson> {
  return toRuleJson(await requireRuleRow(ctx.db.kysely, id))
}

export async function createRule(ctx: ServiceContext, input: RuleInput): Promise<RuleJson> {
  const { name, effect } = validateRule(input)
  return ctx.ledger.mutate(async (uow) => {
    const last = await uow.trx
      .selectFrom('rules')
      .select((eb) => eb.fn.max('position').as('position'))
      .executeTakeFirst()
    const row: RuleRow = {
      id: `rule_${randomUUID()}`,
      position: Number(last?.position ?? 0) + 1,
      name,
      query: input.query,
      labels: JSON.stringify(effect.labels),
      extensions: JSON.stringify(effect.extensions),
      enabled: input.enabled === false ? 0 : 1,
      created_at: uow.now,
      updated_at: uow.now,
    }
    await uow.trx.insertInto('rules').values(row).execute()
    const rule = toRuleJson(row)
    emitRule(uow, 'rule.created', rule)
    return rule
  })
}

/** PUT /rules/{id}: a full replace; the rule keeps its id, place in the order and created_at. */
export async function replaceRule(
  ctx: ServiceContext,
  id: string,
  input: RuleInput,
): Promise<RuleJson> {
  const { name, effect } = validateRule(input)
  return ctx.ledger.mutate(async (uow) => {
    const before = await requireRuleRow(uow.trx, id)
    const row: RuleRow = {
      ...before,
      name,
      query: input.query,
      labels: JSON.stringify(effect.labels),
      extensions: JSON.stringify(effect.extensions),
      enabled: input.enabled === false ? 0 : 1,
      updated_at: uow.now,
    }
    await uow.trx
      .updateTable('rules')
      .set({
        name: row.name,
        query: row.query,
        labels: row.labels,
        extensions: row.extensions,
        enabled: row.enabled,
        updated_at: row.updated_at,
      })
      .where('id', '=', id)
      .execute()
    const rule = toRuleJson(row)
    emitRule(uow, 'rule.updated', rule)
    return rule
  })
}

export async function deleteRule(ctx: ServiceContext, id: string): Promise<void> {
  await ctx.ledger.mutate(async (uow) => {
    const row = await requireRuleRow(uow.trx, id)
    await uow.trx.deleteFrom('rules').where('id', '=', id).execute()
    emitRule(uow, 'rule.deleted', toRuleJson(row))
  })
}

/** A stored rule that cannot run, and why (a query an older version accepted, say). */
export interface BrokenRule {
  rule: RuleJson
  detail: string
}

function loaded(row: RuleRow): LoadedRule | BrokenRule {
  const rule = toRuleJson(row)
  try {
    // A rule stored before the bound on terms keeps running (validation refuses new ones).
    return { ...rule, parsed: parseStoredQuery(rule.query) }
  } catch (error) {
    if (!(error instanceof QueryError)) throw error
    return {
      rule,
      detail: `its query no longer parses: ${error.errors?.[0]?.message ?? error.message}`,
    }
  }
}

function isBroken(rule: LoadedRule | BrokenRule): rule is BrokenRule {
  return 'detail' in rule
}

/** One rule with its parsed query (run and unapply): 404 when unknown, 409 when it cannot run. */
export async function loadRule(db: DbExecutor, id: string): Promise<LoadedRule> {
  const rule = loaded(await requireRuleRow(db, id))
  if (isBroken(rule)) throw new Conflict(`rule ${id} cannot run: ${rule.detail}; replace its query`)
  return rule
}

export interface EnabledRules {
  /** Oldest first, each with its parsed query. */
  runnable: LoadedRule[]
  /** Enabled rules that cannot run: skipped, and reported, never in the way of the others. */
  broken: BrokenRule[]
}

/** Every enabled rule, oldest first. */
export async function loadEnabledRules(db: DbExecutor): Promise<EnabledRules> {
  // Index: rules_position (position, id).
  const rows = await db
    .selectFrom('rules')
    .selectAll()
    .where('enabled', '=', 1)
    .orderBy('position')
    .orderBy('id')
    .execute()
  const runnable: LoadedRule[] = []
  const broken: BrokenRule[] = []
  for (const rule of rows.map(loaded)) {
    if (isBroken(rule)) broken.push(rule)
    else runnable.push(rule)
  }
  return { runnable, broken }
}

// Running rules over the ledger (CONTRACT 8): POST /rules/{id}/run, /rules/run,
// /rules/{id}/unapply and /rules/preview. A run is one unit of work: it first
// reads every match (the search module streams them in pages and decides with the
// one matcher, CONTRACT 7), then writes the transactions that change through the
// label and extension writers of ledger/ (rows, `labeled`/`extended` versions,
// per-key events), then records one `rule.executed` event. Reading everything
// before writing keeps the paging of the matches stable while rows change.
import { sql } from 'kysely'
import type { ServiceContext } from '../context.js'
import { chunksOf } from '../db/bulk.js'
import { isDatabaseUnavailable } from '../db/faults.js'
import type { DbExecutor } from '../db/schema.js'
import { writeExtensionsInUnit } from '../ledger/extensions.js'
import type { TransactionJson } from '../ledger/json.js'
import { writeLabelsInUnit } from '../ledger/labels.js'
import type { UnitOfWork } from '../ledger/unit-of-work.js'
import { toTransactionsJson } from '../ledger/snapshots.js'
import { ServiceError } from '../errors.js'
import { matchingTransactions } from '../search/index.js'
import {
  effectHolds,
  effectPresent,
  withEffects,
  withoutEffect,
  type KeyedValues,
} from './effects.js'
import {
  loadEnabledRules,
  loadRuleInUnit,
  requireEffect,
  requireQuery,
  type LoadedRule,
  type RuleEffect,
} from './store.js'
import { inList } from '../db/in-list.js'
import type { Static } from 'typebox'
import type {
  PreviewResult as PreviewResultSchema,
  RunResult as RunResultSchema,
  UnapplyResult as UnapplyResultSchema,
} from '../schemas/rules.js'

export type RunResult = Static<typeof RunResultSchema>
export type UnapplyResult = Static<typeof UnapplyResultSchema>
export type PreviewResult = Static<typeof PreviewResultSchema>

export interface PreviewInput {
  query: string
  labels?: Record<string, string> | undefined
  extensions?: object | undefined
}

/** How many transactions a preview shows. */
export const PREVIEW_TRANSACTIONS = 20

// Transactions loaded and written per step of the write phase.
const WRITE_CHUNK = 500

/** POST /rules/{id}/run: one rule, even a disabled one. */
export async function runRule(ctx: ServiceContext, id: string): Promise<RunResult> {
  return ctx.ledger.mutate(async (uow) => {
    const rule = await loadRuleInUnit(uow, id)
    const result = await applyRulesInUnit(uow, [rule])
    uow.emit({
      type: 'rule.executed',
      entity_type: 'rule',
      entity_id: rule.id,
      data: { rule_id: rule.id, ...result },
    })
    return result
  })
}

/**
 * POST /rules/run: every enabled rule, oldest first. A rule that cannot run (a
 * stored query that no longer parses, a match that fails) is skipped and listed
 * in `failed`; every other rule runs as if it were not there.
 */
export async function runAllRules(ctx: ServiceContext): Promise<RunResult> {
  return ctx.ledger.mutate(async (uow) => {
    const { runnable, broken } = await loadEnabledRules(uow.trx)
    const failed: RuleFailure[] = broken.map(({ rule, detail }) => ({
      rule_id: rule.id,
      name: rule.name,
      detail,
    }))
    const counts = await applyRulesInUnit(uow, runnable, (rule, error) => {
      ctx.log.error({ err: error, rule_id: rule.id }, `rules: "${rule.name}" could not run`)
      failed.push({ rule_id: rule.id, name: rule.name, detail: failureDetail(error) })
    })
    for (const failure of failed) {
      ctx.log.warn(
        { rule_id: failure.rule_id },
        `rules: "${failure.name}" skipped: ${failure.detail}`,
      )
    }
    const result = failed.length > 0 ? { ...counts, failed } : counts
    uow.emit({
      type: 'rule.executed',
      entity_type: 'rule',
      entity_id: '*',
      data: {
        rule_id: null,
        ...counts,
        ...(failed.length > 0 && { failed: failed.map((f) => f.rule_id) }),
      },
    })
    return result
  })
}

type RuleFailure = NonNullable<RunResult['failed']>[number]

/** What a user is told of a rule's failure: a service error's own words, else a pointer to the log. */
function failureDetail(error: unknown): string {
  if (error instanceof ServiceError) return error.message
  return 'its query could not be run (see the service log)'
}

/**
 * Runs one rule's matching so that its failure leaves the unit usable: on
 * PostgreSQL a failed statement aborts the whole transaction unless it ran
 * inside a savepoint, which is rolled back. A lost database is not the rule's
 * fault and fails the run.
 */
async function isolated<T>(
  uow: UnitOfWork,
  work: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  await sql`savepoint rule_match`.execute(uow.trx)
  try {
    const value = await work()
    await sql`release savepoint rule_match`.execute(uow.trx)
    return { ok: true, value }
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error
    await sql`rollback to savepoint rule_match`.execute(uow.trx)
    await sql`release savepoint rule_match`.execute(uow.trx)
    return { ok: false, error }
  }
}

/**
 * Applies the rules (in the given order) to every transaction that one of them
 * matches. Only the net result is written, once per transaction: a transaction
 * whose labels and extensions both change gets one `labeled` and one `extended`
 * version; one whose keys already hold the values is not written at all.
 */
async function applyRulesInUnit(
  uow: UnitOfWork,
  rules: readonly LoadedRule[],
  onFailure?: (rule: LoadedRule, error: unknown) => void,
): Promise<{ matched: number; updated: number }> {
  // Which rules match each transaction (indexes into `rules`, in order).
  const matchedBy = new Map<string, number[]>()
  // Transactions where some matching rule does not hold yet. Only these can
  // change: when every matching rule holds, their net result is the current state.
  const candidates = new Set<string>()
  for (const [index, rule] of rules.entries()) {
    // All of a rule's matches, or (when it fails part-way) none of them.
    const matching = async () => {
      const found: Array<{ id: string; holds: boolean }> = []
      for await (const page of matchingTransactions(uow.trx, rule.parsed)) {
        for (const tx of page) found.push({ id: tx.id, holds: effectHolds(tx, rule) })
      }
      return found
    }
    let found: Array<{ id: string; holds: boolean }>
    if (onFailure) {
      const attempt = await isolated(uow, matching)
      if (!attempt.ok) {
        onFailure(rule, attempt.error)
        continue
      }
      found = attempt.value
    } else {
      found = await matching()
    }
    for (const { id, holds } of found) {
      const by = matchedBy.get(id)
      if (by) by.push(index)
      else matchedBy.set(id, [index])
      if (!holds) candidates.add(id)
    }
  }
  let updated = 0
  await forEachLoaded(uow.trx, [...candidates], async (before) => {
    const effects = matchedBy.get(before.id)!.map((index) => rules[index]!)
    if (await writeInUnit(uow, before, withEffects(before, effects))) updated++
  })
  return { matched: matchedBy.size, updated }
}

/** POST /rules/{id}/unapply: removes the rule's keys where they still hold its values. */
export async function unapplyRule(ctx: ServiceContext, id: string): Promise<UnapplyResult> {
  return ctx.ledger.mutate(async (uow) => {
    const rule = await loadRuleInUnit(uow, id)
    let matched = 0
    const candidates: string[] = []
    for await (const page of matchingTransactions(uow.trx, rule.parsed)) {
      matched += page.length
      for (const tx of page) if (effectPresent(tx, rule)) candidates.push(tx.id)
    }
    let removed = 0
    await forEachLoaded(uow.trx, candidates, async (before) => {
      if (await writeInUnit(uow, before, withoutEffect(before, rule))) removed++
    })
    uow.emit({
      type: 'rule.executed',
      entity_type: 'rule',
      entity_id: rule.id,
      data: { rule_id: rule.id, action: 'unapply', matched, removed },
    })
    return { matched, removed }
  })
}

/** POST /rules/preview: what a rule would do, without writing anything. */
export async function previewRule(
  ctx: ServiceContext,
  input: PreviewInput,
): Promise<PreviewResult> {
  const query = requireQuery('query', input.query)
  const effect: RuleEffect = requireEffect(input)
  let matched = 0
  let wouldUpdate = 0
  const transactions: TransactionJson[] = []
  for await (const page of matchingTransactions(ctx.db.kysely, query)) {
    matched += page.length
    for (const tx of page) {
      if (effectHolds(tx, effect)) continue
      wouldUpdate++
      if (transactions.length < PREVIEW_TRANSACTIONS) transactions.push(tx)
    }
  }
  return { matched, would_update: wouldUpdate, transactions }
}

/** Loads the transactions in chunks (in the given order) and calls `each` on every one. */
async function forEachLoaded(
  db: DbExecutor,
  ids: readonly string[],
  each: (tx: TransactionJson) => Promise<void>,
): Promise<void> {
  for (const chunk of chunksOf(ids, WRITE_CHUNK)) {
    const rows = await db
      .selectFrom('transactions')
      .selectAll()
      .where(inList(db, 'id', chunk))
      .execute()
    const byId = new Map((await toTransactionsJson(db, rows)).map((tx) => [tx.id, tx]))
    for (const id of chunk) {
      const tx = byId.get(id)
      if (tx) await each(tx)
    }
  }
}

/** Moves a transaction to `next` through the ledger's writers; true when anything changed. */
async function writeInUnit(
  uow: UnitOfWork,
  before: TransactionJson,
  next: KeyedValues,
): Promise<boolean> {
  const labeled = await writeLabelsInUnit(uow, before, next.labels)
  const extended = await writeExtensionsInUnit(uow, labeled, next.extensions)
  return extended !== before
}

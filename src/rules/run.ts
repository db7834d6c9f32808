// Running rules over the ledger (CONTRACT 8): POST /rules/{id}/run, /rules/run,
// /rules/{id}/unapply and /rules/preview. A run has two phases, so that writers
// never wait seconds behind it (DESIGN.md "The event loop stays free"):
//
// 1. Read, outside the write lock: note the head of the event log, then match
//    every rule (the search module streams the matches in pages and decides with
//    the one matcher, CONTRACT 7), yielding to the event loop between pages, and
//    note which transactions each rule matches and which of them it would change.
// 2. Write, one unit of work: ask the event log what changed since the head noted
//    in phase 1. Each transaction touched meanwhile is read again and matched
//    again, in memory, against every rule; the others are as phase 1 saw them.
//    Then the transactions that change are written through the label and
//    extension writers of ledger/ (rows, `labeled`/`extended` versions, per-key
//    events), and one `rule.executed` event is recorded. So the run's result is
//    as if it ran whole at its commit, and it is all or nothing.
//
// A change the log cannot pin to transactions (an account renamed, a rule
// changed, a label key deleted everywhere, a relationship added or removed), or a
// ledger that records no events, makes phase 2 do the whole run inside the unit,
// as one phase: slower for writers, never wrong.
import { sql } from 'kysely'
import { yieldToEventLoop } from '../clock.js'
import type { ServiceContext } from '../context.js'
import { chunksOf } from '../db/bulk.js'
import {
  lockTransactionRows,
  lockTransactionRowsNowait,
  retryWhileRowsBusy,
  RowsBusy,
} from '../db/coordination.js'
import { isDatabaseUnavailable } from '../db/faults.js'
import type { DbExecutor } from '../db/schema.js'
import { EXTENSIONS } from '../ledger/extensions.js'
import type { TransactionJson } from '../ledger/json.js'
import { writeKeyedValuesManyInUnit } from '../ledger/keyed-values.js'
import { LABELS } from '../ledger/labels.js'
import type { UnitOfWork } from '../ledger/unit-of-work.js'
import { findTransactions } from '../ledger/snapshots.js'
import { ServiceError, ShuttingDown } from '../errors.js'
import { matches as matches_, matchingTransactions } from '../search/index.js'
import { loadSubjects, subjectNeeds } from '../search/subjects.js'
import { entitiesTouchedAfter, lockEventAppends, logHead } from '../events/store.js'
import {
  effectHolds,
  effectPresent,
  withEffects,
  withoutEffect,
  type KeyedValues,
} from './effects.js'
import {
  loadEnabledRules,
  loadRule,
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

// Candidates whose snapshot phase 1 keeps for phase 2, so that the write unit
// does not read them again (a fifth of its time): up to this many (~1 KiB each);
// past it, the rest are read in the unit.
const KEPT_SNAPSHOTS = 50_000

/** Seams of a run for tests and the bench; the doors pass none. */
export interface RunOptions {
  /**
   * Awaited once phase 1 has read every match and before the write unit begins:
   * a test writes there to land a change "during" the run.
   */
  afterReadPhase?: (() => Promise<void>) | undefined
  /**
   * The whole run inside the write unit, as with events off (and as every run
   * was before issue 16): the bench's same-run baseline.
   */
  inOnePhase?: boolean | undefined
  /** How many candidates' snapshots phase 1 keeps (KEPT_SNAPSHOTS): tests try 0. */
  keptSnapshots?: number | undefined
}

/** POST /rules/{id}/run: one rule, even a disabled one. */
export async function runRule(
  ctx: ServiceContext,
  id: string,
  options: RunOptions = {},
): Promise<RunResult> {
  return runInTwoPhases(
    ctx,
    applying((db) => one(db, id)),
    options,
    (uow, outcome) => {
      const result = { matched: outcome.matched, updated: outcome.changed }
      uow.emit({
        type: 'rule.executed',
        entity_type: 'rule',
        entity_id: id,
        data: { rule_id: id, ...result },
      })
      return result
    },
  )
}

/**
 * POST /rules/run: every enabled rule, oldest first. A rule that cannot run (a
 * stored query that no longer parses, a match that fails) is skipped and listed
 * in `failed`; every other rule runs as if it were not there.
 */
export async function runAllRules(
  ctx: ServiceContext,
  options: RunOptions = {},
): Promise<RunResult> {
  const job = applying(async (db) => {
    const { runnable, broken } = await loadEnabledRules(db)
    const failed: RuleFailure[] = broken.map(({ rule, detail }) => ({
      rule_id: rule.id,
      name: rule.name,
      detail,
    }))
    return { rules: runnable, failed }
  })
  job.isolate = (rule, error) => {
    ctx.log.error({ err: error, rule_id: rule.id }, `rules: "${rule.name}" could not run`)
  }
  return runInTwoPhases(ctx, job, options, (uow, { matched, changed, failed }) => {
    for (const failure of failed) {
      ctx.log.warn(
        { rule_id: failure.rule_id },
        `rules: "${failure.name}" skipped: ${failure.detail}`,
      )
    }
    const counts = { matched, updated: changed }
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
    return failed.length > 0 ? { ...counts, failed } : counts
  })
}

/** POST /rules/{id}/unapply: removes the rule's keys where they still hold its values. */
export async function unapplyRule(
  ctx: ServiceContext,
  id: string,
  options: RunOptions = {},
): Promise<UnapplyResult> {
  const job: Job = {
    load: (db) => one(db, id),
    pending: (tx, rule) => effectPresent(tx, rule),
    next: (tx, matching) => withoutEffect(tx, matching[0]!),
  }
  return runInTwoPhases(ctx, job, options, (uow, { matched, changed: removed }) => {
    uow.emit({
      type: 'rule.executed',
      entity_type: 'rule',
      entity_id: id,
      data: { rule_id: id, action: 'unapply', matched, removed },
    })
    return { matched, removed }
  })
}

type RuleFailure = NonNullable<RunResult['failed']>[number]

/**
 * A transaction a rule matches, whether the rule would change it, and (for
 * some that it would) the transaction as read.
 */
interface Match {
  id: string
  pending: boolean
  tx?: TransactionJson | undefined
}

/** What a run does, whichever of run, run-all or unapply it is. */
interface Job {
  /** The rules of the run, in order, and those that cannot run (read in each phase). */
  load(db: DbExecutor): Promise<{ rules: LoadedRule[]; failed: RuleFailure[] }>
  /** True when `rule`, matching `tx`, would change it. */
  pending(tx: TransactionJson, rule: LoadedRule): boolean
  /** The keys of `tx` once the rules that match it (in order) have acted. */
  next(tx: TransactionJson, matching: readonly LoadedRule[]): KeyedValues
  /**
   * Present for a run of all: a rule whose match fails is skipped (and this is
   * told why) instead of failing the run.
   */
  isolate?: (rule: LoadedRule, error: unknown) => void
}

/** Applying rules (run and run-all): each matching rule's keys, later rules winning. */
function applying(load: Job['load']): Job {
  return {
    load,
    pending: (tx, rule) => !effectHolds(tx, rule),
    next: (tx, matching) => withEffects(tx, matching),
  }
}

async function one(
  db: DbExecutor,
  id: string,
): Promise<{ rules: LoadedRule[]; failed: RuleFailure[] }> {
  return { rules: [await loadRule(db, id)], failed: [] }
}

/** What a run has found: the matches of its rules over the ledger. */
interface Matches {
  rules: LoadedRule[]
  /** Rules that cannot run (skipped), with why. */
  failed: RuleFailure[]
  /** Indexes (into `rules`) of the rules whose match failed: they take no part. */
  skipped: Set<number>
  /** Which rules match each transaction (indexes into `rules`, in order). */
  matchedBy: Map<string, number[]>
  /**
   * Transactions where some matching rule would change something. Only these
   * can change: elsewhere the net result of the matching rules is the current
   * state. Each with its snapshot as matched, while KEPT_SNAPSHOTS allows (null:
   * read it again when writing); phase 2's look back replaces those touched since.
   */
  candidates: Map<string, TransactionJson | null>
}

interface Outcome {
  matched: number
  changed: number
  failed: RuleFailure[]
}

/**
 * The two phases (see the top of this file): `finish` runs last in the write
 * unit, with the counts, and records the run's `rule.executed`.
 */
async function runInTwoPhases<T>(
  ctx: ServiceContext,
  job: Job,
  options: RunOptions,
  finish: (uow: UnitOfWork, outcome: Outcome) => T,
): Promise<T> {
  let read: { since: number; matches: Matches } | undefined
  if (ctx.config.events.enabled && !options.inOnePhase) {
    // The head first: a change that phase 1 may have missed comes after it.
    const since = await logHead(ctx.db.kysely)
    // Stops at its next page when the service closes (ShuttingDown, 503).
    const stream = { pause: yieldToEventLoop, signal: ctx.signals.closing }
    const keep = options.keptSnapshots ?? KEPT_SNAPSHOTS
    const matches = await readMatches(ctx.db.kysely, job, { ...stream, keep }, (rule, work) =>
      job.isolate ? caught(work) : work().then((value) => ({ ok: true as const, value })),
    )
    read = { since, matches }
  }
  await options.afterReadPhase?.()
  return retryWhileRowsBusy(() =>
    ctx.ledger.mutate(async (uow) => {
      const { matches, changed } = await writeAtCommit(uow, job, read)
      return finish(uow, { matched: matches.matchedBy.size, changed, failed: matches.failed })
    }),
  )
}

/**
 * Phase 2 in the write unit, exact against the writers of other units. On
 * PostgreSQL they write meanwhile; on SQLite the unit's write lock keeps them
 * out, and the row locks below do nothing.
 * - The rows phase 1 would change are held first, so that their writers wait
 *   for this unit (and the unit waits for those already writing them).
 * - The look back reads again what other units changed since phase 1, each row
 *   held before it is read, without waiting (RowsBusy: the unit is tried again),
 *   since a unit that holds rows must not wait for more.
 * - Once the matches are written, the log's append lock is taken, after which
 *   nothing else commits before this unit, and the look back runs once more for
 *   what committed meanwhile. So the run is as if whole at its commit, and never
 *   writes a row deleted or changed under it.
 */
async function writeAtCommit(
  uow: UnitOfWork,
  job: Job,
  read: { since: number; matches: Matches } | undefined,
): Promise<{ matches: Matches; changed: number }> {
  if (read) {
    await lockTransactionRows(uow.trx, [...read.matches.candidates.keys()])
    const written = new Set<string>()
    let changed = 0
    let since = read.since
    for (const last of [false, true]) {
      if (last) await lockEventAppends(uow.trx)
      const head = await logHead(uow.trx)
      const matches = await recheck(uow, job, since, read.matches)
      if (!matches) {
        // A change the log cannot pin to rows came in while this unit wrote: again, from the start.
        if (written.size > 0) throw new RowsBusy()
        break
      }
      changed += await writeMatches(uow, job, matches, written)
      if (last) return { matches, changed }
      since = head
    }
  }
  // Everything again, inside the unit, after the append lock (nothing commits
  // meanwhile): a failing rule's match is rolled back to a savepoint, so that
  // on PostgreSQL the unit stays usable.
  await lockEventAppends(uow.trx)
  const matches = await readMatches(uow.trx, job, {}, (_rule, work) =>
    job.isolate ? isolated(uow, work) : work().then((value) => ({ ok: true as const, value })),
  )
  await lockTransactionRowsNowait(uow.trx, [...matches.candidates.keys()])
  return { matches, changed: await writeMatches(uow, job, matches, new Set()) }
}

type Attempt<T> = { ok: true; value: T } | { ok: false; error: unknown }

/** What a user is told of a rule's failure: a service error's own words, else a pointer to the log. */
function failureDetail(error: unknown): string {
  if (error instanceof ServiceError) return error.message
  return 'its query could not be run (see the service log)'
}

/** A rule's matching outside any unit: its failure is the rule's, unless the database is lost. */
async function caught<T>(work: () => Promise<T>): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await work() }
  } catch (error) {
    if (isDatabaseUnavailable(error) || error instanceof ShuttingDown) throw error
    return { ok: false, error }
  }
}

/**
 * Runs one rule's matching so that its failure leaves the unit usable: on
 * PostgreSQL a failed statement aborts the whole transaction unless it ran
 * inside a savepoint, which is rolled back. A lost database is not the rule's
 * fault and fails the run.
 */
async function isolated<T>(uow: UnitOfWork, work: () => Promise<T>): Promise<Attempt<T>> {
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
 * Loads the job's rules and matches each over the ledger; `stream.pause` is
 * awaited between pages, `stream.signal` checked there; up to `stream.keep`
 * candidates keep their snapshot.
 */
async function readMatches(
  db: DbExecutor,
  job: Job,
  stream: { pause?: () => Promise<void>; signal?: AbortSignal; keep?: number },
  attempt: (rule: LoadedRule, work: () => Promise<Match[]>) => Promise<Attempt<Match[]>>,
): Promise<Matches> {
  const { rules, failed } = await job.load(db)
  const matches: Matches = {
    rules,
    failed,
    skipped: new Set(),
    matchedBy: new Map(),
    candidates: new Map(),
  }
  let kept = 0
  for (const [index, rule] of rules.entries()) {
    // All of a rule's matches, or (when it fails part-way) none of them.
    const found = await attempt(rule, async () => {
      const seen: Match[] = []
      let keeping = (stream.keep ?? KEPT_SNAPSHOTS) - kept
      for await (const page of matchingTransactions(db, rule.parsed, stream)) {
        for (const tx of page) {
          const pending = job.pending(tx, rule)
          const keep = pending && !matches.candidates.has(tx.id) && keeping-- > 0
          seen.push({ id: tx.id, pending, ...(keep && { tx }) })
        }
      }
      return seen
    })
    if (!found.ok) {
      job.isolate?.(rule, found.error)
      failed.push({ rule_id: rule.id, name: rule.name, detail: failureDetail(found.error) })
      matches.skipped.add(index)
      continue
    }
    for (const { id, pending, tx } of found.value) {
      const by = matches.matchedBy.get(id)
      // Paging outside a transaction may meet a row twice when it changes
      // meanwhile; phase 2 matches such a row again anyway.
      if (!by) matches.matchedBy.set(id, [index])
      else if (by.at(-1) !== index) by.push(index)
      // A row changed between two rules' reads (or two reads of one rule)
      // changed after the head that phase 2 looks back from: read again there.
      if (pending && !matches.candidates.has(id)) {
        matches.candidates.set(id, tx ?? null)
        if (tx) kept++
      }
    }
  }
  return matches
}

/**
 * Phase 2's look back: the matches of phase 1, brought up to the unit's view of
 * the ledger, or undefined when the events since `since` say something changed
 * that the run cannot pin to transactions (the whole run is then done again).
 */
async function recheck(
  uow: UnitOfWork,
  job: Job,
  since: number,
  matches: Matches,
): Promise<Matches | undefined> {
  const touched = new Set<string>()
  const readsEdges = matches.rules.some((rule) => subjectNeeds(rule.parsed).relationships)
  for (const event of await entitiesTouchedAfter(uow.trx, since)) {
    switch (event.entity_type) {
      case 'transaction':
        // An edge changes what its other end matches, and a deleted row its edges.
        if (event.type.startsWith('relationship.')) return undefined
        if (event.type === 'transaction.deleted' && readsEdges) return undefined
        touched.add(event.entity_id)
        break
      case 'account':
        // A renamed account changes what `account:` matches on all its rows.
        if (event.type !== 'account.created') return undefined
        break
      case 'rule':
        // Another run's changes have their own per-key events; a changed rule does not.
        if (event.type !== 'rule.executed') return undefined
        break
      case 'label':
        // A label key removed from every transaction at once.
        return undefined
      default:
        break
    }
  }
  for (const ids of chunksOf([...touched], WRITE_CHUNK)) {
    for (const id of ids) {
      matches.matchedBy.delete(id)
      matches.candidates.delete(id)
    }
    // Held before they are read: what is read is what the unit may write.
    await lockTransactionRowsNowait(uow.trx, ids)
    const rows = await uow.trx
      .selectFrom('transactions')
      .selectAll()
      .where(inList(uow.trx, 'id', ids))
      .execute()
    // A row deleted meanwhile is gone from the matches; one created meanwhile
    // (born with the enabled rules already, CONTRACT 8) is matched like the rest.
    for (const subject of await loadSubjects(uow.trx, rows)) {
      const by: number[] = []
      let pending = false
      for (const [index, rule] of matches.rules.entries()) {
        if (matches.skipped.has(index) || !matches_(rule.parsed, subject)) continue
        by.push(index)
        pending ||= job.pending(subject.transaction, rule)
      }
      if (by.length === 0) continue
      matches.matchedBy.set(subject.transaction.id, by)
      if (pending) matches.candidates.set(subject.transaction.id, subject.transaction)
    }
  }
  return matches
}

/**
 * Writes the net result on every candidate, a chunk of loaded transactions at a
 * time through the ledger's batched keyed-value writer: per transaction, its
 * labels (a `labeled` version, per-key events) then its extensions (`extended`),
 * as if written one by one. Skips those in `written` and adds the rest to it.
 * Answers how many changed.
 */
async function writeMatches(
  uow: UnitOfWork,
  job: Job,
  matches: Matches,
  written: Set<string>,
): Promise<number> {
  let changed = 0
  const unwritten = new Map([...matches.candidates].filter(([id]) => !written.has(id)))
  for (const id of unwritten.keys()) written.add(id)
  await forEachLoaded(uow.trx, unwritten, async (befores) => {
    const changes = befores.map((before) => {
      const matching = matches.matchedBy.get(before.id)!.map((index) => matches.rules[index]!)
      const next = job.next(before, matching)
      return { before, next: { labels: next.labels, extensions: next.extensions } }
    })
    const afters = await writeKeyedValuesManyInUnit(uow, [LABELS, EXTENSIONS], changes)
    for (const [i, after] of afters.entries()) if (after !== befores[i]) changed++
  })
  return changed
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

/**
 * Calls `each` on the candidates in chunks, in the order of their ids, each as
 * its kept snapshot or else as loaded now (one gone meanwhile is left out).
 * In id order, the unit's writes (labels, extensions, versions, the events'
 * entity index) walk each index keyed by the transaction id from one end to the
 * other, rather than landing on its pages in the matches' date order.
 */
async function forEachLoaded(
  db: DbExecutor,
  candidates: ReadonlyMap<string, TransactionJson | null>,
  each: (txs: TransactionJson[]) => Promise<void>,
): Promise<void> {
  const byId = [...candidates].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  for (const chunk of chunksOf(byId, WRITE_CHUNK)) {
    const missing = chunk.filter(([, tx]) => tx === null).map(([id]) => id)
    const loaded =
      missing.length > 0 ? await findTransactions(db, missing) : new Map<string, TransactionJson>()
    const txs: TransactionJson[] = []
    for (const [id, kept] of chunk) {
      const tx = kept ?? loaded.get(id)
      if (tx) txs.push(tx)
    }
    await each(txs)
  }
}

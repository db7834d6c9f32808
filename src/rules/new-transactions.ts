// Rules on new transactions (CONTRACT 8 "New transactions"): every enabled rule
// applies to each transaction as it is created, by sync or by hand, in the unit of
// work that creates it. The created row is born with the net labels and extensions
// (they are in its `transaction.created` snapshot and its `imported` version), then
// one `label.applied` / `extension.set` event per key follows it; no other version
// and no `rule.executed`. This is an insert step: app.ts registers it with the
// ledger, whose one insert path runs it and writes what it answers.
import type { Logger } from 'pino'
import { chunksOf } from '../db/bulk.js'
import { inList } from '../db/in-list.js'
import type { TransactionJson } from '../ledger/json.js'
import type { WriteStep, UnitOfWork } from '../ledger/unit-of-work.js'
import { matches } from '../search/index.js'
import { withEffects } from './effects.js'
import { loadEnabledRules, type LoadedRule } from './store.js'

interface UnitRules {
  rules: LoadedRule[]
  /** Account names (the `account:` field) as looked up in this unit. */
  accountNames: Map<string, string>
}

// Loaded once per unit of work, not per row or per chunk: a CSV import inserts
// 100k rows through this hook in one unit.
const UNIT_RULES = Symbol('rules of the unit')

function unitRules(uow: UnitOfWork, log: Logger): Promise<UnitRules> {
  return uow.memo(UNIT_RULES, async () => {
    const { runnable, broken } = await loadEnabledRules(uow.trx)
    // A rule that cannot run never holds up a sync or a manual entry: the
    // others apply, and the log says which one was left out and why.
    for (const { rule, detail } of broken) {
      log.warn({ rule_id: rule.id }, `rules: "${rule.name}" skipped on new transactions: ${detail}`)
    }
    return { rules: runnable, accountNames: new Map() }
  })
}

async function lookUpAccountNames(
  uow: UnitOfWork,
  names: Map<string, string>,
  accountIds: Iterable<string>,
): Promise<void> {
  const missing = [...new Set(accountIds)].filter((id) => !names.has(id))
  for (const ids of chunksOf(missing, 500)) {
    const rows = await uow.trx
      .selectFrom('accounts')
      .select(['id', 'name'])
      .where(inList(uow.trx, 'id', ids))
      .execute()
    for (const row of rows) names.set(row.id, row.name)
  }
}

/**
 * The insert step (ledger/unit-of-work.ts) that applies the enabled rules to new
 * transactions: each is answered with the net labels and extensions of the rules
 * that match it, and the ledger writes them with the row.
 */
export function rulesOnNewTransactions(log: Logger): WriteStep {
  return {
    name: 'rules',
    amend: (uow, born) => applyRulesToNewTransactions(uow, born, log),
  }
}

/** The new transactions with the labels and extensions of the enabled rules that match them. */
async function applyRulesToNewTransactions(
  uow: UnitOfWork,
  born: readonly TransactionJson[],
  log: Logger,
): Promise<readonly TransactionJson[]> {
  if (born.length === 0) return born
  const { rules, accountNames } = await unitRules(uow, log)
  if (rules.length === 0) return born
  await lookUpAccountNames(
    uow,
    accountNames,
    born.map((tx) => tx.account_id),
  )
  return born.map((tx) => {
    // A new row has no relationships yet; every rule sees the row as it arrived.
    const subject = {
      transaction: tx,
      accountName: accountNames.get(tx.account_id) ?? '',
      outbound: [],
      inbound: [],
    }
    const effects = rules.filter((rule) => matches(rule.parsed, subject))
    if (effects.length === 0) return tx
    return { ...tx, ...withEffects(tx, effects) }
  })
}

// Rules on new transactions (CONTRACT 8 "New transactions"): every enabled rule
// applies to each transaction as it is created, by sync or by hand, in the unit of
// work that creates it. The created row is born with the net labels and extensions
// (they are in its `transaction.created` snapshot and its `imported` version), then
// one `label.applied` / `extension.set` event per key follows it; no other version
// and no `rule.executed`. ledger/transactions.ts calls this from the one insert path.
import { insertRows } from '../db/bulk.js'
import type { NewEvent } from '../events/types.js'
import { EXTENSIONS } from '../ledger/extensions.js'
import { keyEvents, sortedByKey } from '../ledger/keyed-values.js'
import { LABELS } from '../ledger/labels.js'
import type { TransactionJson } from '../ledger/json.js'
import type { UnitOfWork } from '../ledger/mutate.js'
import { matches } from '../search/index.js'
import { withEffects } from './effects.js'
import { loadEnabledRules, type LoadedRule } from './store.js'
import { inList } from '../db/in-list.js'

interface UnitRules {
  rules: LoadedRule[]
  /** Account names (the `account:` field) as looked up in this unit. */
  accountNames: Map<string, string>
}

// Loaded once per unit of work, not per row or per chunk: a CSV import inserts
// 100k rows through this hook in one unit.
const UNIT_RULES = Symbol('rules of the unit')

function unitRules(uow: UnitOfWork): Promise<UnitRules> {
  return uow.memo(UNIT_RULES, () =>
    loadEnabledRules(uow.trx).then((rules) => ({ rules, accountNames: new Map() })),
  )
}

async function lookUpAccountNames(
  uow: UnitOfWork,
  names: Map<string, string>,
  accountIds: Iterable<string>,
): Promise<void> {
  const missing = [...new Set(accountIds)].filter((id) => !names.has(id))
  for (let i = 0; i < missing.length; i += 500) {
    const rows = await uow.trx
      .selectFrom('accounts')
      .select(['id', 'name'])
      .where(inList(uow.trx, 'id', missing.slice(i, i + 500)))
      .execute()
    for (const row of rows) names.set(row.id, row.name)
  }
}

export interface RuledTransactions {
  /** The new transactions, carrying the labels and extensions of the rules that match them. */
  transactions: TransactionJson[]
  /** The per-key events that follow each transaction's `transaction.created`. */
  eventsAfter(id: string): readonly NewEvent[]
}

const NO_EVENTS: readonly NewEvent[] = []

const INSERT_CHUNK_ROWS = 1000 // 3 parameters a row

/**
 * Applies the enabled rules to transactions just inserted (their rows exist, with
 * no labels or extensions) and writes the label and extension rows they get.
 */
export async function applyRulesToNewTransactions(
  uow: UnitOfWork,
  fresh: TransactionJson[],
): Promise<RuledTransactions> {
  const unchanged = { transactions: fresh, eventsAfter: () => NO_EVENTS }
  if (fresh.length === 0) return unchanged
  const { rules, accountNames } = await unitRules(uow)
  if (rules.length === 0) return unchanged
  await lookUpAccountNames(
    uow,
    accountNames,
    fresh.map((tx) => tx.account_id),
  )

  const events = new Map<string, NewEvent[]>()
  const labelRows: string[][] = []
  const extensionRows: string[][] = []
  const transactions = fresh.map((tx) => {
    // A new row has no relationships yet; every rule sees the row as it arrived.
    const subject = {
      transaction: tx,
      accountName: accountNames.get(tx.account_id) ?? '',
      outbound: [],
      inbound: [],
    }
    const effects = rules.filter((rule) => matches(rule.parsed, subject))
    if (effects.length === 0) return tx
    const { labels, extensions } = withEffects(tx, effects)
    const born: TransactionJson = {
      ...tx,
      labels: sortedByKey(labels),
      extensions: sortedByKey(extensions),
    }
    for (const [key, value] of Object.entries(born.labels)) labelRows.push([tx.id, key, value])
    for (const [key, value] of Object.entries(born.extensions)) {
      extensionRows.push([tx.id, key, JSON.stringify(value)])
    }
    events.set(born.id, [
      ...keyEvents(LABELS, born, LABELS.diff({}, born.labels)),
      ...keyEvents(EXTENSIONS, born, EXTENSIONS.diff({}, born.extensions)),
    ])
    return born
  })
  for (let i = 0; i < labelRows.length; i += INSERT_CHUNK_ROWS) {
    await insertRows(
      uow.trx,
      'transaction_labels',
      ['transaction_id', 'key', 'value'],
      labelRows.slice(i, i + INSERT_CHUNK_ROWS),
    )
  }
  for (let i = 0; i < extensionRows.length; i += INSERT_CHUNK_ROWS) {
    await insertRows(
      uow.trx,
      'transaction_extensions',
      ['transaction_id', 'key', 'value'],
      extensionRows.slice(i, i + INSERT_CHUNK_ROWS),
    )
  }
  return { transactions, eventsAfter: (id) => events.get(id) ?? NO_EVENTS }
}

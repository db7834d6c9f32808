// The event types a webhook can subscribe to: SPEC 6.2 and the relationship
// events of CONTRACT 6, in the service's order (src/events/types.ts, which the
// dashboard may not import; test/web/admin.test.ts checks the two agree).
export const EVENT_GROUPS: readonly { group: string; types: readonly string[] }[] = [
  {
    group: 'Transactions',
    types: ['transaction.created', 'transaction.updated', 'transaction.deleted'],
  },
  { group: 'Accounts', types: ['account.created', 'account.updated', 'account.deleted'] },
  {
    group: 'Labels and extensions',
    types: ['label.applied', 'label.removed', 'extension.set', 'extension.removed'],
  },
  { group: 'Relationships', types: ['relationship.created', 'relationship.removed'] },
  { group: 'Rules', types: ['rule.created', 'rule.updated', 'rule.deleted', 'rule.executed'] },
  { group: 'Sync', types: ['sync.completed'] },
]

export const ALL_TYPES = '*'

/** Empty or containing '*' means every type (SPEC 2.8). */
export function subscribesToAll(types: readonly string[]): boolean {
  return types.length === 0 || types.includes(ALL_TYPES)
}

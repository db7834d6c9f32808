// The event types a webhook can subscribe to, grouped for the checklist: the
// service's own catalogue (SPEC 6.2 and the relationship events of CONTRACT 6),
// in its order, grouped by the entity before the dot.
import { EVENT_TYPES } from '../../../../src/schemas/events.js'

const GROUPS: readonly { group: string; entities: readonly string[] }[] = [
  { group: 'Transactions', entities: ['transaction'] },
  { group: 'Accounts', entities: ['account'] },
  { group: 'Labels and extensions', entities: ['label', 'extension'] },
  { group: 'Relationships', entities: ['relationship'] },
  { group: 'Rules', entities: ['rule'] },
  { group: 'Sync', entities: ['sync'] },
]

export const EVENT_GROUPS: readonly { group: string; types: readonly string[] }[] = GROUPS.map(
  ({ group, entities }) => ({
    group,
    types: EVENT_TYPES.filter((type) => entities.includes(type.split('.')[0] ?? '')),
  }),
)

export const ALL_TYPES = '*'

/** Empty or containing '*' means every type (SPEC 2.8). */
export function subscribesToAll(types: readonly string[]): boolean {
  return types.length === 0 || types.includes(ALL_TYPES)
}

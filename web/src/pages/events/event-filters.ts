// The event page's filters live in the address bar (?type=&entity_type=&entity_id=),
// so a filtered tail can be bookmarked and shared.

export interface EventFilters {
  type: string
  entity_type: string
  entity_id: string
}

export const NO_EVENT_FILTERS: EventFilters = { type: '', entity_type: '', entity_id: '' }

/** SPEC 6.2 and CONTRACT 6 (relationships): the types a person picks from. */
export const EVENT_TYPES: readonly string[] = [
  'transaction.created',
  'transaction.updated',
  'transaction.deleted',
  'account.created',
  'account.updated',
  'account.deleted',
  'label.applied',
  'label.removed',
  'extension.set',
  'extension.removed',
  'relationship.created',
  'relationship.removed',
  'rule.created',
  'rule.updated',
  'rule.deleted',
  'rule.executed',
  'sync.completed',
]

/** SPEC 2.6. */
export const ENTITY_TYPES: readonly string[] = ['transaction', 'account', 'rule', 'label', 'sync']

export function eventFiltersFrom(query: Record<string, string>): EventFilters {
  return {
    type: query.type ?? '',
    entity_type: query.entity_type ?? '',
    entity_id: query.entity_id ?? '',
  }
}

export function eventsUrl(filters: EventFilters): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(filters) as [string, string][]) {
    if (value !== '') search.set(key, value)
  }
  const text = search.toString()
  return text === '' ? '/events' : `/events?${text}`
}

/** Where the dashboard shows an event's subject, if it has a page. */
export function entityHref(entityType: string, entityId: string): string | null {
  const id = encodeURIComponent(entityId)
  switch (entityType) {
    case 'transaction':
      return `/transactions/${id}`
    case 'account':
      return `/accounts/${id}`
    case 'rule':
      return `/rules/${id}`
    default:
      return null
  }
}

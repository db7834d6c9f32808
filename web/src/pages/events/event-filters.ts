// The event page's filters live in the address bar (?type=&entity_type=&entity_id=),
// so a filtered tail can be bookmarked and shared.

import {
  ENTITY_TYPES as SERVICE_ENTITY_TYPES,
  EVENT_TYPES as SERVICE_EVENT_TYPES,
} from '../../../../src/schemas/events.js'

export interface EventFilters {
  type: string
  entity_type: string
  entity_id: string
}

export const NO_EVENT_FILTERS: EventFilters = { type: '', entity_type: '', entity_id: '' }

/** The types and entity types a person picks from: the service's own catalogue. */
export const EVENT_TYPES: readonly string[] = SERVICE_EVENT_TYPES
export const ENTITY_TYPES: readonly string[] = SERVICE_ENTITY_TYPES

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

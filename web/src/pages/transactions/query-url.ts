// The transaction list's filters live in the address bar (?q=&since=…), so a
// view can be bookmarked, shared, and reached again with the back button.

export interface ListFilters {
  q: string
  since: string
  until: string
  label_key: string
  label_value: string
}

export const NO_FILTERS: ListFilters = {
  q: '',
  since: '',
  until: '',
  label_key: '',
  label_value: '',
}

export function filtersFrom(query: Record<string, string>): ListFilters {
  return {
    q: query.q ?? '',
    since: query.since ?? '',
    until: query.until ?? '',
    label_key: query.label_key ?? '',
    label_value: query.label_value ?? '',
  }
}

export function urlFor(filters: ListFilters): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(filters) as [string, string][]) {
    if (value !== '') search.set(key, value)
  }
  const text = search.toString()
  return text === '' ? '/transactions' : `/transactions?${text}`
}

/** The list's order: newest first unless ?order=asc, so the default address stays bare. */
export type ListOrder = 'desc' | 'asc'

export function orderFrom(query: Record<string, string>): ListOrder {
  return query.order === 'asc' ? 'asc' : 'desc'
}

/** `url` (of urlFor) with the order, when it is not the default. */
export function withOrder(url: string, order: ListOrder): string {
  return order === 'desc' ? url : `${url}${url.includes('?') ? '&' : '?'}order=asc`
}

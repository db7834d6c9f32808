// The transaction list's filters live in the address bar (?q=&since=…), so a
// view can be bookmarked, shared, and reached again with the back button; so
// does the page of the list it shows (?cursor=&prev=).
import { FIRST_PAGE, type PagerState } from '../../components/Pager.js'

export interface ListFilters {
  q: string
  since: string
  until: string
  label_key: string
  label_value: string
  /** An extension key the rows must carry (CONTRACT 7 `ext:key`)… */
  ext_key: string
  /** …and, when set, the value it must have, compared as text (`ext:key=value`). */
  ext_value: string
}

export const NO_FILTERS: ListFilters = {
  q: '',
  since: '',
  until: '',
  label_key: '',
  label_value: '',
  ext_key: '',
  ext_value: '',
}

export function filtersFrom(query: Record<string, string>): ListFilters {
  return {
    q: query.q ?? '',
    since: query.since ?? '',
    until: query.until ?? '',
    label_key: query.label_key ?? '',
    label_value: query.label_value ?? '',
    ext_key: query.ext_key ?? '',
    ext_value: query.ext_value ?? '',
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

/** True when any filter beside the search text is set. */
export function hasFilters(filters: ListFilters): boolean {
  return (Object.keys(NO_FILTERS) as (keyof ListFilters)[]).some(
    (key) => key !== 'q' && filters[key] !== '',
  )
}

/**
 * The extension filter as a search term: `ext:key` or `ext:key=value`. A value
 * with a space, parenthesis or `&`/`|` is quoted; the language has no escape for
 * `"`, so a value holding one cannot be written and the term is null.
 */
export function extensionTerm(filters: ListFilters): string | null {
  if (filters.ext_key === '') return ''
  if (filters.ext_value === '') return `ext:${filters.ext_key}`
  if (filters.ext_value.includes('"')) return null
  const plain = !/[\s()&|]/.test(filters.ext_value)
  return `ext:${filters.ext_key}=${plain ? filters.ext_value : `"${filters.ext_value}"`}`
}

/**
 * The query sent to the search: the person's text, narrowed by the extension
 * filter. The text is parenthesized so that its ORs stay inside it.
 */
export function searchText(filters: ListFilters): string {
  const term = extensionTerm(filters) ?? ''
  const text = filters.q.trim()
  if (term === '') return filters.q
  return text === '' ? term : `(${filters.q}) ${term}`
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

/**
 * The page shown: `cursor` is its cursor, `prev` the cursors of the pages
 * before it joined by `.` (a cursor is base64url, so it holds none), the first
 * page's being empty. A link with a cursor and no `prev` reads as page 2.
 */
export function pagerFrom(query: Record<string, string>): PagerState {
  const cursor = query.cursor ?? ''
  if (cursor === '') return FIRST_PAGE
  const previous = (query.prev ?? '').split('.').map((c) => (c === '' ? null : c))
  return { previous, cursor }
}

/** `url` with the page shown, when it is not the first (the first page's address stays bare). */
export function withPager(url: string, pager: PagerState): string {
  if (pager.cursor === null) return url
  const search = new URLSearchParams({
    cursor: pager.cursor,
    prev: pager.previous.map((c) => c ?? '').join('.'),
  })
  return `${url}${url.includes('?') ? '&' : '?'}${search.toString()}`
}

// List paging (SPEC 4, CONTRACT 3): limit defaults to 100 and is clamped to 1000
// here, once, for every list. Negative or non-numeric values never get this far:
// the route schemas reject them with a 400.
//
// Lists a person scrolls (transactions, an account's transactions, search) also
// page by keyset: each page answers `next_cursor`, an opaque token holding the
// sort key of its last row, and `?cursor=` continues after that row, so a deep
// page costs what the first costs and rows written meanwhile never shift a page.
// They run newest first (`order=desc`, the default) or oldest first (`asc`);
// a cursor carries its order and continues only the same order.
import { createHash } from 'node:crypto'
import { Invalid } from './errors.js'
import { CURSOR_MAX_CHARS } from './schemas/limits.js'

export { CURSOR_MAX_CHARS }

export const LIST_LIMIT_DEFAULT = 100
export const LIST_LIMIT_MAX = 1000

export interface PageInput {
  limit?: number | undefined
  offset?: number | undefined
}

export interface Page {
  limit: number
  offset: number
}

export function resolvePage(input: PageInput): Page {
  const limit = Math.min(input.limit ?? LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX)
  return { limit, offset: input.offset ?? 0 }
}

/** The sort key of a row: the last row of a page, that the next page follows. */
export interface KeysetKey {
  date: string
  id: string
}

/** By (date, id): `desc` newest first (the default, CONTRACT 3), `asc` oldest first. */
export type SortOrder = 'desc' | 'asc'

export const DEFAULT_ORDER: SortOrder = 'desc'

export interface KeysetPageInput extends PageInput {
  cursor?: string | undefined
  order?: SortOrder | undefined
}

export interface KeysetPage extends Page {
  /** Rows strictly after this key in `order`; null to start at `offset`. */
  after: KeysetKey | null
  order: SortOrder
  /** What the cursor is bound to: the list and its filters (see `resolveKeysetPage`). */
  scope: unknown
}

const CURSOR_VERSION = 1
const BASE64URL = /^[A-Za-z0-9_-]+$/
const NOT_A_CURSOR = 'is not a cursor this service issued; pass the next_cursor of a page'
const OTHER_LIST =
  'belongs to another list, filter or query, or was altered; page from the start without it'

/**
 * A short digest binding a position to its list: a cursor handed to another list,
 * to the same list with other filters or another query, or edited, no longer agrees.
 * Not a secret: a cursor only positions a list the caller can already read.
 * A newest-first digest is the one cursors had before `order` existed, so those
 * cursors keep working.
 */
function digest(scope: unknown, key: KeysetKey, order: SortOrder): string {
  const bound = [CURSOR_VERSION, scope, key.date, key.id, ...(order === 'asc' ? ['asc'] : [])]
  return createHash('sha256').update(JSON.stringify(bound)).digest('base64url').slice(0, 16)
}

/**
 * The cursor of the position after `key` in the list `scope` read in `order`:
 * base64url of the JSON `{"v": 1, "d": date, "i": id, "h": digest}`, plus
 * `"o": "asc"` oldest first. Clients treat it as opaque.
 */
export function encodeCursor(
  scope: unknown,
  key: KeysetKey,
  order: SortOrder = DEFAULT_ORDER,
): string {
  const payload = {
    v: CURSOR_VERSION,
    d: key.date,
    i: key.id,
    ...(order === 'asc' ? { o: 'asc' } : {}),
    h: digest(scope, key, order),
  }
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')
}

/**
 * The key a cursor holds; a 400 naming `cursor` when it is malformed, not of
 * `scope`, or of the other order (it would page backwards from its row).
 */
export function decodeCursor(
  scope: unknown,
  cursor: string,
  order: SortOrder = DEFAULT_ORDER,
): KeysetKey {
  if (cursor.length === 0 || cursor.length > CURSOR_MAX_CHARS || !BASE64URL.test(cursor)) {
    throw Invalid.field('cursor', NOT_A_CURSOR)
  }
  let payload: unknown
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    throw Invalid.field('cursor', NOT_A_CURSOR)
  }
  if (typeof payload !== 'object' || payload === null) throw Invalid.field('cursor', NOT_A_CURSOR)
  const { v, d, i, o, h } = payload as Record<string, unknown>
  if (v !== CURSOR_VERSION || typeof d !== 'string' || typeof i !== 'string') {
    throw Invalid.field('cursor', NOT_A_CURSOR)
  }
  if (typeof h !== 'string' || (o !== undefined && o !== 'asc')) {
    throw Invalid.field('cursor', NOT_A_CURSOR)
  }
  const key = { date: d, id: i }
  const issued: SortOrder = o === 'asc' ? 'asc' : 'desc'
  // Checked whole first, so that an altered "o" reads as altered, not as the other order.
  if (encodeCursor(scope, key, issued) !== cursor) throw Invalid.field('cursor', OTHER_LIST)
  if (issued !== order) {
    throw Invalid.field(
      'cursor',
      `continues the list in order=${issued}; pass order=${issued} with it, or page from the start`,
    )
  }
  return key
}

/**
 * A page of a keyset list. `scope` names the list and everything that selects its
 * rows (its kind, filters, query text): a cursor is accepted only by the list that
 * issued it, read in the same order. `cursor` with a non-zero `offset` is a 400;
 * with a cursor the page starts after its row and the answer echoes `offset: 0`.
 */
export function resolveKeysetPage(input: KeysetPageInput, scope: unknown): KeysetPage {
  const { limit, offset } = resolvePage(input)
  const order = input.order ?? DEFAULT_ORDER
  if (input.cursor === undefined) return { limit, offset, after: null, order, scope }
  if (offset !== 0) {
    throw Invalid.field('cursor', 'cannot be combined with offset; pass one or the other')
  }
  return { limit, offset: 0, after: decodeCursor(scope, input.cursor, order), order, scope }
}

/**
 * Trims rows fetched with `limit + 1` to the page and gives the cursor after its
 * last row: null when no row follows (the last page), and when `limit` is 0.
 */
export function keysetPageOf<R extends KeysetKey>(
  rows: R[],
  page: KeysetPage,
): { rows: R[]; next_cursor: string | null } {
  if (rows.length <= page.limit || page.limit === 0) {
    return { rows: rows.slice(0, page.limit), next_cursor: null }
  }
  const kept = rows.slice(0, page.limit)
  const last = kept[kept.length - 1]!
  return { rows: kept, next_cursor: encodeCursor(page.scope, last, page.order) }
}

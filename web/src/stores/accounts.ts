// The accounts, shared: transaction rows show their account's name and
// currency. Other clients (the API, a sync, MCP) create and change accounts
// too, and the dashboard has no event stream of its own (the Events page
// polls), so the list is loaded again on each page that asks for it, when a
// row names an account it does not know, and after this dashboard creates,
// edits or deletes one.
import { signal } from '@preact/signals'
import { api, type Result } from '../api/client.js'

export type Account = Result<'GET /accounts/:id'>

export const accounts = signal<Map<string, Account>>(new Map())
let loading: Promise<void> | null = null
/** The page (path) the last load was made for: another page loads again. */
let loadedFor: string | null = null
/** Ids a fresh load did not find either: not worth another load. */
const notFound = new Set<string>()

/** Every account, paged through (they are few next to transactions); once per page visited. */
export async function loadAccounts(force = false): Promise<void> {
  const here = location.pathname
  if (loading && !force && loadedFor === here) return loading
  loadedFor = here
  loading = (async () => {
    const all = new Map<string, Account>()
    for (let offset = 0; ; offset += 1000) {
      const page = await api('GET /accounts', { query: { limit: 1000, offset } })
      for (const account of page.accounts) all.set(account.id, account)
      if (offset + page.accounts.length >= page.total || page.accounts.length === 0) break
    }
    accounts.value = all
  })()
  try {
    await loading
  } catch (error) {
    loading = null
    throw error
  }
}

/**
 * Loads the accounts again when rows name one the store does not know (made
 * by another client since the last load), once the load under way is done.
 */
export function refreshForUnknown(ids: readonly string[]): void {
  void (async () => {
    if (loading) await loading.catch(() => undefined)
    const unknown = [...new Set(ids)].filter((id) => !accounts.value.has(id) && !notFound.has(id))
    if (unknown.length === 0) return
    await loadAccounts(true)
    for (const id of unknown) if (!accounts.value.has(id)) notFound.add(id)
  })().catch(() => undefined)
}

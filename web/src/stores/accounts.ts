// The accounts, loaded once and shared: transaction rows show their account's
// name and currency. Reloaded after an account is created, edited or deleted.
import { signal } from '@preact/signals'
import { api, type Result } from '../api/client.js'

export type Account = Result<'GET /accounts/:id'>

export const accounts = signal<Map<string, Account>>(new Map())
let loading: Promise<void> | null = null

/** Every account, paged through (they are few next to transactions). */
export async function loadAccounts(force = false): Promise<void> {
  if (loading && !force) return loading
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

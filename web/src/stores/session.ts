// Who the dashboard is talking as: the token kept in the browser, and what
// GET /api/v1/auth says it reaches. Pages read `access` to hide or disable what
// the credential may not do (SPEC 5.1), with the reason.
import { computed, signal } from '@preact/signals'
import { api, ApiError, setUnauthorizedHandler, tokenStore, type Result } from '../api/client.js'

export type AuthStatus = Result<'GET /auth'>

export const authStatus = signal<AuthStatus | null>(null)
export const authError = signal<ApiError | null>(null)

export const access = computed(() => authStatus.value?.access ?? 'none')
export const canWrite = computed(() => access.value === 'admin' || access.value === 'read_write')
export const canAdmin = computed(() => access.value === 'admin')
/** Signed in, or nothing to sign in to. */
export const signedIn = computed(() => {
  const status = authStatus.value
  return status !== null && (!status.auth_required || status.authenticated)
})

/** Why a write control is disabled, or null when it is not. */
export const writeBlocked = computed(() =>
  canWrite.value
    ? null
    : 'This key is read-only: writes need the dashboard token or a read_write key.',
)

/** Why an admin page or control is unavailable, or null when it is not. */
export const adminBlocked = computed(() => {
  const status = authStatus.value
  if (status === null) return 'Loading…'
  if (!status.auth_required) {
    return 'Admin features need a dashboard token, and none is configured yet.'
  }
  return canAdmin.value
    ? null
    : 'Admin features need the dashboard token; API keys never reach them.'
})

export async function refreshAuth(): Promise<void> {
  try {
    authStatus.value = await api('GET /auth')
    authError.value = null
  } catch (error) {
    authError.value = error instanceof ApiError ? error : new ApiError(0, 'Error', String(error))
  }
}

/** Keeps the token if the service accepts it; says why not otherwise. */
export async function signIn(token: string): Promise<string | null> {
  const previous = tokenStore.get()
  tokenStore.set(token.trim())
  await refreshAuth()
  if (authStatus.value?.authenticated) return null
  // Why this token was refused, before the check with the previous one clears it:
  // a 429 (too many failed attempts from this address) says so and how long to
  // wait; the token itself may well be right.
  const refused = authError.value
  tokenStore.set(previous)
  await refreshAuth()
  if (refused && refused.status !== 401) return refused.detail
  return (
    authError.value?.detail ??
    'The service did not accept it: it is neither the dashboard token nor a valid API key (API keys can be revoked).'
  )
}

export async function signOut(): Promise<void> {
  tokenStore.set(null)
  await refreshAuth()
}

setUnauthorizedHandler(() => {
  void refreshAuth()
})

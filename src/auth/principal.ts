// Who a request is, for per-client limits and for ending what a revoked
// credential holds open (its event streams): one spelling for both.

export const DASHBOARD_PRINCIPAL = 'dashboard token'

export function apiKeyPrincipal(id: string): string {
  return `API key ${id}`
}

/** Where a revoked key or a changed dashboard token is announced to every process. */
export const CREDENTIALS_CHANNEL = 'coffer_credentials'

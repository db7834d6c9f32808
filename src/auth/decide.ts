// The decision procedure of SPEC 5.2, as one pure function of what the request
// carries, so that the whole matrix is easy to read and to test.
export type Tier = 'open' | 'read' | 'write' | 'admin'

export type Credential =
  | { kind: 'none' }
  | { kind: 'dashboard' }
  | { kind: 'api_key'; scope: 'read' | 'read_write'; id?: string }
  | { kind: 'invalid' }

export type Decision =
  | { allow: true; authenticated: boolean }
  | { allow: false; status: 401 | 403 | 503; reason: string }

export function decide(tier: Tier, tokenConfigured: boolean, credential: Credential): Decision {
  const authenticated = credential.kind === 'dashboard' || credential.kind === 'api_key'
  // 1. Open routes.
  if (tier === 'open') return { allow: true, authenticated }
  // 2. No dashboard token anywhere: read and write are open, admin is unavailable.
  if (!tokenConfigured) {
    if (tier === 'admin') {
      return {
        allow: false,
        status: 503,
        reason:
          'no dashboard token is configured; set dashboard.token or create one with POST /api/v1/security/token',
      }
    }
    return { allow: true, authenticated }
  }
  // 3. The dashboard token: full access.
  if (credential.kind === 'dashboard') return { allow: true, authenticated: true }
  // 4. Otherwise an API key, or 401.
  if (credential.kind !== 'api_key') {
    return {
      allow: false,
      status: 401,
      reason:
        credential.kind === 'none'
          ? 'this route needs a bearer token: the dashboard token or an API key'
          : 'the bearer token is neither the dashboard token nor a valid API key',
    }
  }
  // 5. API keys never reach admin; a read key only reads.
  if (tier === 'admin')
    return { allow: false, status: 403, reason: 'API keys cannot use admin routes' }
  if (tier === 'write' && credential.scope === 'read') {
    return {
      allow: false,
      status: 403,
      reason: 'this API key is read-only; writes need a read_write key',
    }
  }
  return { allow: true, authenticated: true }
}

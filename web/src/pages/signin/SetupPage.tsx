// First run: no dashboard token exists yet (CONTRACT 3b). Reading and writing
// work without one; admin features (webhooks, API keys, credentials, settings)
// need one. From the machine itself the dashboard can create it.
import { useLocation } from 'preact-iso'
import { useState } from 'preact/hooks'
import { api, ApiError, tokenStore } from '../../api/client.js'
import { CopyButton } from '../../components/CopyButton.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { toApiError } from '../../components/useApi.js'
import { authStatus, refreshAuth } from '../../stores/session.js'

export function SetupPage() {
  const status = authStatus.value
  const { route } = useLocation()
  const [pasted, setPasted] = useState('')
  const [created, setCreated] = useState<string | null>(null)
  const [error, setError] = useState<ApiError | null>(null)

  const create = async (token?: string) => {
    try {
      const result = await api('POST /security/token', { body: token ? { token } : {} })
      tokenStore.set(result.token)
      setCreated(result.token)
      setError(null)
      // Signed in with it from now on: what the page shows (the badge, the
      // admin pages) follows at once, not after Continue.
      await refreshAuth()
    } catch (failure) {
      setError(toApiError(failure))
    }
  }

  if (created) {
    return (
      <section class="card narrow">
        <h1>Dashboard token created</h1>
        <p>
          This is the only time it is shown. This browser keeps it and is signed in; keep a copy
          somewhere safe to sign in elsewhere.
        </p>
        <p class="secret">
          <code>{created}</code> <CopyButton value={created} />
        </p>
        <button type="button" class="primary" onClick={() => route('/transactions')}>
          Continue
        </button>
      </section>
    )
  }

  return (
    <section class="card narrow">
      <h1>Set up the dashboard token</h1>
      {status?.auth_required ? (
        <p>
          A dashboard token is configured (
          {status.token_source === 'config' ? 'in the config file' : 'stored by the service'}). Sign
          in with it to reach the admin pages.
        </p>
      ) : (
        <>
          <p>
            No dashboard token is configured. Anyone who can reach this address can read and change
            the ledger, and the admin pages (webhooks, API keys, source credentials, settings) stay
            locked until a token exists.
          </p>
          <h2>Option 1: in the config file</h2>
          <p>
            Run <code>coffer token</code>, put the printed value in <code>coffer.toml</code> as{' '}
            <code>[dashboard] token = "…"</code> (or the environment variable{' '}
            <code>SERVICE_DASHBOARD_TOKEN</code>), and restart the service.
          </p>
          <h2>Option 2: here</h2>
          {status?.can_create_token ? (
            <>
              <p>
                This browser is on the same machine as the service, so it may create the first
                token. It is stored (hashed) by the service and can be revoked later.
              </p>
              <p>
                <button type="button" class="primary" onClick={() => void create()}>
                  Create a dashboard token
                </button>
              </p>
              <form
                class="inline"
                onSubmit={(event) => {
                  event.preventDefault()
                  void create(pasted)
                }}
              >
                <label>
                  Or use your own (at least 16 characters)
                  <input
                    type="password"
                    minLength={16}
                    value={pasted}
                    onInput={(e) => setPasted(e.currentTarget.value)}
                  />
                </label>
                <button type="submit" disabled={pasted.length < 16}>
                  Use this token
                </button>
              </form>
            </>
          ) : (
            <p>
              Creating the first token from the dashboard is only allowed from the machine the
              service runs on (a loopback address). Open the dashboard there, or use option 1.
            </p>
          )}
          <ErrorNote error={error} context="Could not create the token" />
        </>
      )}
    </section>
  )
}

// Sign-in: the dashboard token or an API key, kept in this browser's storage.
import { useState } from 'preact/hooks'
import { signIn } from '../../stores/session.js'

export function SignInPage() {
  const [token, setToken] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  return (
    <div class="centered">
      <form
        class="card signin"
        onSubmit={(event) => {
          event.preventDefault()
          setBusy(true)
          void signIn(token).then((failure) => {
            setBusy(false)
            setError(failure)
          })
        }}
      >
        <h1>Sign in to Coffer</h1>
        <p>
          Paste the dashboard token, or an API key. A <code>read</code> key shows the ledger without
          write controls; a <code>read_write</code> key can edit it; only the dashboard token
          reaches the admin pages.
        </p>
        <label>
          Token or API key
          <input
            type="password"
            autocomplete="current-password"
            value={token}
            required
            onInput={(e) => setToken(e.currentTarget.value)}
          />
        </label>
        {error ? (
          <p class="error-note" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" class="primary" disabled={busy || token.trim() === ''}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
        <p class="hint">
          The token stays in this browser's local storage until you sign out. Lost it? Run{' '}
          <code>coffer token</code> and set <code>dashboard.token</code> in the config file.
        </p>
      </form>
    </div>
  )
}

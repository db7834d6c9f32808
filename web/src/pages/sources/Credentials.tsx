// A source's credentials (SPEC 1.2, 1.3, 5.4; CONTRACT 4, 6): the entries it has
// (never a secret, only their labels), a form to put one, a remove button for
// those added at runtime, and Google Drive's consent flow for the CSV source.
// All of it is admin tier: without the dashboard token the reason is shown.
import { useState } from 'preact/hooks'
import { api, ApiError } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { toApiError } from '../../components/useApi.js'
import { notify } from '../../stores/notices.js'
import { adminBlocked, authStatus } from '../../stores/session.js'
import type { SourceEntry } from './run-words.js'

interface CredentialWords {
  label: string
  button: string
  hint: string
  /** Typed into a password field: a secret is never echoed on screen. */
  secret: boolean
}

/** What the credential field asks for, per source. */
const PUT_WORDS: Record<string, CredentialWords> = {
  ethereum: {
    label: 'Address to watch',
    button: 'Add address',
    hint: '0x followed by 40 hexadecimal characters. Its account appears after the next sync.',
    secret: false,
  },
  aggregator: {
    label: 'SimpleFIN setup token or access URL',
    button: 'Save credential',
    hint: 'A setup token is claimed once, on the next sync. It is kept in the secret store and never shown again.',
    secret: true,
  },
  csv: {
    label: 'Google Drive refresh token',
    button: 'Save refresh token',
    hint: 'Instead of connecting through Google: a refresh token for the configured OAuth client. It is never shown again.',
    secret: true,
  },
}

const GENERIC: CredentialWords = {
  label: 'Credential',
  button: 'Save credential',
  hint: 'Kept in the secret store and never shown again.',
  secret: true,
}

export function Credentials({
  source,
  onChange,
}: {
  source: SourceEntry
  onChange: (entry: SourceEntry) => void
}) {
  const { kind } = source.credential
  if (kind === 'none') {
    return source.type === 'csv' ? (
      <p class="hint">Local folders need no credential.</p>
    ) : (
      <p class="hint">This source takes no credential.</p>
    )
  }
  const entries = source.credential.entries ?? []
  const blocked = adminBlocked.value
  const words = PUT_WORDS[source.type] ?? GENERIC
  return (
    <div class="credentials stack">
      {entries.length > 0 ? (
        <EntryList source={source} blocked={blocked} onChange={onChange} />
      ) : (
        <p class="hint">
          {kind === 'multi'
            ? 'None yet.'
            : kind === 'oauth'
              ? 'Google Drive is not connected.'
              : 'No credential is set.'}
        </p>
      )}
      {blocked !== null ? (
        <p class="hint" role="note">
          {authStatus.value?.auth_required === false ? (
            <>
              Changing credentials needs a dashboard token, and none is configured yet.{' '}
              <a href="/setup">Set one up</a>.
            </>
          ) : (
            'Changing credentials needs the dashboard token; API keys never reach it.'
          )}
        </p>
      ) : (
        <>
          {kind === 'oauth' ? <ConnectDrive again={entries.length > 0} /> : null}
          <PutCredential source={source} words={words} onChange={onChange} />
        </>
      )}
    </div>
  )
}

function EntryList({
  source,
  blocked,
  onChange,
}: {
  source: SourceEntry
  blocked: string | null
  onChange: (entry: SourceEntry) => void
}) {
  const [busy, setBusy] = useState<string | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const remove = async (id: string) => {
    setBusy(id)
    setError(null)
    try {
      onChange(
        await api('DELETE /sources/:type/credentials/:id', { params: { type: source.type, id } }),
      )
      notify(`${source.title}: removed.`)
    } catch (failure) {
      setError(toApiError(failure))
    } finally {
      setBusy(null)
    }
  }
  return (
    <>
      <ul class="credential-list" aria-label={`${source.title} credentials`}>
        {(source.credential.entries ?? []).map((entry) => (
          <li key={entry.id}>
            <span class="credential-label">{entry.label}</span>
            {entry.from_config ? (
              <span class="badge" title="Set in the configuration file; remove it there.">
                from config
              </span>
            ) : blocked === null ? (
              <button
                type="button"
                class="danger"
                disabled={busy !== null}
                aria-label={`Remove ${entry.label}`}
                onClick={() => void remove(entry.id)}
              >
                {busy === entry.id ? 'Removing…' : 'Remove'}
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      <ErrorNote error={error} context="Could not remove it" />
    </>
  )
}

function PutCredential({
  source,
  words,
  onChange,
}: {
  source: SourceEntry
  words: CredentialWords
  onChange: (entry: SourceEntry) => void
}) {
  const [value, setValue] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const id = `credential-${source.type}`
  const submit = async (event: Event) => {
    event.preventDefault()
    if (value.trim() === '') return
    setBusy(true)
    setError(null)
    try {
      onChange(
        await api('PUT /sources/:type/credential', {
          params: { type: source.type },
          body: { token: value.trim() },
        }),
      )
      // A secret leaves the page as soon as the service has it.
      setValue('')
      notify(
        source.credential.kind === 'multi'
          ? `${source.title}: added.`
          : `${source.title}: credential saved.`,
      )
    } catch (failure) {
      setError(toApiError(failure))
    } finally {
      setBusy(false)
    }
  }
  const field = {
    id,
    autocomplete: 'off',
    spellcheck: false,
    'aria-describedby': `${id}-hint`,
    'aria-invalid': error ? true : undefined,
    value,
    onInput: (e: Event) => setValue((e.currentTarget as HTMLInputElement).value),
  }
  return (
    <form class="put-credential" onSubmit={(e) => void submit(e)}>
      <label for={id}>{words.label}</label>
      <div class="row">
        {words.secret ? <input type="password" {...field} /> : <input type="text" {...field} />}
        <button type="submit" disabled={busy || value.trim() === ''}>
          {busy ? 'Saving…' : words.button}
        </button>
      </div>
      <p class="hint" id={`${id}-hint`}>
        {words.hint}
      </p>
      <ErrorNote
        error={error}
        context={`Could not save the ${words.label.toLowerCase()}`}
        fieldNames={{ token: words.label }}
      />
    </form>
  )
}

/** Asks the service for Google's consent URL and goes there; Google comes back to /sources. */
function ConnectDrive({ again }: { again: boolean }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const connect = async () => {
    setBusy(true)
    setError(null)
    try {
      const { url } = await api('GET /sources/csv/oauth/start')
      window.location.assign(url)
    } catch (failure) {
      setError(toApiError(failure))
      setBusy(false)
    }
  }
  return (
    <div>
      <button type="button" class="primary" disabled={busy} onClick={() => void connect()}>
        {busy ? 'Opening Google…' : again ? 'Reconnect Google Drive' : 'Connect Google Drive'}
      </button>
      <ErrorNote error={error} context="Could not start connecting Google Drive" />
    </div>
  )
}

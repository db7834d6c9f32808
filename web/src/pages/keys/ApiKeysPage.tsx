// API keys (SPEC 2.7, 4.4, 5): mint one (name and scope) and see it once, list
// them (never the keys themselves: name, prefix, scope, created, last used),
// and revoke one. Admin tier: the dashboard token only.
import { useState } from 'preact/hooks'
import { api, type ApiError, type Result } from '../../api/client.js'
import { ConfirmDialog } from '../../components/ConfirmDialog.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { AdminOnly } from '../../components/Guard.js'
import { ShownOnce } from '../../components/ShownOnce.js'
import { ago, formatTime } from '../../components/format.js'
import { toApiError, useApi } from '../../components/useApi.js'
import { notify } from '../../stores/notices.js'
import './keys.css'

type ApiKey = Result<'GET /security/api-keys'>['api_keys'][number]
type Scope = ApiKey['scope']
type Created = Result<'POST /security/api-keys'>

const SCOPES: readonly { scope: Scope; label: string; detail: string }[] = [
  { scope: 'read', label: 'Read', detail: 'every GET route: read the ledger and its events' },
  {
    scope: 'read_write',
    label: 'Read & write',
    detail: 'also edit labels, extensions and relationships, run rules and syncs, manual entries',
  },
]

function scopeLabel(scope: Scope): string {
  return SCOPES.find((s) => s.scope === scope)?.label ?? scope
}

function MintForm({ onMinted }: { onMinted: (key: Created) => void }) {
  const [name, setName] = useState('')
  const [scope, setScope] = useState<Scope>('read')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  return (
    <form
      class="card stack mint"
      aria-labelledby="mint-title"
      onSubmit={(event) => {
        event.preventDefault()
        setBusy(true)
        api('POST /security/api-keys', { body: { name: name.trim(), scope } })
          .then((created) => {
            setError(null)
            setName('')
            onMinted(created)
          })
          .catch((failure: unknown) => setError(toApiError(failure)))
          .finally(() => setBusy(false))
      }}
    >
      <h2 id="mint-title">Mint a key</h2>
      <label>
        Name
        <input
          required
          maxLength={200}
          value={name}
          placeholder="e.g. spreadsheet export"
          autocomplete="off"
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <fieldset class="scopes">
        <legend>Scope</legend>
        {SCOPES.map((s) => (
          <label class="check" key={s.scope}>
            <input
              type="radio"
              name="scope"
              value={s.scope}
              checked={scope === s.scope}
              onChange={() => setScope(s.scope)}
            />
            <span>
              <strong>{s.label}</strong> <span class="hint">{s.detail}</span>
            </span>
          </label>
        ))}
        <p class="hint">No key reaches the admin pages (webhooks, keys, credentials, settings).</p>
      </fieldset>
      <ErrorNote error={error} context="Could not mint the key" />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || name.trim() === ''}>
          {busy ? 'Minting…' : 'Mint key'}
        </button>
      </div>
    </form>
  )
}

function KeyTable({ keys, onRevoke }: { keys: readonly ApiKey[]; onRevoke: (k: ApiKey) => void }) {
  return (
    <table class="rows api-keys">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Prefix</th>
          <th scope="col">Scope</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {keys.map((k) => (
          <tr key={k.id}>
            <td class="name">{k.name}</td>
            <td class="prefix">
              <code>{k.prefix}…</code>
            </td>
            <td class="scope">
              <span class="badge">{scopeLabel(k.scope)}</span>
            </td>
            <td class="created">
              <span class="cell-label">Created </span>
              {formatTime(k.created_at)}
            </td>
            <td class="used" title={k.last_used_at ? formatTime(k.last_used_at) : undefined}>
              <span class="cell-label">Last used </span>
              {ago(k.last_used_at)}
            </td>
            <td class="revoke">
              <button
                type="button"
                class="danger"
                aria-label={`Revoke ${k.name}`}
                onClick={() => onRevoke(k)}
              >
                Revoke
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function ApiKeys() {
  const list = useApi((signal) => api('GET /security/api-keys', { signal }), [])
  const [minted, setMinted] = useState<Created | null>(null)
  const [revoking, setRevoking] = useState<ApiKey | null>(null)
  const keys = list.data?.api_keys ?? []
  return (
    <>
      <MintForm
        onMinted={(created) => {
          setMinted(created)
          list.reload()
        }}
      />
      <h2>Keys</h2>
      <ErrorNote error={list.error} context="Could not load the API keys" />
      {list.data === null && list.loading ? <p class="loading">Loading…</p> : null}
      {list.data !== null && keys.length === 0 ? (
        <p class="empty">No API keys yet. Mint one above for a script or another program.</p>
      ) : null}
      {keys.length > 0 ? <KeyTable keys={keys} onRevoke={setRevoking} /> : null}
      <p class="hint">
        “Last used” is updated at most once a minute. Only a hash of each key is kept: a lost key
        cannot be shown again; revoke it and mint another.
      </p>

      <ShownOnce
        title="API key created"
        label="API key"
        value={minted?.key ?? null}
        onClose={() => setMinted(null)}
      >
        <p>
          <strong>{minted?.name}</strong> ({minted ? scopeLabel(minted.scope) : ''}). Send it as{' '}
          <code>Authorization: Bearer &lt;key&gt;</code>.
        </p>
      </ShownOnce>

      <ConfirmDialog
        title="Revoke this API key?"
        confirm="Revoke key"
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        onConfirm={async () => {
          if (!revoking) return
          await api('DELETE /security/api-keys/:id', { params: { id: revoking.id } })
          notify(`Revoked ${revoking.name}`)
          list.reload()
        }}
      >
        <p>
          <strong>{revoking?.name}</strong> (<code>{revoking?.prefix}…</code>) stops working at
          once: every program that uses it is refused from now on. This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  )
}

export function ApiKeysPage() {
  return (
    <section>
      <div class="page-head">
        <h1>API keys</h1>
      </div>
      <AdminOnly>
        <ApiKeys />
      </AdminOnly>
    </section>
  )
}

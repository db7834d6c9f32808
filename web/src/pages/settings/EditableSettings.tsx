// Editable settings (CONTRACT 10; admin): every setting with its value, where the
// value comes from, and whether it waits for a restart; change or remove a stored
// value in place, and restart the service from here when something waits.
import { useState } from 'preact/hooks'
import { api, type ApiError, type Result } from '../../api/client.js'
import { ConfirmDialog } from '../../components/ConfirmDialog.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { toApiError, useApi } from '../../components/useApi.js'
import { notify } from '../../stores/notices.js'

type Setting = Result<'GET /settings'>['settings'][number]

/** How long the page waits for the service to come back after a restart. */
const RESTART_WAIT_MS = 30_000
const RESTART_POLL_MS = 500

const ORIGIN_WORDS: Record<Setting['origin'], string> = {
  default: 'default',
  file: 'config file',
  env: 'environment',
  stored: 'stored here',
}

/** The text a person edits for a value (secrets start empty: never shown). */
function draftOf(setting: Setting): string {
  if (setting.secret || setting.value === null || setting.value === undefined) return ''
  return typeof setting.value === 'string' ? setting.value : JSON.stringify(setting.value)
}

/**
 * The JSON value to send for a draft: an int's digits as a number, anything else as
 * text; the service checks it with the config file's rules and names a problem.
 */
function valueOf(setting: Setting, draft: string): unknown {
  if (setting.kind === 'int' && /^-?\d+$/.test(draft.trim())) return Number(draft.trim())
  if (setting.kind === 'json') {
    try {
      return JSON.parse(draft) as unknown
    } catch {
      return draft
    }
  }
  return draft
}

function SettingRow({ setting, onChanged }: { setting: Setting; onChanged: () => void }) {
  const [draft, setDraft] = useState(draftOf(setting))
  const [checked, setChecked] = useState(setting.value === true)
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const id = `setting-${setting.key.replace(/\W/g, '-')}`

  const run = async (action: () => Promise<unknown>, done: string) => {
    setBusy(true)
    try {
      await action()
      setError(null)
      notify(done)
      onChanged()
    } catch (failure) {
      setError(toApiError(failure))
    } finally {
      setBusy(false)
    }
  }
  const save = () =>
    run(
      () =>
        api('PUT /settings/:key', {
          params: { key: setting.key },
          body: { value: setting.kind === 'bool' ? checked : valueOf(setting, draft) },
        }),
      `Saved ${setting.key}`,
    )
  const reset = () =>
    run(
      () => api('DELETE /settings/:key', { params: { key: setting.key } }),
      `Removed the stored ${setting.key}`,
    )

  let input
  if (setting.kind === 'bool') {
    input = (
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(e) => setChecked(e.currentTarget.checked)}
      />
    )
  } else if (setting.kind === 'enum') {
    input = (
      <select id={id} value={draft} onChange={(e) => setDraft(e.currentTarget.value)}>
        {(setting.enum ?? []).map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    )
  } else if (setting.secret) {
    input = (
      <input
        id={id}
        type="password"
        autocomplete="off"
        value={draft}
        placeholder={setting.set ? 'set (hidden)' : 'not set'}
        onInput={(e) => setDraft(e.currentTarget.value)}
      />
    )
  } else {
    input = (
      <input
        id={id}
        type="text"
        autocomplete="off"
        value={draft}
        onInput={(e) => setDraft(e.currentTarget.value)}
      />
    )
  }

  return (
    <li class="setting" data-key={setting.key}>
      <div class="setting-head">
        <label for={id}>
          <code>{setting.key}</code>
        </label>
        <span class="badge">{ORIGIN_WORDS[setting.origin]}</span>
        {setting.secret ? (
          <span class="badge">{setting.set ? 'secret: set' : 'secret: not set'}</span>
        ) : null}
        {setting.restart_required ? <span class="badge bad">Restart required</span> : null}
      </div>
      <p class="hint">{setting.title}</p>
      <div class="setting-edit">
        {input}
        <button type="button" class="primary" disabled={busy} onClick={() => void save()}>
          Save
        </button>
        {setting.origin === 'stored' ? (
          <button type="button" disabled={busy} onClick={() => void reset()}>
            Reset
          </button>
        ) : null}
      </div>
      <ErrorNote error={error} context={`Could not save ${setting.key}`} />
    </li>
  )
}

/** Polls until the service answers again after a restart (or gives up). */
async function backAfterRestart(): Promise<boolean> {
  const deadline = Date.now() + RESTART_WAIT_MS
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, RESTART_POLL_MS))
    try {
      await api('GET /settings')
      return true
    } catch {
      // draining or starting: try again
    }
  }
  return false
}

export function EditableSettings() {
  const list = useApi((signal) => api('GET /settings', { signal }), [])
  const [confirming, setConfirming] = useState(false)
  const [restarting, setRestarting] = useState(false)
  const changed = () => list.reload()

  const settings = list.data?.settings ?? []
  const sections = new Map<string, Setting[]>()
  for (const setting of settings) {
    const section = setting.key.slice(0, setting.key.indexOf('.'))
    sections.set(section, [...(sections.get(section) ?? []), setting])
  }

  return (
    <>
      <ErrorNote error={list.error} context="Could not load the settings" />
      {list.data === null && list.loading ? <p class="loading">Loading…</p> : null}
      {list.data?.restart_required || restarting ? (
        <div class="notice" role="status">
          <p>
            {restarting
              ? 'Restarting the service…'
              : 'Some changes wait for a restart of the service.'}
          </p>
          {restarting ? null : (
            <button type="button" class="primary" onClick={() => setConfirming(true)}>
              Restart now
            </button>
          )}
        </div>
      ) : null}
      <div class="settings-sections">
        {[...sections].map(([section, entries]) => (
          <div class="card" key={section}>
            <h2>{section}</h2>
            <ul class="setting-list">
              {entries.map((setting) => (
                <SettingRow
                  // A row starts again from the service's answer whenever that changes.
                  key={`${setting.key}:${setting.origin}:${JSON.stringify(setting.value)}:${String(setting.set)}`}
                  setting={setting}
                  onChanged={changed}
                />
              ))}
            </ul>
          </div>
        ))}
      </div>
      <ConfirmDialog
        title="Restart the service?"
        confirm="Restart"
        open={confirming}
        onClose={() => setConfirming(false)}
        onConfirm={async () => {
          await api('POST /system/restart')
          setConfirming(false)
          setRestarting(true)
          const back = await backAfterRestart()
          setRestarting(false)
          notify(
            back ? 'The service restarted' : 'The service did not come back',
            back ? 'ok' : 'error',
          )
          changed()
        }}
      >
        <p>
          Requests in flight finish, open event streams close, and the service starts again on the
          same address with the waiting settings applied. It takes a few seconds.
        </p>
      </ConfirmDialog>
    </>
  )
}

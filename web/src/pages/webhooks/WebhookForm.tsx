// The fields of a webhook, for creating one and for editing it: the URL, the
// event types (every type, or a checklist), and on edit whether it is enabled.
import { useState } from 'preact/hooks'
import type { ApiError } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { toApiError } from '../../components/useApi.js'
import { ALL_TYPES, EVENT_GROUPS, subscribesToAll } from './event-types.js'

export interface WebhookFields {
  url: string
  event_types: string[]
  enabled: boolean
}

export function WebhookForm({
  initial,
  withEnabled,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial: WebhookFields
  /** A new webhook is always enabled; only an existing one can be switched off. */
  withEnabled: boolean
  submitLabel: string
  onSubmit: (fields: WebhookFields) => Promise<void>
  onCancel: () => void
}) {
  const [url, setUrl] = useState(initial.url)
  const [all, setAll] = useState(subscribesToAll(initial.event_types))
  const [chosen, setChosen] = useState<ReadonlySet<string>>(
    new Set(initial.event_types.filter((t) => t !== ALL_TYPES)),
  )
  const [enabled, setEnabled] = useState(initial.enabled)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  // An empty list would mean "every type" to the service: never send one by accident.
  const nothingChosen = !all && chosen.size === 0
  const urlError = error?.errors.find((e) => e.field === 'url')

  const toggle = (type: string, on: boolean) => {
    const next = new Set(chosen)
    if (on) next.add(type)
    else next.delete(type)
    setChosen(next)
  }

  return (
    <form
      class="stack webhook-form"
      onSubmit={(event) => {
        event.preventDefault()
        if (nothingChosen) return
        setBusy(true)
        // In the checklist's order, so that the stored list reads like the form.
        const types = all
          ? [ALL_TYPES]
          : EVENT_GROUPS.flatMap((g) => g.types).filter((t) => chosen.has(t))
        onSubmit({ url: url.trim(), event_types: types, enabled })
          .then(() => setError(null))
          .catch((failure: unknown) => setError(toApiError(failure)))
          .finally(() => setBusy(false))
      }}
    >
      <label>
        URL that receives the deliveries
        <input
          type="url"
          required
          value={url}
          placeholder="https://example.com/coffer-hook"
          spellcheck={false}
          autocomplete="off"
          aria-invalid={urlError ? true : undefined}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
      </label>
      <fieldset class="event-types">
        <legend>Events</legend>
        <label class="check all-events">
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} />
          All events, including types added in later versions
        </label>
        <div class="event-groups">
          {EVENT_GROUPS.map((group) => (
            <div key={group.group} class="event-group" role="group" aria-label={group.group}>
              <div class="hint">{group.group}</div>
              {group.types.map((type) => (
                <label class="check" key={type}>
                  <input
                    type="checkbox"
                    checked={all || chosen.has(type)}
                    disabled={all}
                    onChange={(e) => toggle(type, e.currentTarget.checked)}
                  />
                  <code>{type}</code>
                </label>
              ))}
            </div>
          ))}
        </div>
        {nothingChosen ? (
          <p class="hint" role="note">
            Choose at least one event type, or all events.
          </p>
        ) : null}
      </fieldset>
      {withEnabled ? (
        <label class="check">
          <input
            type="checkbox"
            checked={enabled}
            onChange={(e) => setEnabled(e.currentTarget.checked)}
          />
          Enabled (a disabled webhook receives nothing)
        </label>
      ) : null}
      <ErrorNote error={error} context="The service refused the webhook" />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || nothingChosen}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  )
}

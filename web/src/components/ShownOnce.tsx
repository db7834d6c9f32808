// A secret the service returns once (a webhook's signing secret, an API key):
// shown in a dialog that says so, with a copy button, until the person closes it.
import type { ComponentChildren } from 'preact'
import { useId } from 'preact/hooks'
import { CopyButton } from './CopyButton.js'
import { Dialog } from './Dialog.js'

/** "Signing secret" → "signing secret", but "API key" stays. */
function lowerFirst(text: string): string {
  return text.replace(/^[A-Z](?![A-Z])/, (c) => c.toLowerCase())
}

export function ShownOnce({
  title,
  label,
  value,
  onClose,
  children,
}: {
  title: string
  /** What the value is ("Signing secret", "API key"), for the copy button and the reader. */
  label: string
  /** The secret, or null when there is nothing to show (the dialog is closed). */
  value: string | null
  onClose: () => void
  children?: ComponentChildren
}) {
  const labelId = useId()
  return (
    <Dialog title={title} open={value !== null} onClose={onClose}>
      {value !== null ? (
        <div class="stack">
          {children}
          <p class="notice" role="note">
            <strong>Copy it now: you will not see it again.</strong> The service keeps no copy it
            can show; if it is lost, make a new one.
          </p>
          <div class="secret">
            <div class="hint" id={labelId}>
              {label}
            </div>
            <code aria-labelledby={labelId}>{value}</code>
          </div>
          <div class="actions">
            <CopyButton value={value} label={`Copy ${lowerFirst(label)}`} />
            <button type="button" class="primary" onClick={onClose}>
              I have copied it
            </button>
          </div>
        </div>
      ) : null}
    </Dialog>
  )
}

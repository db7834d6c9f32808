// "Are you sure?" for an action that cannot be undone (delete, revoke, rotate):
// what will happen in words, a cancel that is the easy way out, and the
// failure shown in place when the service refuses.
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import type { ApiError } from '../api/client.js'
import { Dialog } from './Dialog.js'
import { ErrorNote } from './ErrorNote.js'
import { toApiError } from './useApi.js'

export function ConfirmDialog({
  title,
  confirm,
  open,
  onClose,
  onConfirm,
  danger = true,
  children,
}: {
  title: string
  /** The confirming button's words ("Delete webhook"). */
  confirm: string
  open: boolean
  onClose: () => void
  /** Runs the action; a rejection is shown in the dialog, which then stays open. */
  onConfirm: () => Promise<void>
  danger?: boolean
  children: ComponentChildren
}) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const close = () => {
    setError(null)
    onClose()
  }
  return (
    <Dialog title={title} open={open} onClose={close}>
      <div class="stack">
        {children}
        <ErrorNote error={error} context={`Could not ${confirm.toLowerCase()}`} />
        <div class="actions">
          <button
            type="button"
            class={danger ? 'danger' : 'primary'}
            disabled={busy}
            onClick={() => {
              setBusy(true)
              onConfirm()
                .then(() => {
                  setError(null)
                  onClose()
                })
                .catch((failure: unknown) => setError(toApiError(failure)))
                .finally(() => setBusy(false))
            }}
          >
            {busy ? 'Working…' : confirm}
          </button>
          <button type="button" onClick={close}>
            Cancel
          </button>
        </div>
      </div>
    </Dialog>
  )
}

// A modal dialog on the native <dialog> element: focus moves into it, Escape
// closes it, and the page behind cannot be reached while it is open.
import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'

export function Dialog({
  title,
  open,
  onClose,
  children,
  wide,
}: {
  title: string
  open: boolean
  onClose: () => void
  children: ComponentChildren
  wide?: boolean
}) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) dialog.showModal()
    if (!open && dialog.open) dialog.close()
  }, [open])
  return (
    <dialog
      ref={ref}
      class={wide ? 'wide' : undefined}
      aria-label={title}
      onClose={onClose}
      onCancel={(event) => {
        event.preventDefault()
        onClose()
      }}
    >
      {open ? (
        <>
          <header>
            <h2>{title}</h2>
            <button type="button" class="icon" aria-label="Close" onClick={onClose}>
              ×
            </button>
          </header>
          <div class="dialog-body">{children}</div>
        </>
      ) : null}
    </dialog>
  )
}

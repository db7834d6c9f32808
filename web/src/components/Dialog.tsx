// A modal dialog on the native <dialog> element: focus moves into it, Escape
// closes it, and the page behind cannot be reached while it is open.
import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'

/**
 * The control focused last outside any dialog. Closing a dialog gives focus
 * back to what was focused when it opened; when that was nothing (its opener
 * was disabled by the request it started, as "Mint key" is, or another dialog
 * opened it, as a rotation's confirmation does), it goes to this control, or,
 * when that is disabled now (an emptied form's submit), to its form's first field.
 */
let lastOutside: HTMLElement | null = null
document.addEventListener('focusin', (event) => {
  const target = event.target
  if (target instanceof HTMLElement && target.closest('dialog') === null) lastOutside = target
})

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
    if (!open && dialog.open) {
      dialog.close()
      const active = document.activeElement
      if ((active === null || active === document.body) && lastOutside?.isConnected) {
        const disabled = lastOutside.matches(':disabled')
        const form = lastOutside.closest('form')
        const field = form?.querySelector<HTMLElement>('input, select, textarea, button:enabled')
        ;(disabled ? field : lastOutside)?.focus()
      }
    }
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

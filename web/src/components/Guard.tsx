// Controls that depend on what the credential reaches (SPEC 5.1): hidden or
// disabled for a read-only key, with the reason said once per page.
import type { ComponentChildren } from 'preact'
import { adminBlocked, writeBlocked } from '../stores/session.js'

/** Renders its children only when the credential may write. */
export function IfWrite({ children }: { children: ComponentChildren }) {
  return writeBlocked.value === null ? <>{children}</> : null
}

/** The reason writes are off on this page, shown once, or nothing. */
export function ReadOnlyNotice() {
  const reason = writeBlocked.value
  return reason === null ? null : (
    <p class="notice" role="note">
      Read-only: {reason}
    </p>
  )
}

/** An admin page's body, or why it cannot be shown. */
export function AdminOnly({ children }: { children: ComponentChildren }) {
  const reason = adminBlocked.value
  if (reason === null) return <>{children}</>
  return (
    <div class="notice" role="note">
      <p>{reason}</p>
      <p>
        <a href="/setup">How to set up the dashboard token</a>
      </p>
    </div>
  )
}

// The frame of every page: the navigation (a sidebar on a wide screen, a menu
// button on a phone), who is signed in, and the notices.
import type { ComponentChildren } from 'preact'
import { useLocation } from 'preact-iso'
import { useEffect, useRef, useState } from 'preact/hooks'
import { PluginPagesNav } from '../pages/plugins/PluginPagesNav.js'
import { dismiss, notices } from '../stores/notices.js'
import { access, authStatus, signOut } from '../stores/session.js'

export interface NavItem {
  path: string
  label: string
  /** Keyboard shortcut after `g` (g t: transactions). */
  key?: string
}

export const NAV: readonly { group: string; items: readonly NavItem[] }[] = [
  {
    group: 'Ledger',
    items: [
      { path: '/transactions', label: 'Transactions', key: 't' },
      { path: '/accounts', label: 'Accounts', key: 'a' },
      { path: '/reports', label: 'Reports', key: 'r' },
      { path: '/rules', label: 'Rules', key: 'u' },
    ],
  },
  {
    group: 'Data',
    items: [
      { path: '/sources', label: 'Sources', key: 's' },
      { path: '/events', label: 'Events', key: 'e' },
    ],
  },
  {
    group: 'Admin',
    items: [
      { path: '/webhooks', label: 'Webhooks', key: 'w' },
      { path: '/keys', label: 'API keys', key: 'k' },
      { path: '/settings', label: 'Settings' },
      { path: '/plugins', label: 'Plugins' },
      { path: '/update', label: 'Update' },
    ],
  },
]

const ACCESS_LABEL: Record<string, string> = {
  admin: 'Dashboard token',
  read_write: 'Read & write',
  read: 'Read only',
  none: 'Signed out',
}

/** `g` then a letter goes to a page; `/` focuses the page's search box. */
function useShortcuts(route: (path: string) => void): void {
  // The router's `route` changes with every page. The listener reads the latest
  // and stays registered: registered again after each page's paint, it lost a
  // `g` pressed just before (the next letter then went nowhere).
  const latestRoute = useRef(route)
  latestRoute.current = route
  useEffect(() => {
    // After a `g`, until the next key or 1.5 s. The timer is the state: a `g`
    // pressed again must not be ended by the timer of an earlier one.
    let pending: ReturnType<typeof setTimeout> | null = null
    const endPending = () => {
      if (pending !== null) clearTimeout(pending)
      pending = null
    }
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null
      if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return
      if (target?.isContentEditable || event.metaKey || event.ctrlKey || event.altKey) return
      if (event.key === '/') {
        const search = document.querySelector<HTMLInputElement>('input[type="search"]')
        if (search) {
          event.preventDefault()
          search.focus()
        }
        return
      }
      if (pending !== null) {
        endPending()
        const item = NAV.flatMap((g) => g.items).find((i) => i.key === event.key)
        if (item) latestRoute.current(item.path)
        return
      }
      if (event.key === 'g') pending = setTimeout(() => (pending = null), 1500)
    }
    window.addEventListener('keydown', onKey)
    return () => {
      window.removeEventListener('keydown', onKey)
      endPending()
    }
  }, [])
}

export function Layout({ children }: { children: ComponentChildren }) {
  const { path, route } = useLocation()
  const [menuOpen, setMenuOpen] = useState(false)
  useShortcuts(route)
  const menuButton = useRef<HTMLButtonElement>(null)
  useEffect(() => setMenuOpen(false), [path])
  // Escape closes the open menu and puts focus back on its button.
  useEffect(() => {
    if (!menuOpen) return
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return
      setMenuOpen(false)
      menuButton.current?.focus()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [menuOpen])
  const status = authStatus.value

  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <button
          ref={menuButton}
          type="button"
          class="menu-button"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <a href="/transactions" class="brand">
          Coffer
        </a>
        <span class="who">
          <span class={`badge access-${access.value}`}>{ACCESS_LABEL[access.value]}</span>
          {status?.auth_required && status.authenticated ? (
            <button type="button" class="link" onClick={() => void signOut()}>
              Sign out
            </button>
          ) : null}
        </span>
      </header>
      <nav id="nav" class={menuOpen ? 'open' : undefined} aria-label="Main">
        {NAV.map((group) => (
          <div class="nav-group" key={group.group}>
            <div class="nav-title">{group.group}</div>
            {group.items.map((item) => (
              <a
                key={item.path}
                href={item.path}
                aria-current={
                  path === item.path || path.startsWith(`${item.path}/`) ? 'page' : undefined
                }
              >
                {item.label}
                {item.key ? <kbd aria-hidden="true">g {item.key}</kbd> : null}
              </a>
            ))}
          </div>
        ))}
        <PluginPagesNav path={path} />
      </nav>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <div class="notices" aria-live="polite">
        {notices.value.map((n) => (
          <div key={n.id} class={`toast ${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'}>
            <span>{n.text}</span>
            <button type="button" class="icon" aria-label="Dismiss" onClick={() => dismiss(n.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </div>
  )
}

// The "Plugin pages" group of the navigation: one link per page an enabled
// plugin adds (/ext/<name>); nothing while there is none.
import { useEffect } from 'preact/hooks'
import { access } from '../../stores/session.js'
import { iconOf, pluginPages, refreshPluginPages } from './plugin-pages.js'

export function PluginPagesNav({ path }: { path: string }) {
  const who = access.value
  useEffect(() => void refreshPluginPages(), [who])
  const pages = pluginPages.value
  if (pages.length === 0) return null
  return (
    <div class="nav-group">
      <div class="nav-title">Plugin pages</div>
      {pages.map((page) => {
        const href = `/ext/${encodeURIComponent(page.name)}`
        const icon = iconOf(page)
        return (
          <a key={page.name} href={href} aria-current={path === href ? 'page' : undefined}>
            <span>
              {icon ? (
                <span class="nav-icon" aria-hidden="true">
                  {icon}{' '}
                </span>
              ) : null}
              {page.title}
            </span>
          </a>
        )
      })}
    </div>
  )
}

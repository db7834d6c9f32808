// The pages that enabled plugins add (GET /plugins/pages, read tier), kept for
// the navigation: loaded when the frame mounts or the credential changes, and
// again after the Plugins page enables, disables, reloads or removes one.
import { signal } from '@preact/signals'
import { api, type Result } from '../../api/client.js'

export type PluginPageLink = Result<'GET /plugins/pages'>['pages'][number]

export const pluginPages = signal<readonly PluginPageLink[]>([])

export async function refreshPluginPages(): Promise<void> {
  try {
    pluginPages.value = (await api('GET /plugins/pages')).pages
  } catch {
    // Plugins off, or the service not answering: the navigation just has no such group.
    pluginPages.value = []
  }
}

/** An icon short enough to be a symbol (an emoji), or nothing: never markup. */
export function iconOf(page: PluginPageLink): string | null {
  const icon = page.icon?.trim() ?? ''
  return icon !== '' && [...icon].length <= 2 ? icon : null
}

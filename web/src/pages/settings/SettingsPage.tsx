// Settings: the editable settings (admin, EditableSettings.tsx), then the
// effective configuration the service runs with (GET /config, read tier,
// secrets already redacted by the service), one table per section.
import { Fragment } from 'preact'
import { api } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { AdminOnly } from '../../components/Guard.js'
import { useApi } from '../../components/useApi.js'
import { EditableSettings } from './EditableSettings.js'
import './settings.css'

/** A configuration value as a person reads it: text as is, anything else as compact JSON. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return '—'
  if (typeof value === 'string') return value === '' ? '""' : value
  return JSON.stringify(value)
}

export function SettingsPage() {
  const config = useApi((signal) => api('GET /config', { signal }), [])
  const sections = Object.entries(config.data ?? {}).filter(
    (entry): entry is [string, Record<string, unknown>] =>
      entry[1] !== null && typeof entry[1] === 'object' && !Array.isArray(entry[1]),
  )
  return (
    <section>
      <div class="page-head">
        <h1>Settings</h1>
      </div>
      <h2>Editable settings</h2>
      <p class="hint">
        A stored value wins over <code>coffer.toml</code> and the <code>SERVICE_*</code>{' '}
        environment. Some apply at once; the others wait for a restart.
      </p>
      <AdminOnly>
        <EditableSettings />
      </AdminOnly>
      <h2>Effective configuration</h2>
      <p class="hint">The configuration the service runs with now. Secrets are never shown.</p>
      <ErrorNote error={config.error} context="Could not load the configuration" />
      {config.loading && !config.data ? <p class="loading">Loading…</p> : null}
      <div class="settings-sections">
        {sections.map(([section, keys]) => (
          <div class="card" key={section}>
            <h2>{section}</h2>
            <dl class="kv">
              {Object.entries(keys).map(([key, value]) => (
                <Fragment key={key}>
                  <dt>
                    <code>
                      {section}.{key}
                    </code>
                  </dt>
                  <dd>
                    <code class="config-value">{shown(value)}</code>
                  </dd>
                </Fragment>
              ))}
            </dl>
          </div>
        ))}
      </div>
    </section>
  )
}

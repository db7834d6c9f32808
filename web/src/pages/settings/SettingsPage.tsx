// Settings: until editable settings land (issue 14), the effective configuration
// the service runs with (GET /config, secrets already redacted by the service),
// one table per section, and where to change it.
import { Fragment } from 'preact'
import { api } from '../../api/client.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { useApi } from '../../components/useApi.js'
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
      <div class="notice" role="note">
        <p>
          <strong>Settings cannot be edited from the dashboard in this version of Coffer.</strong>
        </p>
        <p>
          Below is the configuration the service runs with. Change a value in{' '}
          <code>coffer.toml</code> or with its <code>SERVICE_&lt;SECTION&gt;_&lt;KEY&gt;</code>{' '}
          environment variable, then restart the service. Secrets are never shown.
        </p>
      </div>
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

// Plugins (CONTRACT 9): every plugin found in plugins.dir with its state and
// health (read tier), and for the dashboard token enable (granting hosts to a
// plugin that may fetch), disable, reload, remove, its network attempts, and
// the marketplace.
import { useState } from 'preact/hooks'
import { api } from '../../api/client.js'
import { ConfirmDialog } from '../../components/ConfirmDialog.js'
import { Dialog } from '../../components/Dialog.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { toApiError, useApi } from '../../components/useApi.js'
import { notify } from '../../stores/notices.js'
import { adminBlocked } from '../../stores/session.js'
import { Marketplace } from './Marketplace.js'
import { PluginCard } from './PluginCard.js'
import { fetchesNetwork, hostsOf, type Plugin } from './plugin-health.js'
import { refreshPluginPages } from './plugin-pages.js'
import './plugins.css'

/** Says whether the plugin came up: enabling a broken plugin answers 200 with state error. */
function enabledNotice(plugin: Plugin): void {
  if (plugin.state === 'loaded') notify(`Enabled ${plugin.name}`)
  else
    notify(
      `${plugin.name} is enabled but did not load${plugin.last_error ? `: ${plugin.last_error}` : ''}`,
      'error',
    )
}

/** Which hosts to grant a plugin with net:fetch, asked before it is enabled. */
function EnableForm({
  plugin,
  onCancel,
  onDone,
}: {
  plugin: Plugin
  onCancel: () => void
  onDone: (plugin: Plugin) => void
}) {
  const [hosts, setHosts] = useState(plugin.net_grants.join('\n'))
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null)
  return (
    <form
      class="stack"
      onSubmit={(event) => {
        event.preventDefault()
        setBusy(true)
        api('POST /plugins/:id/enable', {
          params: { id: plugin.id },
          body: { net_grants: hostsOf(hosts) },
        })
          .then(onDone)
          .catch((failure: unknown) => setError(toApiError(failure)))
          .finally(() => setBusy(false))
      }}
    >
      <p>
        <strong>{plugin.name}</strong> may fetch over https from the hosts its manifest lists in{' '}
        <code>[net] allow</code>. Private, loopback and link-local addresses are refused, unless you
        grant the host here (a granted host may also be reached over plain http).
      </p>
      <label>
        Hosts to grant (optional, one per line)
        <textarea
          class="grants"
          value={hosts}
          rows={4}
          spellcheck={false}
          autocapitalize="off"
          placeholder="nas.home.arpa"
          onInput={(event) => setHosts(event.currentTarget.value)}
        />
      </label>
      <ErrorNote error={error} context="Could not enable the plugin" />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Enabling…' : 'Enable plugin'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  )
}

function Off() {
  return (
    <div class="notice" role="note">
      <p>
        <strong>Plugins are turned off in the configuration.</strong>
      </p>
      <p>
        Set <code>plugins.enabled</code> to <code>true</code> in <a href="/settings">Settings</a> or
        the configuration file, then restart the service: no plugin runs until then.
      </p>
    </div>
  )
}

export function PluginsPage() {
  const list = useApi((signal) => api('GET /plugins', { signal }), [])
  const [busy, setBusy] = useState<string | null>(null)
  const [enabling, setEnabling] = useState<Plugin | null>(null)
  const [removing, setRemoving] = useState<Plugin | null>(null)
  const blocked = adminBlocked.value

  const changed = () => {
    list.reload()
    void refreshPluginPages()
  }

  /** Enable (straight away unless the plugin may fetch), disable or reload, said in a notice. */
  const lifecycle = async (plugin: Plugin, action: 'enable' | 'disable' | 'reload') => {
    setBusy(plugin.id)
    try {
      const params = { id: plugin.id }
      if (action === 'enable') {
        enabledNotice(await api('POST /plugins/:id/enable', { params, body: {} }))
      } else if (action === 'disable') {
        await api('POST /plugins/:id/disable', { params })
        notify(`Disabled ${plugin.name}`)
      } else {
        const reloaded = await api('POST /plugins/:id/reload', { params })
        if (reloaded.state === 'error')
          notify(`${plugin.name} did not load: ${reloaded.last_error ?? 'unknown error'}`, 'error')
        else notify(`Reloaded ${plugin.name}`)
      }
    } catch (failure) {
      notify(`Could not ${action} ${plugin.name}: ${toApiError(failure).detail}`, 'error')
    } finally {
      setBusy(null)
      changed()
    }
  }

  const data = list.data
  const plugins = data?.plugins ?? []
  return (
    <section>
      <div class="page-head">
        <h1>Plugins</h1>
      </div>
      <ErrorNote error={list.error} context="Could not load the plugins" />
      {data === null && list.loading ? <p class="loading">Loading…</p> : null}
      {data !== null && !data.enabled ? <Off /> : null}
      {data?.enabled ? (
        <>
          <p class="hint">
            Plugins run sandboxed, with only the capabilities their manifest asks for. A new plugin
            (copied into <code>plugins.dir</code> or installed below) starts disabled.
          </p>
          {blocked !== null ? (
            <div class="notice" role="note">
              <p>
                Enabling, disabling, reloading, removing and installing plugins is admin only:{' '}
                {blocked}
              </p>
            </div>
          ) : null}
          {plugins.length === 0 ? (
            <div class="card empty-state">
              <p>No plugins are installed.</p>
              <p class="hint">
                Put a folder with a <code>plugin.toml</code> and its entrypoint into{' '}
                <code>plugins.dir</code>, or install one from the marketplace.
              </p>
            </div>
          ) : null}
          <div class="plugin-list">
            {plugins.map((plugin) => (
              <PluginCard
                key={plugin.id}
                plugin={plugin}
                admin={blocked === null}
                busy={busy === plugin.id}
                actions={{
                  onEnable: () =>
                    fetchesNetwork(plugin) ? setEnabling(plugin) : void lifecycle(plugin, 'enable'),
                  onDisable: () => void lifecycle(plugin, 'disable'),
                  onReload: () => void lifecycle(plugin, 'reload'),
                  onRemove: () => setRemoving(plugin),
                }}
              />
            ))}
          </div>
          {blocked === null ? <Marketplace onInstalled={changed} /> : null}
        </>
      ) : null}

      <Dialog
        title={`Enable ${enabling?.name ?? ''}?`}
        open={enabling !== null}
        onClose={() => setEnabling(null)}
      >
        {enabling ? (
          <EnableForm
            key={enabling.id}
            plugin={enabling}
            onCancel={() => setEnabling(null)}
            onDone={(plugin) => {
              setEnabling(null)
              enabledNotice(plugin)
              changed()
            }}
          />
        ) : null}
      </Dialog>

      <ConfirmDialog
        title={`Remove ${removing?.name ?? ''}?`}
        confirm="Remove plugin"
        open={removing !== null}
        onClose={() => setRemoving(null)}
        onConfirm={async () => {
          if (!removing) return
          await api('DELETE /plugins/:id', { params: { id: removing.id } })
          notify(`Removed ${removing.name}`)
          changed()
        }}
      >
        <p>
          <strong>{removing?.name}</strong> runs its <code>onUninstall</code> hook (if it has one,
          for at most <code>plugins.hook_timeout</code>), then its folder and what the service keeps
          for it (enabled state, granted hosts, its place in the event log) are deleted. This cannot
          be undone.
        </p>
      </ConfirmDialog>
    </section>
  )
}

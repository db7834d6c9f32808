// Webhooks (SPEC 2.8, 4.4, 4.8; CONTRACT 6): each registration with its delivery
// health in words, and create, edit, enable or disable, send a test, rotate the
// signing secret and delete. Admin tier: the dashboard token only.
import { useState } from 'preact/hooks'
import { api, type ApiError, type Result } from '../../api/client.js'
import { ConfirmDialog } from '../../components/ConfirmDialog.js'
import { Dialog } from '../../components/Dialog.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { AdminOnly } from '../../components/Guard.js'
import { ShownOnce } from '../../components/ShownOnce.js'
import { formatTime } from '../../components/format.js'
import { toApiError, useApi } from '../../components/useApi.js'
import { notify } from '../../stores/notices.js'
import { adminBlocked } from '../../stores/session.js'
import { subscribesToAll } from './event-types.js'
import { healthOf, type Webhook } from './health.js'
import { WebhookForm } from './WebhookForm.js'
import './webhooks.css'

type TestDelivery = Result<'POST /webhooks/:id/test'>
type TestOutcome = { delivery: TestDelivery } | { failure: ApiError }

interface Secret {
  title: string
  url: string
  value: string
}

function EventList({ types }: { types: readonly string[] }) {
  if (subscribesToAll(types)) return <>All events</>
  return (
    <span class="chips">
      {types.map((t) => (
        <span class="chip" key={t}>
          {t}
        </span>
      ))}
    </span>
  )
}

function statusInWords(status: number | null, attempted: boolean): string {
  if (!attempted) return '—'
  return status === null ? 'no HTTP answer' : `HTTP ${status}`
}

/** What a test delivery did, as a sentence (CONTRACT 6: answered 200 either way). */
function TestResult({ outcome }: { outcome: TestOutcome }) {
  if ('failure' in outcome) {
    return <ErrorNote error={outcome.failure} context="The test could not be sent" />
  }
  const d = outcome.delivery
  const answer = d.status === null ? 'no HTTP answer' : `HTTP ${d.status}`
  return (
    <p class={d.delivered ? 'test-result ok' : 'test-result bad'} role="status">
      <strong>{d.delivered ? 'Test delivered' : 'Test not delivered'}</strong>: {answer} in{' '}
      {d.duration_ms.toLocaleString()} ms
      {d.error && d.error !== answer ? <span class="test-error">; {d.error}</span> : null}
    </p>
  )
}

function WebhookCard({
  webhook,
  test,
  testing,
  onTest,
  onEdit,
  onToggle,
  onRotate,
  onDelete,
}: {
  webhook: Webhook
  test: TestOutcome | undefined
  testing: boolean
  onTest: () => void
  onEdit: () => void
  onToggle: () => void
  onRotate: () => void
  onDelete: () => void
}) {
  const health = healthOf(webhook)
  const headingId = `webhook-${webhook.id}`
  const attempted = webhook.last_attempt_at !== null
  return (
    <article class="card webhook" aria-labelledby={headingId}>
      <div class="webhook-head">
        <h2 id={headingId}>{webhook.url}</h2>
        <span class={`badge ${health.tone}`}>{health.word}</span>
      </div>
      <p class="health">{health.sentence}</p>
      <dl class="kv">
        <dt>Events</dt>
        <dd>
          <EventList types={webhook.event_types} />
        </dd>
        <dt>Last status</dt>
        <dd>{statusInWords(webhook.last_status, attempted)}</dd>
        <dt>Last error</dt>
        <dd>{webhook.last_error ?? 'none'}</dd>
        <dt>Last attempt</dt>
        <dd>{attempted ? formatTime(webhook.last_attempt_at) : 'never'}</dd>
        <dt>Last success</dt>
        <dd>{webhook.last_success_at ? formatTime(webhook.last_success_at) : 'never'}</dd>
        <dt>Failures in a row</dt>
        <dd>{webhook.consecutive_failures.toLocaleString()}</dd>
      </dl>
      {test ? <TestResult outcome={test} /> : null}
      <div class="actions">
        <button type="button" class="primary" disabled={testing} onClick={onTest}>
          {testing ? 'Sending…' : 'Send test'}
        </button>
        <button type="button" onClick={onEdit}>
          Edit
        </button>
        <button type="button" onClick={onToggle}>
          {webhook.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" onClick={onRotate}>
          Rotate secret
        </button>
        <button type="button" class="danger" onClick={onDelete}>
          Delete
        </button>
      </div>
    </article>
  )
}

/** How a receiver checks a delivery (SPEC 4.8), said next to the secret. */
function VerifyHint() {
  return (
    <p class="hint">
      Each delivery is signed: <code>X-Service-Signature: sha256=&lt;hex&gt;</code> is the
      HMAC-SHA256, with this secret, of <code>&lt;X-Service-Timestamp&gt;.&lt;raw body&gt;</code>.
      Compare in constant time and dedupe on <code>X-Service-Event-Id</code>.
    </p>
  )
}

function Webhooks({
  creating,
  setCreating,
}: {
  creating: boolean
  setCreating: (on: boolean) => void
}) {
  const list = useApi((signal) => api('GET /webhooks', { signal }), [])
  const [editing, setEditing] = useState<Webhook | null>(null)
  const [rotating, setRotating] = useState<Webhook | null>(null)
  const [deleting, setDeleting] = useState<Webhook | null>(null)
  const [secret, setSecret] = useState<Secret | null>(null)
  const [tests, setTests] = useState<ReadonlyMap<string, TestOutcome>>(new Map())
  const [testing, setTesting] = useState<string | null>(null)

  const remember = (id: string, outcome: TestOutcome) =>
    setTests((previous) => new Map(previous).set(id, outcome))

  const sendTest = async (webhook: Webhook) => {
    setTesting(webhook.id)
    try {
      remember(webhook.id, {
        delivery: await api('POST /webhooks/:id/test', { params: { id: webhook.id } }),
      })
    } catch (failure) {
      remember(webhook.id, { failure: toApiError(failure) })
    } finally {
      setTesting(null)
      list.reload() // a test is a real attempt: the health changed
    }
  }

  const toggle = async (webhook: Webhook) => {
    try {
      await api('PUT /webhooks/:id', {
        params: { id: webhook.id },
        body: { enabled: !webhook.enabled },
      })
      notify(`${webhook.enabled ? 'Disabled' : 'Enabled'} ${webhook.url}`)
    } catch (failure) {
      notify(`Could not change ${webhook.url}: ${toApiError(failure).detail}`, 'error')
    }
    list.reload()
  }

  const webhooks = list.data?.webhooks ?? []
  return (
    <>
      <ErrorNote error={list.error} context="Could not load the webhooks" />
      {list.data === null && list.loading ? <p class="loading">Loading…</p> : null}
      {list.data !== null && webhooks.length === 0 ? (
        <div class="card empty-state">
          <p>No webhooks yet.</p>
          <p class="hint">
            A webhook receives a signed POST for every event it subscribes to, soon after the change
            is committed. Missed deliveries can be caught up by polling the events.
          </p>
        </div>
      ) : null}
      {webhooks.map((webhook) => (
        <WebhookCard
          key={webhook.id}
          webhook={webhook}
          test={tests.get(webhook.id)}
          testing={testing === webhook.id}
          onTest={() => void sendTest(webhook)}
          onEdit={() => setEditing(webhook)}
          onToggle={() => void toggle(webhook)}
          onRotate={() => setRotating(webhook)}
          onDelete={() => setDeleting(webhook)}
        />
      ))}

      <Dialog title="New webhook" open={creating} onClose={() => setCreating(false)} wide>
        <WebhookForm
          initial={{ url: '', event_types: ['*'], enabled: true }}
          withEnabled={false}
          submitLabel="Create webhook"
          onCancel={() => setCreating(false)}
          onSubmit={async ({ url, event_types }) => {
            const created = await api('POST /webhooks', { body: { url, event_types } })
            setCreating(false)
            setSecret({ title: 'Webhook created', url: created.url, value: created.secret })
            list.reload()
          }}
        />
      </Dialog>

      <Dialog title="Edit webhook" open={editing !== null} onClose={() => setEditing(null)} wide>
        {editing ? (
          <WebhookForm
            key={editing.id}
            initial={editing}
            withEnabled
            submitLabel="Save changes"
            onCancel={() => setEditing(null)}
            onSubmit={async (fields) => {
              await api('PUT /webhooks/:id', { params: { id: editing.id }, body: fields })
              setEditing(null)
              notify('Webhook saved')
              list.reload()
            }}
          />
        ) : null}
      </Dialog>

      <ConfirmDialog
        title="Rotate the signing secret?"
        confirm="Rotate secret"
        open={rotating !== null}
        onClose={() => setRotating(null)}
        onConfirm={async () => {
          if (!rotating) return
          const rotated = await api('POST /webhooks/:id/rotate-secret', {
            params: { id: rotating.id },
          })
          setSecret({ title: 'New signing secret', url: rotated.url, value: rotated.secret })
          list.reload()
        }}
      >
        <p>
          A new secret signs every delivery to <strong>{rotating?.url}</strong> from now on. The
          current one stops verifying at once: update the receiver as soon as you have the new one.
        </p>
      </ConfirmDialog>

      <ConfirmDialog
        title="Delete this webhook?"
        confirm="Delete webhook"
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return
          await api('DELETE /webhooks/:id', { params: { id: deleting.id } })
          notify(`Deleted the webhook to ${deleting.url}`)
          list.reload()
        }}
      >
        <p>
          <strong>{deleting?.url}</strong> will receive no more deliveries, and its secret is
          forgotten. This cannot be undone.
        </p>
      </ConfirmDialog>

      <ShownOnce
        title={secret?.title ?? ''}
        label="Signing secret"
        value={secret?.value ?? null}
        onClose={() => setSecret(null)}
      >
        <p>
          The signing secret of <strong>{secret?.url}</strong>.
        </p>
        <VerifyHint />
      </ShownOnce>
    </>
  )
}

export function WebhooksPage() {
  const [creating, setCreating] = useState(false)
  return (
    <section>
      <div class="page-head">
        <h1>Webhooks</h1>
        {adminBlocked.value === null ? (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New webhook
          </button>
        ) : null}
      </div>
      <AdminOnly>
        <Webhooks creating={creating} setCreating={setCreating} />
      </AdminOnly>
    </section>
  )
}

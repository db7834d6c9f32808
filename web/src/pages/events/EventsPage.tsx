// The event log, live (issue 13 item 7; SPEC 2.6, 6): the newest events that
// match the filters, then every new one as it is written, polled every 2 s.
// Pause stops polling; so does hiding the tab or leaving the page. A click on
// an event shows its whole envelope.
import { useLocation } from 'preact-iso'
import { useEffect, useState } from 'preact/hooks'
import { CopyButton } from '../../components/CopyButton.js'
import { Dialog } from '../../components/Dialog.js'
import { ErrorNote } from '../../components/ErrorNote.js'
import { formatTime } from '../../components/format.js'
import {
  ENTITY_TYPES,
  entityHref,
  EVENT_TYPES,
  eventFiltersFrom,
  eventsUrl,
  NO_EVENT_FILTERS,
  type EventFilters,
} from './event-filters.js'
import {
  FIRST_COUNT,
  POLL_MS,
  useEventTail,
  type EventEnvelope,
  type TailState,
} from './useEventTail.js'
import './events.css'

const STATE_WORDS: Record<TailState, string> = {
  loading: 'Loading…',
  live: `Live: new events appear within ${POLL_MS / 1000} s.`,
  paused: 'Paused: new events are not fetched until you resume.',
  hidden: 'Paused while this tab is in the background.',
  disabled: 'The event log is off.',
}

/** While reads fail, the tail is not live: it tries again (useEventTail) until one succeeds. */
const RECONNECTING = `Reconnecting: the event log could not be read; trying again every ${(POLL_MS * 3) / 1000} s.`

export function EventsPage() {
  const location = useLocation()
  const filters = eventFiltersFrom(location.query)
  const [paused, setPaused] = useState(false)
  const [open, setOpen] = useState<EventEnvelope | null>(null)
  const tail = useEventTail(filters, paused)
  const reconnecting = tail.error !== null && (tail.state === 'live' || tail.state === 'loading')
  const apply = (next: EventFilters) => location.route(eventsUrl(next), true)
  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_EVENT_FILTERS)

  return (
    <section class="events-page">
      <div class="page-head">
        <h1>Events</h1>
        {tail.state !== 'disabled' ? (
          <button type="button" aria-pressed={paused} onClick={() => setPaused(!paused)}>
            {paused ? 'Resume' : 'Pause'}
          </button>
        ) : null}
      </div>
      {tail.state !== 'disabled' ? <Filters filters={filters} onChange={apply} /> : null}
      {tail.state === 'disabled' ? (
        <div class="notice" role="note">
          <p>
            <strong>The event log is turned off on this service</strong> (
            <code>events.enabled = false</code>), so there are no events to show. Turn it on in the
            configuration and restart the service.
          </p>
        </div>
      ) : (
        <>
          <p class={`tail-state ${reconnecting ? 'reconnecting' : tail.state}`}>
            <span class="dot" aria-hidden="true" />
            {reconnecting ? RECONNECTING : STATE_WORDS[tail.state]}
            {tail.lastChecked ? (
              <span class="hint"> Last checked {tail.lastChecked.toLocaleTimeString()}.</span>
            ) : null}
          </p>
          <ErrorNote error={tail.error} context="Could not read the event log" />
          {tail.state !== 'loading' ? (
            <EventTable
              events={tail.events}
              fresh={tail.fresh}
              onOpen={setOpen}
              empty={
                filtered
                  ? 'No event matches these filters yet; new ones will appear here.'
                  : 'The log is empty; events appear here as the ledger changes.'
              }
            />
          ) : null}
          {tail.events.length >= FIRST_COUNT ? (
            <p class="hint">
              Showing the newest {FIRST_COUNT} at opening and everything since; the whole log is at{' '}
              <code>GET /api/v1/events</code>.
            </p>
          ) : null}
        </>
      )}
      <Dialog
        title={open ? `Event ${open.sequence}` : 'Event'}
        open={open !== null}
        onClose={() => setOpen(null)}
        wide
      >
        {open ? (
          <EventDetail
            event={open}
            onFilterEntity={() => {
              setOpen(null)
              apply({
                ...NO_EVENT_FILTERS,
                entity_type: open.entity_type,
                entity_id: open.entity_id,
              })
            }}
          />
        ) : null}
      </Dialog>
    </section>
  )
}

function Filters({
  filters,
  onChange,
}: {
  filters: EventFilters
  onChange: (f: EventFilters) => void
}) {
  const [draft, setDraft] = useState(filters.entity_id)
  useEffect(() => setDraft(filters.entity_id), [filters.entity_id])
  // Applied a moment after typing stops, like the transaction search.
  useEffect(() => {
    if (draft.trim() === filters.entity_id) return
    const timer = setTimeout(() => onChange({ ...filters, entity_id: draft.trim() }), 400)
    return () => clearTimeout(timer)
  }, [draft])
  // A type from the address bar that the list does not know (a plugin's) stays choosable.
  const types =
    EVENT_TYPES.includes(filters.type) || !filters.type
      ? EVENT_TYPES
      : [filters.type, ...EVENT_TYPES]
  return (
    <div class="filters">
      <label>
        Type
        <select
          value={filters.type}
          onChange={(e) => onChange({ ...filters, type: e.currentTarget.value })}
        >
          <option value="">any</option>
          {types.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <label>
        Entity
        <select
          value={filters.entity_type}
          onChange={(e) => onChange({ ...filters, entity_type: e.currentTarget.value })}
        >
          <option value="">any</option>
          {ENTITY_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <label class="entity-id">
        Entity id
        <input
          type="text"
          value={draft}
          spellcheck={false}
          autocomplete="off"
          placeholder="e.g. man_… or csv:checking"
          onInput={(e) => setDraft(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') onChange({ ...filters, entity_id: draft.trim() })
          }}
        />
      </label>
      {JSON.stringify(filters) !== JSON.stringify(NO_EVENT_FILTERS) ? (
        <button type="button" class="link" onClick={() => onChange(NO_EVENT_FILTERS)}>
          Clear filters
        </button>
      ) : null}
    </div>
  )
}

function EventTable({
  events,
  fresh,
  onOpen,
  empty,
}: {
  events: readonly EventEnvelope[]
  fresh: ReadonlySet<number>
  onOpen: (event: EventEnvelope) => void
  empty: string
}) {
  if (events.length === 0) return <p class="empty">{empty}</p>
  return (
    <table class="rows events">
      <thead>
        <tr>
          <th scope="col" class="num">
            #
          </th>
          <th scope="col">Type</th>
          <th scope="col">Entity</th>
          <th scope="col">When</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => (
          <tr key={event.event_id} class={fresh.has(event.sequence) ? 'fresh' : undefined}>
            <td class="num sequence">{event.sequence}</td>
            <td class="type">
              <button
                type="button"
                class="link"
                aria-haspopup="dialog"
                aria-label={`${event.type} (event ${event.sequence})`}
                onClick={() => onOpen(event)}
              >
                {event.type}
              </button>
            </td>
            <td class="entity">
              <span class="entity-type">{event.entity_type}</span>{' '}
              <code class="entity-id">{event.entity_id}</code>
            </td>
            <td class="date">
              <time dateTime={event.occurred_at}>{formatTime(event.occurred_at)}</time>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function EventDetail({
  event,
  onFilterEntity,
}: {
  event: EventEnvelope
  onFilterEntity: () => void
}) {
  const json = JSON.stringify(event, null, 2)
  const href = entityHref(event.entity_type, event.entity_id)
  return (
    <div class="stack event-detail">
      <dl class="kv">
        <dt>Type</dt>
        <dd>
          <code>{event.type}</code>
        </dd>
        <dt>Entity</dt>
        <dd>
          {event.entity_type}{' '}
          {href ? <a href={href}>{event.entity_id}</a> : <code>{event.entity_id}</code>}
        </dd>
        <dt>Occurred</dt>
        <dd>
          <time dateTime={event.occurred_at}>{formatTime(event.occurred_at)}</time>{' '}
          <span class="hint">({event.occurred_at})</span>
        </dd>
        <dt>Event id</dt>
        <dd>
          <code>{event.event_id}</code>
        </dd>
      </dl>
      <div class="actions">
        <CopyButton value={json} label="Copy JSON" />
        <button type="button" onClick={onFilterEntity}>
          Only this {event.entity_type}
        </button>
      </div>
      <pre class="envelope" role="region" aria-label="Envelope" tabIndex={0}>
        {json}
      </pre>
    </div>
  )
}

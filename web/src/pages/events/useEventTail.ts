// A live tail of the event log by polling (SPEC 6.3: a browser cannot send the
// Authorization header on an EventSource, so the dashboard polls GET /events).
// It starts from the newest events that match the filters, then asks every
// couple of seconds for those after the last sequence seen. Polling stops while
// paused, while the tab is hidden, and when the page is left.
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, ApiError, type Result } from '../../api/client.js'
import { toApiError } from '../../components/useApi.js'
import type { EventFilters } from './event-filters.js'

export type EventEnvelope = Result<'GET /events'>['events'][number]

export const FIRST_COUNT = 50
export const POLL_MS = 2000
/** One answer's worth; a full page means more is waiting, so ask again at once. */
const PAGE = 200
/** Kept on screen; older events scroll off (they stay in the log). */
const KEEP = 500

export type TailState =
  | 'loading' // the first page is on its way
  | 'live'
  | 'paused' // by the person
  | 'hidden' // the tab is in the background
  | 'disabled' // the service answers 503: the event log is turned off

export interface Tail {
  /** Newest first. */
  events: EventEnvelope[]
  state: TailState
  error: ApiError | null
  /** Sequences that arrived by polling since the page opened (to highlight them). */
  fresh: ReadonlySet<number>
  lastChecked: Date | null
}

export function useEventTail(filters: EventFilters, paused: boolean): Tail {
  const [events, setEvents] = useState<EventEnvelope[]>([])
  const [fresh, setFresh] = useState<ReadonlySet<number>>(new Set())
  const [error, setError] = useState<ApiError | null>(null)
  const [loaded, setLoaded] = useState(false)
  const [disabled, setDisabled] = useState(false)
  const [hidden, setHidden] = useState(document.visibilityState === 'hidden')
  const [lastChecked, setLastChecked] = useState<Date | null>(null)
  const cursor = useRef<number | null>(null)
  /** When the log was last asked (ms), to wait only the rest of a poll interval. */
  const checkedAt = useRef(0)
  const key = JSON.stringify(filters)

  useEffect(() => {
    const onVisibility = () => setHidden(document.visibilityState === 'hidden')
    document.addEventListener('visibilitychange', onVisibility)
    return () => document.removeEventListener('visibilitychange', onVisibility)
  }, [])

  // New filters: a new tail, from the newest matching events.
  useEffect(() => {
    const controller = new AbortController()
    cursor.current = null
    setLoaded(false)
    setEvents([])
    setFresh(new Set())
    setError(null)
    setDisabled(false)
    let retry: ReturnType<typeof setTimeout> | undefined
    const start = () =>
      api('GET /events', {
        query: { ...query(filters), newest: FIRST_COUNT },
        signal: controller.signal,
      })
        .then((page) => {
          cursor.current = page.next
          setEvents(page.events.slice().reverse())
          setError(null)
          setLoaded(true)
          checkedAt.current = Date.now()
          setLastChecked(new Date())
        })
        .catch((failure: unknown) => {
          if (controller.signal.aborted) return
          const e = toApiError(failure)
          setError(e)
          // Off stays off; anything else (unreachable, a restart) is tried again.
          if (e.status === 503) setDisabled(true)
          else retry = setTimeout(() => void start(), POLL_MS * 3)
        })
    void start()
    return () => {
      controller.abort()
      clearTimeout(retry)
    }
  }, [key])

  // Following: only while loaded, not paused and visible.
  const following = loaded && !paused && !hidden
  useEffect(() => {
    if (!following) return
    const controller = new AbortController()
    const { signal } = controller
    let timer: ReturnType<typeof setTimeout> | undefined
    const poll = async () => {
      // New filters reset the cursor before this effect is torn down; a poll
      // now would ask for the whole log from the start. The next tail's first
      // page sets the cursor and this effect starts again.
      if (cursor.current === null) return
      let again = POLL_MS
      try {
        const page = await api('GET /events', {
          query: { ...query(filters), after: cursor.current, limit: PAGE },
          signal,
        })
        if (signal.aborted) return
        cursor.current = page.next
        checkedAt.current = Date.now()
        setLastChecked(new Date())
        setError(null)
        if (page.events.length > 0) {
          const arrived = page.events.slice().reverse()
          setEvents((current) => [...arrived, ...current].slice(0, KEEP))
          setFresh((current) => new Set([...current, ...arrived.map((e) => e.sequence)]))
          if (page.events.length >= PAGE) again = 0
        }
      } catch (failure) {
        if (signal.aborted) return
        const e = toApiError(failure)
        if (e.status === 503) {
          setDisabled(true)
          setError(e)
          return
        }
        // Keep trying, but less often, while the service is unreachable.
        setError(e)
        again = POLL_MS * 3
      }
      timer = setTimeout(() => void poll(), again)
    }
    // Coming back (resume, tab shown) catches up at once; otherwise the interval runs on.
    const wait = Math.max(0, POLL_MS - (Date.now() - checkedAt.current))
    timer = setTimeout(() => void poll(), wait)
    return () => {
      controller.abort()
      clearTimeout(timer)
    }
  }, [following, key])

  const state: TailState = disabled
    ? 'disabled'
    : !loaded
      ? 'loading'
      : paused
        ? 'paused'
        : hidden
          ? 'hidden'
          : 'live'
  return { events, state, error, fresh, lastChecked }
}

function query(filters: EventFilters) {
  return {
    type: filters.type,
    entity_type: filters.entity_type,
    entity_id: filters.entity_id,
  }
}

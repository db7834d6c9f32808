// The JSON text of an event, made once however many consumers send it (SSE
// clients, webhook deliveries, plugin hooks): an envelope is not changed after
// it is published, so its text is kept beside it. An envelope made from a row
// of the log gets its text from the row's own JSON, without a second encoding.
import type { EventEnvelope } from './types.js'

/** An envelope's JSON text, or the JSON of its data as the log holds it (the text then made when first asked for). */
const texts = new WeakMap<object, string | { dataText: string }>()

const LINE_BREAK = /[\r\n]/

/** JSON.stringify(event), made at most once per envelope. */
export function eventJson(event: EventEnvelope): string {
  const kept = texts.get(event)
  if (typeof kept === 'string') return kept
  // The keys in the envelope's own order, as JSON.stringify would write them.
  // A row's JSON on one line, as this code writes it; any other is encoded anew
  // (an SSE frame's data is one line).
  const text =
    kept && !LINE_BREAK.test(kept.dataText)
      ? `{"sequence":${event.sequence},"event_id":${JSON.stringify(event.event_id)},"type":${JSON.stringify(event.type)},"entity_type":${JSON.stringify(event.entity_type)},"entity_id":${JSON.stringify(event.entity_id)},"occurred_at":${JSON.stringify(event.occurred_at)},"data":${kept.dataText}}`
      : JSON.stringify(event)
  texts.set(event, text)
  return text
}

/** JSON.stringify(value), through eventJson when `value` is an envelope it knows. */
export function jsonOf(value: unknown): string {
  if (typeof value === 'object' && value !== null && texts.has(value))
    return eventJson(value as EventEnvelope)
  return JSON.stringify(value ?? null)
}

/**
 * An envelope of the log: `data` is parsed from `dataText` when first read, and
 * its JSON text made from `dataText` when asked for. Most envelopes are only
 * passed on as text (SSE frames, webhook bodies, plugin hooks): a plugin working
 * through an import's backlog reads every event of it, and parsing each
 * snapshot it never looks at cost its follower more than reading the rows.
 */
export function envelopeFromLog(
  fields: Omit<EventEnvelope, 'data'>,
  dataText: string,
): EventEnvelope {
  let data: unknown
  let parsed = false
  const event: EventEnvelope = {
    sequence: fields.sequence,
    event_id: fields.event_id,
    type: fields.type,
    entity_type: fields.entity_type,
    entity_id: fields.entity_id,
    occurred_at: fields.occurred_at,
    get data(): unknown {
      if (!parsed) {
        data = JSON.parse(dataText) as unknown
        parsed = true
      }
      return data
    },
  }
  texts.set(event, { dataText })
  return event
}

// The JSON text of an event, made once however many consumers send it (SSE
// clients, webhook deliveries, plugin hooks): an envelope is not changed after
// it is published, so its text is kept beside it. An envelope made from a row
// of the log gets its text from the row's own JSON, without a second encoding.
import type { EventEnvelope } from './types.js'

const texts = new WeakMap<object, string>()

/** JSON.stringify(event), made at most once per envelope. */
export function eventJson(event: EventEnvelope): string {
  let text = texts.get(event)
  if (text === undefined) {
    text = JSON.stringify(event)
    texts.set(event, text)
  }
  return text
}

/** JSON.stringify(value), from eventJson's store when `value` is an envelope it holds. */
export function jsonOf(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    const text = texts.get(value)
    if (text !== undefined) return text
  }
  return JSON.stringify(value ?? null)
}

/** An envelope of the log: `data` parsed from `dataText`, its JSON text made from it as it is. */
export function envelopeFromLog(
  fields: Omit<EventEnvelope, 'data'>,
  dataText: string,
): EventEnvelope {
  const event: EventEnvelope = {
    sequence: fields.sequence,
    event_id: fields.event_id,
    type: fields.type,
    entity_type: fields.entity_type,
    entity_id: fields.entity_id,
    occurred_at: fields.occurred_at,
    data: JSON.parse(dataText) as unknown,
  }
  // The keys in the envelope's own order, as JSON.stringify would write them.
  texts.set(
    event,
    `{"sequence":${event.sequence},"event_id":${JSON.stringify(event.event_id)},"type":${JSON.stringify(event.type)},"entity_type":${JSON.stringify(event.entity_type)},"entity_id":${JSON.stringify(event.entity_id)},"occurred_at":${JSON.stringify(event.occurred_at)},"data":${dataText}}`,
  )
  return event
}

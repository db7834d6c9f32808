// The numbers and patterns that both a schema and a service state: declared once
// here, in plain values, so that a service (and a command such as `coffer sync`,
// which never validates a request) need not load the schema library for them.

/** CONTRACT 6: the amount syntax accepted on input; decimal.ts parses by it. */
export const DECIMAL_INPUT_PATTERN = '^[+-]?(\\d+(\\.\\d*)?|\\.\\d+)$'
export const DECIMAL_INPUT_MAX_CHARS = 64

export const WEBHOOK_URL_MAX_CHARS = 2048
export const WEBHOOK_EVENT_TYPES_MAX = 64

/**
 * The longest page cursor accepted: room for a long synced id in any script (its
 * JSON and base64url grow it), well inside the 16 KiB URL limit.
 */
export const CURSOR_MAX_CHARS = 8192

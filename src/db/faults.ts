// Database faults that are nobody's request's fault: the server restarted or
// went away (PostgreSQL), or the file stayed locked past busy_timeout (SQLite).
// The doors answer them 503 with Retry-After instead of a 500, and the pool
// replaces the lost connections on the next query.

// PostgreSQL SQLSTATEs: class 08 (connection exception), the shutdown codes a
// restarting server sends its sessions (57P01–57P03), and a unit rolled back as
// a deadlock's victim or a serialization failure (40P01, 40001): trying it again works.
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|40P01|40001)$/
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])
// pg reports some losses only in its message.
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'timeout exceeded when trying to connect',
]
// Another connection holds the lock: waiting may end it (connect.ts waits).
const SQLITE_LOCK_HELD = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED'])
const SQLITE_BUSY = new Set([...SQLITE_LOCK_HELD, 'SQLITE_BUSY_SNAPSHOT'])

/** Whether `error` is SQLite refusing a statement because another connection holds the lock. */
export function isSqliteLockHeld(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && SQLITE_LOCK_HELD.has(code)
}

/** Whether `error` says the database cannot be reached (or used) right now, so a retry may work. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') {
    if (UNAVAILABLE_SOCKET_CODES.has(code) || SQLITE_BUSY.has(code)) return true
    if (UNAVAILABLE_SQLSTATE.test(code)) return true
  }
  return UNAVAILABLE_MESSAGES.some((text) => error.message.startsWith(text))
}

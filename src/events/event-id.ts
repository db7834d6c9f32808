// Event ids (SPEC: a UUID string, the dedupe key of a delivery). Version 7
// (RFC 9562): 48 bits of Unix milliseconds, then random bits. They are as unique
// as version 4 ones and still opaque to a client, but they sort by time, so the
// unique index on events.event_id grows at its right edge: an import of a
// million rows appends to a few pages instead of dirtying a random page of a
// large B-tree per event (docs/performance.md "Imports").
import { randomFillSync } from 'node:crypto'

/** Random bytes drawn in batches: one system call per 512 ids. */
const POOL_IDS = 512
const pool = Buffer.alloc(16 * POOL_IDS)
let next = POOL_IDS

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

/** A new version 7 UUID, lower-case hex in the 8-4-4-4-12 form. */
export function newEventId(now: number = Date.now()): string {
  if (next === POOL_IDS) {
    randomFillSync(pool)
    next = 0
  }
  const b = pool.subarray(next * 16, next * 16 + 16)
  next++
  // 48-bit big-endian milliseconds (2 ** 48 ms is past the year 10,000).
  let ms = now
  for (let i = 5; i >= 0; i--) {
    b[i] = ms % 256
    ms = Math.floor(ms / 256)
  }
  b[6] = 0x70 | (b[6]! & 0x0f) // version 7
  b[8] = 0x80 | (b[8]! & 0x3f) // variant 10
  let hex = ''
  for (let i = 0; i < 16; i++) {
    hex += HEX[b[i]!]
    if (i === 3 || i === 5 || i === 7 || i === 9) hex += '-'
  }
  return hex
}

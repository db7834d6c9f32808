// The text encoding of a CSV file. UTF-8 is the default and goes to the parser
// as it is, watched for byte sequences that are not UTF-8 (a bank's export in
// Windows-1252 would otherwise import "Café" as "Caf\uFFFD" without a word);
// another encoding, named by the folder's `mapping.encoding`, is decoded by the
// platform's TextDecoder and handed on as UTF-8.
import { isUtf8 } from 'node:buffer'
import { Transform } from 'node:stream'

/** A stream of the input's text in `encoding`, re-encoded as UTF-8 for the parser. */
export function decodingToUtf8(encoding: string): Transform {
  const decoder = new TextDecoder(encoding)
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      done(null, decoder.decode(chunk, { stream: true }))
    },
    flush(done) {
      done(null, decoder.decode())
    },
  })
}

/** Whether NUL bytes are plain text in `encoding` (UTF-16 writes one in every ASCII character). */
export function holdsNulBytes(encoding: string): boolean {
  return encoding.startsWith('utf-16')
}

/**
 * Tells whether a stream of chunks is all UTF-8. A character split between two
 * chunks is held back and checked with the next one.
 */
export class Utf8Check {
  valid = true
  #held: Buffer | null = null

  feed(chunk: Buffer): void {
    if (!this.valid) return
    const bytes = this.#held ? Buffer.concat([this.#held, chunk]) : chunk
    // Back over up to three continuation bytes (10xxxxxx) and the lead byte
    // (11xxxxxx) they may follow: the last character may not be whole yet.
    let cut = bytes.length
    while (cut > bytes.length - 3 && cut > 0 && (bytes[cut - 1]! & 0xc0) === 0x80) cut--
    if (cut > 0 && bytes[cut - 1]! >= 0xc0) cut--
    this.#held = cut < bytes.length ? Buffer.from(bytes.subarray(cut)) : null
    if (!isUtf8(bytes.subarray(0, cut))) this.valid = false
  }

  /** At the end of the input: whether every byte was UTF-8. */
  end(): boolean {
    if (this.valid && this.#held !== null) this.valid = isUtf8(this.#held)
    this.#held = null
    return this.valid
  }
}

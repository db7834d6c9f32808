// The bytes of a JSON request body as text (CONTRACT 3): Coffer decodes no
// Content-Encoding, so a gzip (or any other) encoded body is refused with 415
// rather than read as if it were plain; and the bytes must be valid UTF-8, so
// a garbled byte is a 400 rather than a silent U+FFFD in the ledger.

/** A refused body, answered as problem details with its status (problem.ts). */
export class BodyEncodingError extends Error {
  constructor(
    readonly statusCode: 400 | 415,
    message: string,
  ) {
    super(message)
  }
}

// fatal: invalid sequences throw; ignoreBOM: a BOM is kept, as before, for the
// JSON parser to judge.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

export function bodyText(contentEncoding: string | string[] | undefined, body: Buffer): string {
  const encodings = (
    Array.isArray(contentEncoding) ? contentEncoding.join(',') : (contentEncoding ?? '')
  )
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '' && e !== 'identity')
  if (encodings.length > 0) {
    throw new BodyEncodingError(
      415,
      `Content-Encoding ${encodings.join(', ')} is not supported; send the body uncompressed (identity)`,
    )
  }
  try {
    return utf8.decode(body)
  } catch {
    throw new BodyEncodingError(400, 'the request body is not valid UTF-8')
  }
}

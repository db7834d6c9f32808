// Reading an outside server's answer with a bound: Content-Length may be absent
// (chunked) or false, so the bound is counted on the bytes as they come, and the
// rest of the body is cancelled once it is passed, never buffered.

export class BodyTooLarge extends Error {
  override name = 'BodyTooLarge'
  constructor(readonly maxBytes: number) {
    super(`larger than ${maxBytes} bytes`)
  }
}

/** The body as UTF-8 text, or BodyTooLarge once it passes `maxBytes`. */
export async function readBoundedText(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '0')
  if (declared > maxBytes) {
    await response.body?.cancel()
    throw new BodyTooLarge(maxBytes)
  }
  if (!response.body) return ''
  const chunks: Uint8Array[] = []
  let received = 0
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    received += value.byteLength
    if (received > maxBytes) {
      await reader.cancel()
      throw new BodyTooLarge(maxBytes)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

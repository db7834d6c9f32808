// A streaming reader of /api/v1/events/stream that parses SSE frames as they
// arrive and checks each is well formed (id, event, data; comments apart).
import assert from 'node:assert/strict'
import type { EventEnvelope } from '../../src/events/types.js'

export const WAIT_MS = 20_000

export interface Frame {
  id: string
  event: string
  data: EventEnvelope
}

/** A streaming reader of /api/v1/events/stream that parses frames as they arrive. */
export class SseClient {
  readonly frames: Frame[] = []
  readonly comments: string[] = []
  private buffer = ''
  private ended = false
  private changed: () => void = () => undefined

  private constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {}

  static async open(
    app: { url: string },
    query = '',
    headers: Record<string, string> = {},
  ): Promise<SseClient> {
    const controller = new AbortController()
    const response = await fetch(`${app.url}/api/v1/events/stream${query}`, {
      headers,
      signal: controller.signal,
    })
    const client = new SseClient(response, controller)
    if (response.ok && response.body) void client.pump(response.body)
    return client
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder()
    const reader = body.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        this.buffer += decoder.decode(value, { stream: true })
        this.parse()
        this.changed()
      }
    } catch {
      // Aborted by close(): the test is done with the stream.
    } finally {
      this.ended = true
      this.changed()
    }
  }

  private parse(): void {
    for (;;) {
      const end = this.buffer.indexOf('\n\n')
      if (end === -1) return
      const block = this.buffer.slice(0, end)
      this.buffer = this.buffer.slice(end + 2)
      const fields: Record<string, string> = {}
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          this.comments.push(line.slice(1).trim())
          continue
        }
        const colon = line.indexOf(':')
        const name = line.slice(0, colon)
        const value = line.slice(colon + 1).replace(/^ /, '')
        assert.ok(colon > 0 && !(name in fields), `well-formed frame line: ${line}`)
        fields[name] = value
      }
      if (Object.keys(fields).length === 0) continue
      assert.deepEqual(Object.keys(fields).sort(), ['data', 'event', 'id'], block)
      this.frames.push({
        id: fields.id!,
        event: fields.event!,
        data: JSON.parse(fields.data!) as EventEnvelope,
      })
    }
  }

  /** Waits (with a deadline) until `done()` holds for what has arrived. */
  async until(what: string, done: () => boolean, timeoutMs = WAIT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!done()) {
      if (this.ended) assert.fail(`stream ended while waiting for ${what}`)
      const left = deadline - Date.now()
      if (left <= 0) assert.fail(`timed out waiting for ${what} (${this.frames.length} frames)`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 250))
        this.changed = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
  }

  untilFrames(count: number): Promise<void> {
    return this.until(`${count} frames`, () => this.frames.length >= count)
  }

  close(): void {
    this.controller.abort()
  }

  /** Whether the service ended the stream (or close() did). */
  get isEnded(): boolean {
    return this.ended
  }
}

// The exact-number guard of HTTP bodies (http/json-body.ts), for MCP over stdio.
// The SDK's stdio transport parses each line with JSON.parse, which would round
// 12345678901234567890 or 0.1000000000000000000001 in a tool argument silently;
// over HTTP the same message is refused with a 400. So stdin passes through this
// filter first: a line that parses as JSON but not as an HTTP body would (an
// inexact number, a prototype-poisoning key, nesting deeper than 64 levels, a
// lone surrogate) is answered here and never reaches the server, and so is a
// line that is not JSON at all (a -32700 parse error), and a JSON value that is no
// JSON-RPC message (a -32600 invalid request: the SDK would only report it to its
// onerror and leave the client waiting). A tools/call gets a tool error carrying
// the REST problem details; any other request a JSON-RPC "invalid params" error
// with the same detail.
import { PassThrough, type Readable } from 'node:stream'
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js'
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Logger } from 'pino'
import { parseJsonBody } from '../http/json-body.js'
import { toProblem } from '../http/problem.js'
import { errorReply, jsonRpcRefusal, type Refusal } from './json-rpc.js'
import { toolResult } from './server.js'

/**
 * The SDK's read buffer, less the newline: a longer line would close its
 * transport and end the session, so it is refused here.
 */
const MAX_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE - 1

/** Why one line is refused, or null when it goes on to the transport unchanged. */
export function refusalOf(line: string, log: Logger): Refusal | null {
  if (line.trim() === '') return null
  let loose: unknown
  try {
    loose = JSON.parse(line)
  } catch (error) {
    // Not JSON at all. The SDK's transport would only report it to its onerror
    // and leave the client waiting: JSON-RPC answers it with a parse error whose
    // id is null, since no id could be read.
    const detail = `not JSON: ${error instanceof Error ? error.message : 'unreadable'}`
    return { detail, reply: errorReply(null, ErrorCode.ParseError, `Parse error: ${detail}`) }
  }
  try {
    parseJsonBody(line)
  } catch (error) {
    const problem = toProblem(error, { log })
    const { id, method } = (typeof loose === 'object' && loose !== null ? loose : {}) as {
      id?: unknown
      method?: unknown
    }
    if ((typeof id !== 'string' && typeof id !== 'number') || typeof method !== 'string') {
      return { detail: problem.detail, reply: null }
    }
    const reply: JSONRPCMessage =
      method === 'tools/call'
        ? { jsonrpc: '2.0', id, result: toolResult(problem, true) }
        : {
            jsonrpc: '2.0',
            id,
            error: { code: ErrorCode.InvalidParams, message: problem.detail, data: problem },
          }
    return { detail: problem.detail, reply }
  }
  return jsonRpcRefusal(loose)
}

/**
 * stdin as the transport should read it: whole lines of valid UTF-8, minus the
 * refused ones, whose answers go to `answer` (the transport's send). A line over
 * the SDK's read buffer is refused here (the transport would close the session),
 * and so is one that is not UTF-8 (a decoder would replace its bytes silently,
 * where HTTP refuses the body). A last line without its newline is still read.
 */
export function guardStdin(
  input: Readable,
  answer: (message: JSONRPCMessage) => Promise<void>,
  log: Logger,
): Readable {
  const output = new PassThrough()
  const utf8 = new TextDecoder('utf-8', { fatal: true })
  let pending: Buffer[] = []
  let pendingBytes = 0
  /** Within a line already refused as too long: its bytes are dropped up to its newline. */
  let skipping = false
  const refuse = (refusal: Refusal) => {
    log.warn({ detail: refusal.detail }, 'mcp: message refused')
    if (refusal.reply !== null) void answer(refusal.reply)
  }
  const take = (bytes: Buffer) => {
    let line: string
    try {
      line = utf8.decode(bytes)
    } catch {
      const detail = 'the message is not valid UTF-8'
      return refuse({
        detail,
        reply: errorReply(null, ErrorCode.ParseError, `Parse error: ${detail}`),
      })
    }
    const refusal = refusalOf(line.replace(/\r$/, ''), log)
    if (refusal === null) output.write(`${line}\n`)
    else refuse(refusal)
  }
  const tooLong = () => {
    const detail = `a message is at most ${STDIO_DEFAULT_MAX_BUFFER_SIZE / 1024 / 1024} MiB`
    refuse({
      detail,
      reply: errorReply(null, ErrorCode.InvalidRequest, `Invalid Request: ${detail}`),
    })
  }
  input.on('data', (chunk: Buffer | string) => {
    let rest = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    for (let newline = rest.indexOf(0x0a); newline !== -1; newline = rest.indexOf(0x0a)) {
      const head = rest.subarray(0, newline)
      rest = rest.subarray(newline + 1)
      if (skipping) {
        skipping = false
        continue
      }
      if (pendingBytes + head.length > MAX_LINE_BYTES) tooLong()
      else take(pending.length === 0 ? head : Buffer.concat([...pending, head]))
      pending = []
      pendingBytes = 0
    }
    if (skipping || rest.length === 0) return
    if (pendingBytes + rest.length > MAX_LINE_BYTES) {
      tooLong()
      skipping = true
      pending = []
      pendingBytes = 0
      return
    }
    pending.push(Buffer.from(rest)) // a copy: the stream may reuse its chunk
    pendingBytes += rest.length
  })
  input.on('end', () => {
    if (!skipping && pendingBytes > 0) take(Buffer.concat(pending))
    output.end()
  })
  input.on('error', (error) => output.destroy(error))
  return output
}

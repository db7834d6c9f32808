// What is no JSON-RPC message, answered as JSON-RPC says (-32600 Invalid Request)
// rather than left to the SDK, which reports it to its onerror over stdio (the
// client waits for ever) and calls it a parse error over HTTP.
import {
  ErrorCode,
  JSONRPCMessageSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js'

export interface Refusal {
  detail: string
  /** The answer to the request; none for a notification (it is dropped). */
  reply: JSONRPCMessage | null
}

/**
 * Why a JSON value is no JSON-RPC message the transport takes (no `jsonrpc: "2.0"`,
 * no method, a batch), or null when it is one. A request's id is answered when
 * one can be read; what looks like a notification is dropped, as JSON-RPC says.
 */
export function jsonRpcRefusal(loose: unknown): Refusal | null {
  if (JSONRPCMessageSchema.safeParse(loose).success) return null
  if (Array.isArray(loose)) {
    const detail = 'batches are not supported: send one JSON-RPC message at a time'
    return {
      detail,
      reply: errorReply(null, ErrorCode.InvalidRequest, `Invalid Request: ${detail}`),
    }
  }
  const fields = (typeof loose === 'object' && loose !== null ? loose : {}) as Record<
    string,
    unknown
  >
  const detail =
    fields.jsonrpc !== '2.0'
      ? 'not a JSON-RPC 2.0 message: "jsonrpc" must be "2.0"'
      : typeof fields.method !== 'string' && !('result' in fields) && !('error' in fields)
        ? 'not a JSON-RPC 2.0 message: it has no "method", "result" or "error"'
        : 'not a JSON-RPC 2.0 message: a field has the wrong type'
  const id = typeof fields.id === 'string' || typeof fields.id === 'number' ? fields.id : null
  if (id === null && typeof fields.method === 'string' && !('id' in fields)) {
    return { detail, reply: null } // a notification: never answered
  }
  return { detail, reply: errorReply(id, ErrorCode.InvalidRequest, `Invalid Request: ${detail}`) }
}

export function errorReply(
  id: string | number | null,
  code: number,
  message: string,
): JSONRPCMessage {
  // The SDK's types have no null id, which JSON-RPC uses when none could be read.
  return { jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage
}

// The MCP server (SPEC 4.7, CONTRACT 3c): the SDK's low-level Server, so that tool
// input schemas are our TypeBox JSON Schemas (DESIGN: one schema language). Both
// transports (stdio.ts, http.ts) build one with buildMcpServer. Tool arguments are
// checked by the same strict Ajv as REST bodies; a failure of any kind is a tool
// error carrying the REST problem details (the one mapping for MCP errors).
import { readFileSync } from 'node:fs'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js'
import { Invalid } from '../errors.js'
import { JSON_DEPTH_DETAIL, jsonValueTooDeep } from '../schemas/json-depth.js'
import { toProblem } from '../http/problem.js'
import { findNul } from '../http/nul.js'
import { compileStrict, type Validate } from '../http/validation.js'
import { TOOLS, type Tool, type ToolDeps } from './tools.js'

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
).version

interface CompiledTool extends Tool {
  validate: Validate
}

// One validator per tool per process (each compiled at its first call): every
// HTTP request builds a fresh Server.
const COMPILED = new Map<string, CompiledTool>(
  TOOLS.map((t) => [t.name, { ...t, validate: compileStrict(t.inputSchema) }]),
)

function isOffered(tool: Tool, deps: ToolDeps): boolean {
  return tool.offered?.(deps) ?? true
}

/** Text content always; structured content when the body is a JSON object (MCP requires one). */
export function toolResult(body: unknown, isError = false): CallToolResult {
  const structured =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? { structuredContent: body as Record<string, unknown> }
      : {}
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    ...structured,
    ...(isError ? { isError: true } : {}),
  }
}

/** Runs one tool; every failure becomes a tool error with the REST problem details. */
export async function callTool(
  deps: ToolDeps,
  name: string,
  input: unknown,
): Promise<CallToolResult> {
  const tool = COMPILED.get(name)
  if (!tool || !isOffered(tool, deps))
    throw new McpError(ErrorCode.InvalidParams, `unknown tool "${name}"`)
  let body: unknown
  try {
    // As for REST (http/server.ts): PostgreSQL text cannot hold U+0000.
    const nul = findNul(input, 'arguments')
    if (nul !== null) throw Invalid.field(nul, 'must not contain the NUL character (U+0000)')
    // Both transports refuse deeper messages already; this bounds any other caller.
    if (jsonValueTooDeep(input)) throw Invalid.field('arguments', JSON_DEPTH_DETAIL)
    if (!tool.validate(input)) {
      // Shaped like Fastify's validation error, so toProblem words it as REST does.
      throw Object.assign(new Error('invalid arguments'), {
        validation: tool.validate.errors ?? [],
        validationContext: 'arguments',
      })
    }
    body = await tool.call(deps, input)
  } catch (error) {
    return toolResult(toProblem(error, { log: deps.ctx.log }), true)
  }
  return toolResult(body)
}

export function buildMcpServer(deps: ToolDeps): Server {
  const server = new Server({ name: 'coffer', version: VERSION }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.filter((t) => isOffered(t, deps)).map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
    })),
  }))
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(deps, request.params.name, request.params.arguments ?? {}),
  )
  return server
}

/** The requests the server answers, by method, with the shape of their params. */
const REQUEST_SCHEMAS = new Map<string, { safeParse(value: unknown): ParamsCheck }>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
])

interface ParamsCheck {
  success: boolean
  error?: { issues: Array<{ path: PropertyKey[]; message: string }> }
}

/**
 * The SDK checks a request's params against its method's schema before any
 * handler runs, and answers a mismatch (`"arguments": []`, `initialize` without
 * `protocolVersion`) as an internal error (-32603) that quotes its validator. The
 * mistake is the client's: such a request is answered here, before the server
 * sees it, with -32602 (invalid params) naming the field. Both transports call
 * this once the server is connected.
 */
export function refuseInvalidParams(transport: Transport): void {
  const deliver = transport.onmessage
  transport.onmessage = (message, extra) => {
    const refusal = invalidParams(message)
    if (refusal) void transport.send(refusal)
    else deliver?.(message, extra)
  }
}

export function invalidParams(message: JSONRPCMessage): JSONRPCMessage | null {
  if (!('method' in message) || !('id' in message)) return null
  const check = REQUEST_SCHEMAS.get(message.method)?.safeParse(message)
  if (!check || check.success) return null
  const issue = check.error?.issues[0]
  const field = issue?.path.map(String).join('.') || 'params'
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: {
      code: ErrorCode.InvalidParams,
      message: `invalid params of ${message.method}: ${field}: ${issue?.message ?? 'is invalid'}`,
    },
  }
}

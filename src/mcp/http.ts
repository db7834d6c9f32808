// /mcp: MCP over Streamable HTTP (SPEC 4.7), admin tier (dashboard token only;
// the auth hook answers 401/403/503 before any of this runs). Stateless: every
// POST gets a fresh server and transport (no session id), so nothing outlives a
// request; GET (a server-sent stream) and DELETE (ending a session) have nothing
// to serve and answer 405. app.ts mounts these rows beside the route table
// (http/routes.ts) when mcp.enabled, so the HTTP door never imports MCP.
import { problem, sendProblem } from '../http/problem.js'
import { route, type Handler, type Route } from '../http/route.js'
import { McpRoutes as S } from '../schemas/mcp.js'

/**
 * The MCP SDK and the tool table, loaded at the first call rather than at every
 * start, which most never serve one: `coffer serve` answers /healthz about 0.25 s sooner.
 */
const importMcp = () =>
  Promise.all([
    import('./server.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('./json-rpc.js'),
  ])
let mcpModules: ReturnType<typeof importMcp> | null = null
const loadMcp = () => (mcpModules ??= importMcp())

const post: Handler<typeof S.post> = async (
  { ctx, sync, searches, settings, plugins },
  req,
  reply,
) => {
  const [
    { buildMcpServer, refuseInvalidParams },
    { StreamableHTTPServerTransport },
    { jsonRpcRefusal, errorReply },
  ] = await loadMcp()
  // JSON that is no JSON-RPC message (an old version, no method, an empty batch)
  // is an invalid request, as over stdio; a batch of messages goes to the SDK.
  const body: unknown = req.body
  const refusal =
    Array.isArray(body) && body.length > 0
      ? null
      : Array.isArray(body)
        ? { detail: 'an empty batch', reply: null }
        : jsonRpcRefusal(body)
  if (refusal) {
    const answer = refusal.reply ?? errorReply(null, -32600, `Invalid Request: ${refusal.detail}`)
    await reply.code(400).type('application/json').send(answer)
    return
  }
  const server = buildMcpServer({ ctx, sync, searches, settings, plugins })
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  })
  // The SDK writes the answer on the raw response itself.
  reply.hijack()
  reply.raw.on('close', () => {
    void transport.close()
    void server.close()
  })
  await server.connect(transport)
  refuseInvalidParams(transport)
  await transport.handleRequest(req.raw, reply.raw, req.body)
}

const notOffered: Handler<typeof S.notOffered> = async (_deps, _req, reply) => {
  await sendProblem(
    reply.header('allow', 'POST'),
    problem(405, 'this MCP endpoint is stateless: send JSON-RPC messages with POST'),
  )
}

// prettier-ignore
export const MCP_ROUTES: readonly Route[] = [
  route('POST',            '/mcp', 'admin', S.post,       post),
  route(['GET', 'DELETE'], '/mcp', 'admin', S.notOffered, notOffered),
]

// /mcp: MCP over Streamable HTTP (SPEC 4.7), admin tier (dashboard token only;
// the auth hook answers 401/403/503 before any of this runs). Stateless: every
// POST gets a fresh server and transport (no session id), so nothing outlives a
// request; GET (a server-sent stream) and DELETE (ending a session) have nothing
// to serve and answer 405.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import Type from 'typebox'
import { problem, sendProblem } from '../http/problem.js'
import type { RouteDeps } from '../http/routes/deps.js'
import { ErrorResponses, Problem } from '../http/schemas/common.js'
import type { App } from '../http/types.js'
import { buildMcpServer } from './server.js'

export function register(app: App, { ctx }: RouteDeps): void {
  app.post(
    '/mcp',
    {
      config: { tier: 'admin' },
      schema: {
        tags: ['mcp'],
        summary: 'MCP over stateless Streamable HTTP (dashboard token only)',
        description: 'One JSON-RPC message per POST; see docs/mcp.md.',
        response: {
          200: Type.Unknown({ description: 'The JSON-RPC response' }),
          202: Type.Null({ description: 'A notification was accepted' }),
          ...ErrorResponses,
        },
      },
    },
    async (req, reply) => {
      const server = buildMcpServer(ctx)
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
      await transport.handleRequest(req.raw, reply.raw, req.body)
    },
  )

  app.route({
    method: ['GET', 'DELETE'],
    url: '/mcp',
    config: { tier: 'admin' },
    schema: {
      tags: ['mcp'],
      summary: 'Not offered: the MCP endpoint is stateless',
      response: { 405: Problem, ...ErrorResponses },
    },
    handler: async (_req, reply) => {
      await sendProblem(
        reply.header('allow', 'POST'),
        problem(405, 'this MCP endpoint is stateless: send JSON-RPC messages with POST'),
      )
    },
  })
}

// The MCP endpoint over Streamable HTTP (SPEC 4.7): each route's schema. The
// tools' input schemas are built from the other resources' schemas (mcp/tools.ts).
import Type from 'typebox'
import { ErrorResponses, Problem } from './common.js'

export const McpRoutes = {
  post: {
    tags: ['mcp'],
    summary: 'MCP over stateless Streamable HTTP (dashboard token only)',
    description: 'One JSON-RPC message per POST; see docs/mcp.md.',
    response: {
      200: Type.Unknown({ description: 'The JSON-RPC response' }),
      202: Type.Null({ description: 'A notification was accepted' }),
      ...ErrorResponses,
      400: Type.Unknown({
        description:
          'A problem (the body is not JSON), or a JSON-RPC error -32600 (JSON that is no JSON-RPC message)',
      }),
    },
  },
  notOffered: {
    tags: ['mcp'],
    summary: 'Not offered: the MCP endpoint is stateless',
    response: { 405: Problem, ...ErrorResponses },
  },
}
